package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;

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
}
