package org.fleetmesh.spi.standing;

import java.util.Objects;

/**
 * One finding (a kind 1804 event, docs/spec/findings.md) as this node recorded it, with the verdict its own re-check
 * reached (docs/spec/standing.md).
 *
 * @param id the store's sequence number (0 before it is stored)
 * @param eventId the finding event's id, hex
 * @param event the finding event's JSON
 * @param observer who published it: its DID in short form, or {@code pubkey:<hex>} when no DID is known
 * @param subject the subject's DID, short form
 * @param subjectPubkey the subject's Nostr key, hex (the {@code p} tag); may be null when unknown
 * @param severity {@code S1}, {@code S2} or {@code S3} (as tagged; anything else when the event is malformed)
 * @param scope {@code transit} or {@code compute} (as tagged)
 * @param rule the rule broken, as tagged
 * @param evidenceDigest sha256 hex of the event's content (one evidence counts once per subject and scope)
 * @param verdict {@code VERIFIED}, {@code ATTESTED}, {@code UNVERIFIABLE}, {@code FALSE} or {@code MALFORMED}
 * @param reason why the verdict (the re-check's words); may be empty
 * @param self whether this node is the observer (it signed the finding from its own evidence)
 * @param createdAt the event's {@code created_at}, epoch seconds
 * @param receivedAt when this node recorded it, epoch milliseconds
 */
public record FindingRecord(long id, String eventId, String event, String observer, String subject,
        String subjectPubkey, String severity, String scope, String rule, String evidenceDigest, String verdict,
        String reason, boolean self, long createdAt, long receivedAt) {

    /** The verdicts whose findings can weigh something: the evidence was re-checked, or the observer's word counts. */
    public static final String VERIFIED = "VERIFIED";
    public static final String ATTESTED = "ATTESTED";

    public FindingRecord {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(observer, "observer");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(evidenceDigest, "evidenceDigest");
        Objects.requireNonNull(verdict, "verdict");
        reason = reason == null ? "" : reason;
    }

    /** The same record under the store's id. */
    public FindingRecord withId(long newId) {
        return new FindingRecord(newId, eventId, event, observer, subject, subjectPubkey, severity, scope, rule,
                evidenceDigest, verdict, reason, self, createdAt, receivedAt);
    }

    /** The same record with an empty {@code event} (standing reads every field but that one). */
    public FindingRecord withoutEvent() {
        return new FindingRecord(id, eventId, "", observer, subject, subjectPubkey, severity, scope, rule,
                evidenceDigest, verdict, reason, self, createdAt, receivedAt);
    }

    /**
     * The class {@link StandingBook#trim} drops first (0) to last (3): 0 a verdict that weighs nothing, 1 a peer's
     * attested finding (its word only), 2 a peer's verified finding, 3 this node's own.
     */
    public int keepRank() {
        if (self) {
            return 3;
        }
        if (VERIFIED.equals(verdict)) {
            return 2;
        }
        return ATTESTED.equals(verdict) ? 1 : 0;
    }
}
