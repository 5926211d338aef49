package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reading a peer's answer to one REQ: bounded, for this subscription only, EOSE or no verdict. */
class PeerAnswerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] AUTHOR = new byte[32];
    static {
        Arrays.fill(AUTHOR, (byte) 3);
    }

    private static JsonNode msg(String json) throws Exception {
        return JSON.readTree(json);
    }

    private static String event(String sub, Event e) {
        return "[\"EVENT\",\"" + sub + "\"," + e.json() + "]";
    }

    @Test
    void eventsUntilEoseForThisSubscriptionOnly() throws Exception {
        Event a = Events.sign(AUTHOR, 1000, 1, List.of(), "a");
        Event b = Events.sign(AUTHOR, 1001, 1, List.of(), "b");
        PeerAnswer p = new PeerAnswer("s1", 10);
        assertNull(p.offer(msg("[\"AUTH\",\"challenge\"]")));
        assertNull(p.offer(msg("[\"NOTICE\",\"hello\"]")));
        assertNull(p.offer(msg(event("other", b))));
        assertNull(p.offer(msg(event("s1", a))));
        assertNull(p.offer(msg("[\"EVENT\",\"s1\",{\"id\":\"nope\"}]")));
        assertNull(p.offer(msg("{}")));
        SamplingRound.Answer done = p.offer(msg("[\"EOSE\",\"s1\"]"));
        assertTrue(done.eose());
        assertEquals(List.of(a), done.events());
        assertNull(done.problem());
    }

    @Test
    void aFloodEndsTheAnswerAtTheBoundWithoutAVerdict() throws Exception {
        PeerAnswer p = new PeerAnswer("s1", 5);
        SamplingRound.Answer done = null;
        int sent = 0;
        while (done == null && sent < 1000) {
            done = p.offer(msg(event("s1", Events.sign(AUTHOR, 1000 + sent, 1, List.of(), "flood " + sent))));
            sent++;
        }
        assertEquals(6, sent, "the answer ends at the first event past the bound");
        assertFalse(done.eose());
        assertTrue(done.problem().contains("more than 5 events"), done.problem());
        assertEquals(6, p.size());
        assertFalse(p.offer(msg("[\"EOSE\",\"s1\"]")).eose(), "an EOSE after the cut does not make it whole");
    }

    @Test
    void closedOrACutIsNoVerdict() throws Exception {
        PeerAnswer p = new PeerAnswer("s1", 5);
        SamplingRound.Answer closed = p.offer(msg("[\"CLOSED\",\"s1\",\"rate-limited: slow down\"]"));
        assertFalse(closed.eose());
        assertTrue(closed.problem().contains("rate-limited"), closed.problem());
        PeerAnswer q = new PeerAnswer("s2", 5);
        SamplingRound.Answer cut = q.cut("no EOSE within 10000 ms");
        assertFalse(cut.eose());
        assertEquals("no EOSE within 10000 ms", cut.problem());
    }
}
