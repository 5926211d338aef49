package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The NIP-77 initiator as messages, driven against a responder {@link Negentropy} without sockets. */
class NegInitiatorTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private static Id id(int n) {
        byte[] b = new byte[32];
        b[0] = (byte) n;
        b[31] = (byte) (n >> 8);
        return Id.of(b);
    }

    private static SortedVector items(int from, int to) {
        SortedVector.Builder b = SortedVector.builder();
        for (int i = from; i < to; i++) {
            b.insert(1000 + i, id(i));
        }
        return b.seal();
    }

    private static JsonNode tree(String s) throws Exception {
        return JSON.readTree(s);
    }

    @Test
    void reconcilesToTheDifferenceOverNegMessages() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{\"kinds\":[1]}", items(0, 300), 4096);
        Negentropy relay = new Negentropy(items(200, 600), 4096);
        JsonNode open = tree(client.open());
        assertEquals("NEG-OPEN", open.get(0).asText());
        assertEquals("s1", open.get(1).asText());
        assertEquals(tree("{\"kinds\":[1]}"), open.get(2));
        byte[] toRelay = HEX.parseHex(open.get(3).asText());
        NegInitiator.Step step;
        int rounds = 0;
        do {
            byte[] answer = relay.reconcile(toRelay);
            step = client.receive(tree("[\"NEG-MSG\",\"s1\",\"" + HEX.formatHex(answer) + "\"]"));
            rounds++;
            if (step instanceof NegInitiator.Reply r) {
                JsonNode m = tree(r.message());
                assertEquals("NEG-MSG", m.get(0).asText());
                toRelay = HEX.parseHex(m.get(2).asText());
            }
        } while (step instanceof NegInitiator.Reply);
        NegInitiator.Done done = assertInstanceOf(NegInitiator.Done.class, step);
        assertEquals(tree("[\"NEG-CLOSE\",\"s1\"]"), tree(done.close()));
        assertEquals(rounds, client.rounds());
        assertEquals(200, client.haveIds().size());
        assertEquals(300, client.needIds().size());
        assertTrue(client.haveIds().contains(id(0)) && !client.haveIds().contains(id(250)));
        assertTrue(client.needIds().contains(id(599)) && !client.needIds().contains(id(250)));
    }

    @Test
    void aNoticeBeforeAnyNegMsgMeansTheRelayDoesNotSpeakNip77() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 10), 0);
        client.open();
        NegInitiator.Failed f = assertInstanceOf(NegInitiator.Failed.class,
                client.receive(tree("[\"NOTICE\",\"unknown message type\"]")));
        assertTrue(f.unsupported(), f.toString());
        assertTrue(f.reason().contains("unknown message type"), f.reason());
    }

    @Test
    void negErrAfterAnAnswerIsAFailureNotUnsupported() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 5000), 4096);
        byte[] first = HEX.parseHex(tree(client.open()).get(3).asText());
        byte[] answer = new Negentropy(items(2500, 9000), 4096).reconcile(first);
        assertInstanceOf(NegInitiator.Reply.class, client.receive(tree("[\"NEG-MSG\",\"s1\",\"" + HEX.formatHex(answer) + "\"]")));
        NegInitiator.Failed f = assertInstanceOf(NegInitiator.Failed.class,
                client.receive(tree("[\"NEG-ERR\",\"s1\",\"blocked: too many\"]")));
        assertFalse(f.unsupported());
        assertTrue(f.reason().contains("blocked: too many"));
    }

    @Test
    void messagesForOtherSubscriptionsAreUnrelated() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 1), 0);
        client.open();
        assertInstanceOf(NegInitiator.Unrelated.class, client.receive(tree("[\"NEG-MSG\",\"other\",\"61\"]")));
        assertInstanceOf(NegInitiator.Unrelated.class, client.receive(tree("[\"AUTH\",\"challenge\"]")));
        assertFalse(client.answered());
    }

    @Test
    void aNegMsgThatIsNotHexFailsAndClosesTheSession() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 1), 0);
        client.open();
        NegInitiator.Failed f = assertInstanceOf(NegInitiator.Failed.class,
                client.receive(tree("[\"NEG-MSG\",\"s1\",\"zz\"]")));
        assertEquals(List.of("NEG-CLOSE", "s1"), List.of(tree(f.close()).get(0).asText(), tree(f.close()).get(1).asText()));
    }

    // ------------------------------------------------------------ bounds against a rogue relay

    private static final Random RANDOM = new Random(77);

    /**
     * A rogue's answer, as the audit's rogue relay sends it: an id list of {@code n} random ids for [0, ts), then a
     * random (so mismatching) fingerprint for the rest, which keeps the reconciliation going.
     */
    private static JsonNode rogueAnswer(String subId, long ts, int n, boolean fingerprintAfter) throws Exception {
        MessageWriter w = new MessageWriter().write(Negentropy.PROTOCOL_VERSION);
        w.writeVarint(ts + 1).writeVarint(0).writeVarint(Mode.ID_LIST.code()).writeVarint(n);
        for (int i = 0; i < n; i++) {
            byte[] id = new byte[32];
            RANDOM.nextBytes(id);
            w.write(id);
        }
        if (fingerprintAfter) {
            byte[] fp = new byte[Fingerprint.SIZE];
            RANDOM.nextBytes(fp);
            w.writeVarint(0).writeVarint(0).writeVarint(Mode.FINGERPRINT.code()).write(fp);
        }
        return tree("[\"NEG-MSG\",\"" + subId + "\",\"" + HEX.formatHex(w.toBytes()) + "\"]");
    }

    @Test
    void aRelayListingIdsWithoutEndIsStoppedAtTheNeedBound() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 300), 60_000, NegInitiator.Limits.forLocalItems(300)
                .withMaxNeed(10_000));
        client.open();
        NegInitiator.Step step = null;
        for (int round = 1; round <= 20; round++) {
            step = client.receive(rogueAnswer("s1", 1000 + round, 2000, true));
            if (!(step instanceof NegInitiator.Reply)) {
                break;
            }
        }
        NegInitiator.Failed f = assertInstanceOf(NegInitiator.Failed.class, step);
        assertTrue(f.exceeded() && !f.unsupported(), f.toString());
        assertEquals(6, client.rounds(), "10,000 ids allowed, 2,000 a round: the 6th round passes the bound");
        assertTrue(f.reason().contains("more than 10000 ids"), f.reason());
        assertEquals("NEG-CLOSE", tree(f.close()).get(0).asText());
    }

    @Test
    void theNeedBoundIsAMillionOrTheLocalSizeAndTheHaveBoundTheLocalSize() {
        assertEquals(1_000_000, NegInitiator.Limits.forLocalItems(300).maxNeed());
        assertEquals(3_000_000, NegInitiator.Limits.forLocalItems(3_000_000).maxNeed());
        assertEquals(300, NegInitiator.Limits.forLocalItems(300).maxHave());
        assertEquals(64, NegInitiator.Limits.forLocalItems(300).roundsAllowed(0));
        assertEquals(64 + 1000, NegInitiator.Limits.forLocalItems(300).roundsAllowed(16_000));
        assertEquals(5, new NegInitiator.Limits(10, 10, 5).roundsAllowed(1_000_000));
    }

    @Test
    void aRelayThatNeverLetsTheFingerprintsMatchIsStoppedAtTheRoundBound() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 300), 60_000, NegInitiator.Limits.forLocalItems(300));
        client.open();
        NegInitiator.Step step;
        int sent = 0;
        do {
            step = client.receive(rogueAnswer("s1", 0, 0, true)); // an empty id list, then a mismatching fingerprint
            sent++;
        } while (step instanceof NegInitiator.Reply && sent < 1000);
        NegInitiator.Failed f = assertInstanceOf(NegInitiator.Failed.class, step);
        assertTrue(f.exceeded(), f.toString());
        assertEquals(64, client.rounds());
        assertTrue(f.reason().contains("did not end within 64 rounds"), f.reason());
    }

    @Test
    void aRelayReportingTheSameLocalIdsAgainDoesNotGrowTheHaveSet() throws Exception {
        // each answer lists [0, 2000) as empty (so every local item there is "only here"), then keeps going
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 300), 60_000, NegInitiator.Limits.forLocalItems(300));
        client.open();
        NegInitiator.Step step;
        do {
            step = client.receive(rogueAnswer("s1", 2000, 0, true));
            assertEquals(300, client.haveIds().size(), "each local item reported once");
        } while (step instanceof NegInitiator.Reply && client.rounds() < 1000);
        NegInitiator.Failed f = assertInstanceOf(NegInitiator.Failed.class, step);
        assertTrue(f.exceeded(), f.reason());
        assertEquals(64 + 300 / 16, client.rounds(), f.reason());
    }

    @Test
    void anHonestReconciliationOfManyDifferencesStaysWithinTheBounds() throws Exception {
        // 20,000 differences both ways through 4096-byte frames on both sides: hundreds of rounds, all allowed
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 30_000), 4096, NegInitiator.Limits.forLocalItems(30_000));
        Negentropy relay = new Negentropy(items(10_000, 40_000), 4096);
        byte[] toRelay = HEX.parseHex(tree(client.open()).get(3).asText());
        NegInitiator.Step step;
        do {
            step = client.receive(tree("[\"NEG-MSG\",\"s1\",\"" + HEX.formatHex(relay.reconcile(toRelay)) + "\"]"));
            if (step instanceof NegInitiator.Reply r) {
                toRelay = HEX.parseHex(tree(r.message()).get(2).asText());
            }
        } while (step instanceof NegInitiator.Reply);
        assertInstanceOf(NegInitiator.Done.class, step, step.toString());
        assertTrue(client.rounds() > 64, "rounds: " + client.rounds());
        assertEquals(10_000, client.haveIds().size(), "each once");
        assertEquals(10_000, new java.util.HashSet<>(client.needIds()).size());
        assertTrue(client.rounds() < NegInitiator.Limits.forLocalItems(30_000).roundsAllowed(20_000) / 4,
                "rounds " + client.rounds());
    }

    @Test
    void eachNeededIdIsCheckedAgainstTheRangeTheRelayAnnouncedItIn() throws Exception {
        NegInitiator client = new NegInitiator("s1", "{}", items(0, 100), 0);
        Negentropy relay = new Negentropy(items(50, 400), 0);
        byte[] toRelay = HEX.parseHex(tree(client.open()).get(3).asText());
        NegInitiator.Step step;
        do {
            step = client.receive(tree("[\"NEG-MSG\",\"s1\",\"" + HEX.formatHex(relay.reconcile(toRelay)) + "\"]"));
            if (step instanceof NegInitiator.Reply r) {
                toRelay = HEX.parseHex(tree(r.message()).get(2).asText());
            }
        } while (step instanceof NegInitiator.Reply);
        assertEquals(300, client.needIds().size());
        int laterRefused = 0;
        for (int i = 0; i < client.needIds().size(); i++) {
            Id id = client.needIds().get(i);
            int n = (id.toBytes()[0] & 0xff) | (id.toBytes()[31] & 0xff) << 8;
            assertTrue(client.inAnnouncedRange(i, 1000 + n, id), "its own created_at, index " + i);
            assertFalse(client.inAnnouncedRange(i, 5, id), "far earlier than announced, index " + i);
            if (!client.inAnnouncedRange(i, 1000 + n + 50, id)) {
                laterRefused++;
            }
        }
        // only the last bucket's range is open-ended (up to infinity): later timestamps fail everywhere else
        assertTrue(laterRefused > 250, "later than announced refused for " + laterRefused + " of 300");
        // a rogue's list for [0, 1001): anything at 1001 or later was not announced
        NegInitiator c2 = new NegInitiator("s2", "{}", items(0, 1), 0);
        c2.open();
        c2.receive(rogueAnswer("s2", 1001, 3, false));
        assertEquals(3, c2.needIds().size());
        assertTrue(c2.inAnnouncedRange(2, 1000, c2.needIds().get(2)));
        assertFalse(c2.inAnnouncedRange(2, 1001, c2.needIds().get(2)));
        assertFalse(c2.inAnnouncedRange(3, 1000, c2.needIds().get(2)), "no such index");
    }
}
