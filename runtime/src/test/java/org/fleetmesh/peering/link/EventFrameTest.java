package org.fleetmesh.peering.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class EventFrameTest {

    @Test
    void theHeaderIsReadWithoutTheEvents() throws Exception {
        // what follows the header is not even JSON: the header read never gets there
        try (EventFrame.Reader r = EventFrame.header("[\"MESH-EVENTS\",{\"seq\":7,\"count\":2,\"later\":[1,{}]},[{]]]]", 10)) {
            assertTrue(r.isEvents());
            assertEquals(7, r.seq());
            assertEquals(2, r.count());
            EventFrame.Unreadable e = assertThrows(EventFrame.Unreadable.class, () -> r.events(10));
            assertTrue(e.getMessage().startsWith("malformed: not JSON"), e.getMessage());
            assertEquals(7, e.seq());
        }
    }

    @Test
    void eventsAreCutOutExactlyAsSent() throws Exception {
        String a = "{\"id\":\"x\", \"tags\":[[\"t\",\"]\"]],\"content\":\"{\\\"\"}";
        String b = "{}";
        String frame = EventFrame.encode(3, List.of(a, b));
        assertEquals("[\"MESH-EVENTS\",{\"seq\":3,\"count\":2},[" + a + "," + b + "]]", frame);
        try (EventFrame.Reader r = EventFrame.header(frame, 10)) {
            assertEquals(List.of(a, b), r.events(10));
        }
    }

    @Test
    void otherTypesStopAtTheType() throws Exception {
        try (EventFrame.Reader r = EventFrame.header("[\"MESH-DIDCOMM\",{\"whatever\":", 10)) {
            assertEquals("MESH-DIDCOMM", r.type());
        }
    }

    @Test
    void aBadHeaderIsRefusedWithItsReason() {
        String[][] cases = {
                { "not json", "malformed: not JSON" },
                { "{}", "malformed: a link message is a JSON array starting with its type" },
                { "[1]", "malformed: a link message is a JSON array starting with its type" },
                { "[\"MESH-EVENTS\",[]]", "invalid: MESH-EVENTS needs a header object" },
                { "[\"MESH-EVENTS\",{\"seq\":1}]", "invalid: the MESH-EVENTS header needs \"seq\" and \"count\"" },
                { "[\"MESH-EVENTS\",{\"seq\":-1,\"count\":1}]", "invalid: the header's seq must be a non-negative integer" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":1.5}]", "invalid: the header's count must be a non-negative integer" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":99999999999999999999}]", "invalid: the header's count must be" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":11}]", "invalid: a frame holds 1..10 events, the header says 11" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":0}]", "invalid: a frame holds 1..10 events, the header says 0" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"seq\":2,\"count\":1}]", "invalid: the header's seq is duplicated" },
        };
        for (String[] c : cases) {
            EventFrame.Unreadable e = assertThrows(EventFrame.Unreadable.class, () -> EventFrame.header(c[0], 10), c[0]);
            assertTrue(e.getMessage().startsWith(c[1]), c[0] + " -> " + e.getMessage());
        }
    }

    @Test
    void aFrameWithMoreOrOtherElementsIsRefused() throws Exception {
        String[][] cases = {
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":1},{}]", "invalid: the third element of MESH-EVENTS is the array" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":1},[1]]", "invalid: event 0 of the frame is not a JSON object" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":1},[{}],2]", "invalid: MESH-EVENTS has three elements" },
                { "[\"MESH-EVENTS\",{\"seq\":1,\"count\":1},[{},{},{}]]", "invalid: a frame holds at most 2 events" },
        };
        for (String[] c : cases) {
            try (EventFrame.Reader r = EventFrame.header(c[0], 10)) {
                EventFrame.Unreadable e = assertThrows(EventFrame.Unreadable.class, () -> r.events(2), c[0]);
                assertTrue(e.getMessage().startsWith(c[1]), c[0] + " -> " + e.getMessage());
            }
        }
    }

    @Test
    void answersAndRefusalsAreWrittenExactly() {
        assertEquals("[\"MESH-EVENTS-OK\",{\"seq\":4},[[\"ab\",true,\"\"],[null,false,\"invalid: x\"]]]",
                EventFrame.answers(4, List.of(new EventFrame.Answer("ab", true, ""),
                        new EventFrame.Answer(null, false, "invalid: x"))));
        assertEquals("[\"MESH-EVENTS-REFUSED\",{\"seq\":4,\"retry_ms\":12},\"rate-limited: \\\"q\\\"\"]",
                EventFrame.refused(4, 12, "rate-limited: \"q\""));
        assertEquals("[\"MESH-EVENTS-REFUSED\",{\"seq\":null,\"retry_ms\":null},\"invalid\"]",
                EventFrame.refused(-1, -1, "invalid"));
    }

}
