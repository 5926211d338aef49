package org.fleetmesh.standing;

import java.nio.charset.StandardCharsets;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.spi.standing.FindingRecord;

/**
 * How a finding event and this node's verdict on it become a {@link FindingRecord} (docs/spec/standing.md). The
 * observer is the finding's DID only when the finding counts (the verifier checked the DID is the signer's); else the
 * signer's key, {@code pubkey:<hex>}, so a finding that does not hold is never put on a DID it merely names.
 */
public final class FindingRecords {
    /** What stands for a value a malformed finding does not carry. */
    static final String NONE = "-";

    private FindingRecords() {
    }

    /** The record of {@code e} (a kind 1804 event whose signature the relay checked) with the verdict {@code c}. */
    public static FindingRecord of(Event e, Check c, boolean self, long nowMillis) {
        String verdict = c.verdict().name();
        String signer = "pubkey:" + e.pubkey().hex();
        try {
            Finding f = Finding.read(e);
            String observer = c.counts() ? PeerIdentity.shortForm(f.observer()) : signer;
            return new FindingRecord(0, e.id().hex(), e.json(), observer, PeerIdentity.shortForm(f.subjectDid()),
                    f.subject().hex(), f.severity().name(), f.scope().wire(), f.rule(), f.evidenceDigest(), verdict,
                    c.reason(), self, e.createdAt(), nowMillis);
        } catch (FindingException | RuntimeException ex) {
            return loose(e.id().hex(), e, signer, verdict, c.reason(), self, nowMillis);
        }
    }

    /**
     * The record of a kind 1804 event the relay refused for its id or signature ({@code reason}, e.g.
     * {@code invalid: bad signature}): weighs nothing. Its key is not the event's id alone, so a forgery sent first
     * cannot stand for the real finding with that id arriving later.
     */
    public static FindingRecord refused(Event e, String reason, long nowMillis) {
        String sig = e.sig().hex();
        return loose(e.id().hex() + ":refused:" + sig.substring(0, Math.min(16, sig.length())), e,
                "pubkey:" + e.pubkey().hex(), Verdict.MALFORMED.name(), reason, false, nowMillis);
    }

    /** What the tags say, unchecked, for an event that is not a finding this node can read. */
    private static FindingRecord loose(String key, Event e, String observer, String verdict, String reason,
            boolean self, long nowMillis) {
        String subjectDid = e.firstTagValue("subject");
        String p = e.firstTagValue("p");
        String subject = subjectDid != null ? safeShort(subjectDid) : p != null ? "pubkey:" + p : NONE;
        String digest = Hex.encode(Events.sha256(e.content().getBytes(StandardCharsets.UTF_8)));
        return new FindingRecord(0, key, e.json(), observer, subject, p, orNone(e.firstTagValue("severity")),
                orNone(e.firstTagValue("scope")), orNone(e.firstTagValue("rule")), digest, verdict, reason, self,
                e.createdAt(), nowMillis);
    }

    private static String safeShort(String did) {
        try {
            return PeerIdentity.shortForm(did);
        } catch (RuntimeException e) {
            return did;
        }
    }

    private static String orNone(String s) {
        return s == null ? NONE : s;
    }
}
