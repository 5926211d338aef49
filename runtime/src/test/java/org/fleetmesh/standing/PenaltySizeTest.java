package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;

/**
 * A penalty for a malformed or false finding embeds that finding, so one about a finding near the 60,000-byte limit
 * cannot be signed. The node must see that before it takes the publisher's penalty slot for the minute (found by an
 * outside audit: an oversized malformed finding first made the node log an error and sign no penalty for the
 * publisher's next malformed findings of that minute).
 */
class PenaltySizeTest {
    private static final String SUBJECT_KEY_HEX = TestFindings.SUBJECT_KEY.hex();

    private static Event published(String content) {
        return TestFindings.raw(List.of(List.of("p", SUBJECT_KEY_HEX)), content);
    }

    @Test
    void aPenaltyAboutAFindingNearTheLimitDoesNotFitAFinding() {
        String big = "{\"type\":\"fleetmesh.compute-equivocation\",\"pad\":\"" + "x".repeat(59_900) + "\"}";
        String evidence = FindingEvidence.malformedFinding(published(big), "invalid: missing subject tag");
        assertNotNull(FindingEvidence.draft(evidence));
        assertFalse(FindingEvidence.fitsAFinding(evidence));
        // and signing it is what fails, which is why the runtime checks first
        Draft d = FindingEvidence.draft(evidence);
        assertThrows(IllegalArgumentException.class, () -> Finding.sign(TestFindings.OBSERVER_DID,
                TestFindings.SUBJECT_KEY, TestFindings.SUBJECT_DID, d.severity(), d.scope(), d.rule(),
                d.evidenceJson(), TestFindings.AT, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}));
    }

    @Test
    void aPenaltyAboutASmallFindingFits() {
        String evidence = FindingEvidence.malformedFinding(published("spam"), "invalid: missing subject tag");
        assertTrue(FindingEvidence.fitsAFinding(evidence));
        String multibyte = FindingEvidence.malformedFinding(published("é".repeat(29_990)), "invalid: x");
        assertFalse(FindingEvidence.fitsAFinding(multibyte), "the limit counts UTF-8 bytes, not characters");
    }
}
