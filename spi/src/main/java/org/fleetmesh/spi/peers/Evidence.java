package org.fleetmesh.spi.peers;

import java.util.Objects;

/**
 * Signed-evidence material for the findings that follow (docs/spec/link-events.md, "Evidence"): what a peer did, when,
 * and the grant it broke.
 *
 * @param id the store's sequence number (0 before it is stored)
 * @param peer the peer's DID (short form)
 * @param severity {@code S1}, {@code S2} or {@code S3}
 * @param reason the refusal word and detail, e.g. {@code quarantined: 16 violations in 60 s}
 * @param violations violations in the period that decided it
 * @param periodStart epoch milliseconds the period began
 * @param at epoch milliseconds it was recorded
 * @param quarantinedUntil epoch milliseconds of the quarantine's end, 0 when none
 * @param grantId the id of the kind 30801 grant broken, hex
 * @param grant the grant event's JSON
 * @param detail a JSON object with the counts (bytes and events refused, frames, budget used)
 */
public record Evidence(long id, String peer, String severity, String reason, int violations, long periodStart, long at,
        long quarantinedUntil, String grantId, String grant, String detail) {
    public Evidence {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(grantId, "grantId");
        Objects.requireNonNull(grant, "grant");
        Objects.requireNonNull(detail, "detail");
    }

    public Evidence withId(long newId) {
        return new Evidence(newId, peer, severity, reason, violations, periodStart, at, quarantinedUntil, grantId, grant,
                detail);
    }
}
