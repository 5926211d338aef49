package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class InboundQueueTest {
    final List<String> calls = new ArrayList<>();
    final InboundQueue q = new InboundQueue(8, 1000, () -> calls.add("pause"), () -> calls.add("resume"));

    @Test
    void readingPausesAtTheMessageBoundAndResumesAtHalf() {
        for (int i = 0; i < 7; i++) {
            q.arrived(10);
        }
        assertTrue(calls.isEmpty());
        q.arrived(10);
        assertEquals(List.of("pause"), calls);
        q.arrived(10); // read before the pause took hold: counted, no second pause
        assertEquals(List.of("pause"), calls);
        assertEquals(9, q.waiting());
        for (int i = 0; i < 4; i++) {
            q.handled();
        }
        assertTrue(q.paused(), "5 waiting is over half of 8");
        q.handled();
        assertEquals(List.of("pause", "resume"), calls);
        assertFalse(q.paused());
        assertEquals(1, q.pauses());
    }

    @Test
    void readingPausesAtTheByteBoundAndResumesWhenBothAreAtHalf() {
        q.arrived(600);
        q.arrived(400);
        assertEquals(List.of("pause"), calls);
        q.handled(); // 400 bytes: half
        assertEquals(List.of("pause", "resume"), calls);
        assertEquals(400, q.waitingBytes());
    }

    @Test
    void handledWithNothingWaitingChangesNothing() {
        q.handled();
        q.arrived(5);
        q.handled();
        q.handled();
        assertEquals(0, q.waiting());
        assertEquals(0, q.waitingBytes());
        assertTrue(calls.isEmpty());
    }
}
