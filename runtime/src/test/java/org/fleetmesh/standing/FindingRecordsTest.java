package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.spi.standing.FindingRecord;
import org.junit.jupiter.api.Test;

class FindingRecordsTest {
    static final byte[] OBSERVER = Schnorr.newSecretKey();
    static final byte[] SUBJECT = Schnorr.newSecretKey();

    static String did(byte[] secret) {
        return "did:nostr:" + Hex.encode(Schnorr.publicKey(secret));
    }

    static Event equivocation() {
        List<List<String>> a = List.of(List.of("module", "aa".repeat(32)), List.of("input", "bb".repeat(32)),
                List.of("output", "cc".repeat(32)));
        List<List<String>> b = List.of(List.of("module", "aa".repeat(32)), List.of("input", "bb".repeat(32)),
                List.of("output", "dd".repeat(32)));
        String evidence = FindingEvidence.computeEquivocation(Events.sign(SUBJECT, 100, 1, a, "a"),
                Events.sign(SUBJECT, 100, 1, b, "b"));
        return Finding.sign(did(OBSERVER), new PubKey(Schnorr.publicKey(SUBJECT)), did(SUBJECT), Severity.S2,
                Scope.COMPUTE, "compute-equivocation", evidence, 1_700_000_000, OBSERVER);
    }

    @Test
    void aFindingThatCountsIsRecordedUnderItsObserversDid() {
        Event e = equivocation();
        FindingRecord r = FindingRecords.of(e, new Check(Verdict.VERIFIED, "ok"), false, 42);
        assertEquals(e.id().hex(), r.eventId());
        assertEquals(did(OBSERVER), r.observer());
        assertEquals(did(SUBJECT), r.subject());
        assertEquals(Hex.encode(Schnorr.publicKey(SUBJECT)), r.subjectPubkey());
        assertEquals("S2", r.severity());
        assertEquals("compute", r.scope());
        assertEquals("compute-equivocation", r.rule());
        assertEquals(Hex.encode(Events.sha256(e.content().getBytes(StandardCharsets.UTF_8))), r.evidenceDigest());
        assertEquals("VERIFIED", r.verdict());
        assertEquals(1_700_000_000, r.createdAt());
        assertEquals(42, r.receivedAt());
        assertFalse(r.self());
    }

    @Test
    void aFindingThatDoesNotHoldIsPutOnItsSignersKeyNotOnTheDidItNames() {
        Event e = equivocation();
        FindingRecord r = FindingRecords.of(e, new Check(Verdict.FALSE, "the statements state the same result"),
                false, 0);
        assertEquals("pubkey:" + e.pubkey().hex(), r.observer());
        assertEquals("FALSE", r.verdict());
        assertEquals("the statements state the same result", r.reason());
    }

    @Test
    void aMalformedFindingKeepsWhatItsTagsSay() {
        Event e = Events.sign(OBSERVER, 5, Finding.KIND, List.of(List.of("severity", "S9")), "not evidence");
        FindingRecord r = FindingRecords.of(e, new Check(Verdict.MALFORMED, "invalid: no p tag"), false, 0);
        assertEquals("-", r.subject());
        assertEquals("S9", r.severity());
        assertEquals("-", r.scope());
        assertEquals("MALFORMED", r.verdict());
    }

    @Test
    void aRefusedForgeryCannotStandForTheRealFindingWithItsId() {
        Event e = equivocation();
        FindingRecord forged = FindingRecords.refused(e, "invalid: bad signature", 0);
        assertNotEquals(e.id().hex(), forged.eventId());
        assertTrue(forged.eventId().startsWith(e.id().hex() + ":refused:"), forged.eventId());
        assertEquals("MALFORMED", forged.verdict());
        assertEquals("invalid: bad signature", forged.reason());
        assertEquals(did(SUBJECT), forged.subject());
    }

    /** A stranger's finding that does not count is kept to bounds: each tag value, and the event's JSON. */
    @Test
    void whatAStrangerSendsIsKeptToBounds() {
        String huge = "<img src=x onerror=alert(1)>".repeat(200);
        Event e = Events.sign(Schnorr.newSecretKey(), 1_700_000_000, Finding.KIND, List.of(List.of("subject", huge),
                List.of("p", huge), List.of("severity", huge), List.of("scope", huge), List.of("rule", huge)),
                "x".repeat(100_000));
        FindingRecord refused = FindingRecords.refused(e, "invalid: bad signature", 0);
        FindingRecord unreadable = FindingRecords.of(e, new Check(Verdict.MALFORMED, "not a finding"), false, 0);
        for (FindingRecord r : List.of(refused, unreadable)) {
            assertTrue(r.subject().length() <= FindingRecords.MAX_SUBJECT_CHARS, r.subject().length() + "");
            assertTrue(r.severity().length() <= 64 && r.scope().length() <= 64 && r.rule().length() <= 64, r.rule());
            assertEquals(null, r.subjectPubkey(), "a p tag that is not a key is not kept as one");
            assertTrue(r.event().length() < 1000, "the JSON kept: " + r.event().length());
            assertTrue(r.event().contains("\"id\":\"" + e.id().hex() + "\"") && r.event().contains("omitted"), r.event());
            com.fasterxml.jackson.databind.JsonNode j;
            try {
                j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.event());
            } catch (java.io.IOException x) {
                throw new AssertionError(r.event(), x);
            }
            assertEquals(e.id().hex(), j.get("id").asText());
        }
        // a small one is kept whole
        Event small = Events.sign(Schnorr.newSecretKey(), 1_700_000_000, Finding.KIND, List.of(List.of("rule", "r")), "");
        assertEquals(small.json(), FindingRecords.refused(small, "invalid: bad signature", 0).event());
    }

    /** A well-formed finding that does not count (any key may sign one) is kept to the same bounds. */
    @Test
    void aReadableFindingThatDoesNotCountIsKeptToBoundsToo() throws Exception {
        byte[] stranger = Schnorr.newSecretKey();
        Event f = Finding.sign(did(stranger), new PubKey(Schnorr.publicKey(SUBJECT)), did(SUBJECT), Severity.S1,
                Scope.TRANSIT, "r".repeat(60), "{\"type\":\"x\"}", 1_700_000_000, stranger);
        // a tag the finding does not read, as large as the sender likes (its content is held to 60,000 bytes)
        List<List<String>> tags = new java.util.ArrayList<>(f.tags());
        tags.add(List.of("x", "p".repeat(100_000)));
        Event e = Events.sign(stranger, f.createdAt(), f.kind(), tags, f.content());
        Finding.read(e); // still a readable finding
        FindingRecord r = FindingRecords.of(e, new Check(Verdict.UNVERIFIABLE, "not checked"), false, 0);
        assertTrue(r.subject().length() <= FindingRecords.MAX_SUBJECT_CHARS, r.subject().length() + "");
        assertTrue(r.event().length() < 1000 && r.event().contains("omitted"), r.event().length() + "");
        FindingRecord counted = FindingRecords.of(e, new Check(Verdict.VERIFIED, "ok"), false, 0);
        assertEquals(e.json(), counted.event(), "a finding that counts is kept whole");
    }
}
