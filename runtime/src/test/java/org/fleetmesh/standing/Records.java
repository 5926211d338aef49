package org.fleetmesh.standing;

import org.fleetmesh.spi.standing.FindingRecord;

/** Finding records for the standing tests: only the fields standing reads are varied. */
final class Records {
    static final long NOW_MS = 1_800_000_000_000L;
    static final long DAY_S = 86_400;

    private Records() {
    }

    static FindingRecord rec(String eventId, String observer, String subject, String severity, String scope,
            String digest, String verdict, boolean self, long createdAtSeconds) {
        return new FindingRecord(0, eventId, "{\"id\":\"" + eventId + "\"}", observer, subject, "pk-" + subject,
                severity, scope, "rule-" + eventId, digest, verdict, verdict.equals("VERIFIED") ? "" : "said so",
                self, createdAtSeconds, createdAtSeconds * 1000);
    }

    /** A verified transit finding made now, from a peer. */
    static FindingRecord peer(String eventId, String observer, String subject, String severity) {
        return rec(eventId, observer, subject, severity, "transit", "d-" + eventId, "VERIFIED", false, NOW_MS / 1000);
    }

    /** A verified transit finding this node made now. */
    static FindingRecord self(String eventId, String subject, String severity) {
        return rec(eventId, "did:peer:4self", subject, severity, "transit", "d-" + eventId, "VERIFIED", true,
                NOW_MS / 1000);
    }
}
