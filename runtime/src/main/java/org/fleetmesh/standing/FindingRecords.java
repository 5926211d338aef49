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
    /**
     * The most of a finding event's JSON a record keeps when the finding does not count: anyone may send kind 1804
     * events (a bad signature included), and the book keeps 10,000 records, so a stranger's 512 KiB each would be
     * gigabytes. A larger one is kept as its id, pubkey, kind and created_at, and what was left out.
     */
    static final int MAX_LOOSE_EVENT_CHARS = 65_536;
    /** The most of a tag's value a record keeps for subject (an unreadable one), severity, scope and rule. */
    static final int MAX_SUBJECT_CHARS = 512;
    static final int MAX_WORD_CHARS = 64;

    private FindingRecords() {
    }

    /** The record of {@code e} (a kind 1804 event whose signature the relay checked) with the verdict {@code c}. */
    public static FindingRecord of(Event e, Check c, boolean self, long nowMillis) {
        String verdict = c.verdict().name();
        String signer = "pubkey:" + e.pubkey().hex();
        try {
            Finding f = Finding.read(e);
            String observer = c.counts() ? PeerIdentity.shortForm(f.observer()) : signer;
            // one that does not count is anyone's (any key may sign a well-formed finding, with tags of any size
            // beside the ones read and a DID of up to 4,096 characters): kept to the same bounds as a loose one
            boolean counts = c.counts();
            String subject = PeerIdentity.shortForm(f.subjectDid());
            return new FindingRecord(0, e.id().hex(), counts ? e.json() : keptJson(e), observer,
                    counts ? subject : cut(subject, MAX_SUBJECT_CHARS), f.subject().hex(), f.severity().name(),
                    f.scope().wire(), counts ? f.rule() : cut(f.rule(), MAX_WORD_CHARS), f.evidenceDigest(), verdict,
                    c.reason(), self, e.createdAt(), nowMillis);
        } catch (FindingException | RuntimeException ex) {
            return loose(e.id().hex(), e, signer, verdict, c.reason(), self, nowMillis);
        }
    }

    /** {@code e}'s JSON, or (larger than {@link #MAX_LOOSE_EVENT_CHARS}) what identifies it and what was left out. */
    static String keptJson(Event e) {
        String json = e.json();
        if (json.length() <= MAX_LOOSE_EVENT_CHARS) {
            return json;
        }
        return "{\"id\":\"" + e.id().hex() + "\",\"pubkey\":\"" + e.pubkey().hex() + "\",\"kind\":" + e.kind()
                + ",\"created_at\":" + e.createdAt() + ",\"omitted\":\"the event's " + json.length()
                + " characters: a finding that does not count is kept whole only up to " + MAX_LOOSE_EVENT_CHARS + "\"}";
    }

    /** {@code s} cut to {@code max} characters (a surrogate pair is not split). */
    static String cut(String s, int max) {
        if (s == null || s.length() <= max) {
            return s;
        }
        int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
        return s.substring(0, end);
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
        // every value here is the sender's, unchecked: each is kept to a bound (an index on the subject refuses
        // values past about 2.7 kB, and the status page lists them)
        return new FindingRecord(0, key, keptJson(e), observer, cut(subject, MAX_SUBJECT_CHARS),
                p != null && p.length() == 64 ? p : null, word(e.firstTagValue("severity")),
                word(e.firstTagValue("scope")), word(e.firstTagValue("rule")), digest, verdict, reason, self,
                e.createdAt(), nowMillis);
    }

    private static String safeShort(String did) {
        try {
            return PeerIdentity.shortForm(did);
        } catch (RuntimeException e) {
            return did;
        }
    }

    private static String word(String s) {
        return s == null ? NONE : cut(s, MAX_WORD_CHARS);
    }
}
