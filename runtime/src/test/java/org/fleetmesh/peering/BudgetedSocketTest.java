package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** A peer that does not read is a transport whose sends never finish. */
class BudgetedSocketTest {

    static final class StuckTransport implements BudgetedSocket.Transport {
        final List<String> sent = new ArrayList<>();
        final List<Runnable> unfinished = new ArrayList<>();
        final List<String> closes = new ArrayList<>();

        @Override
        public void send(String text, Runnable done) {
            sent.add(text);
            unfinished.add(done);
        }

        @Override
        public void close(int code, String reason) {
            closes.add(code + " " + reason);
        }
    }

    @Test
    void aPeerThatDoesNotReadIsClosedSlowOnceTheBudgetIsFull() {
        StuckTransport t = new StuckTransport();
        BudgetedSocket socket = new BudgetedSocket(t, new SendBudget(16_384));
        String frame = "[\"FRAME\",\"" + "x".repeat(1000) + "\"]"; // 1,012 bytes
        for (int i = 0; i < 100; i++) {
            socket.send(frame);
        }
        assertEquals(16, t.sent.size(), "16 frames fit in 16 KiB, the 17th does not");
        assertEquals(List.of("1008 slow: more than 16384 bytes queued for this peer, which does not read them"), t.closes);
        assertTrue(socket.closing());
        t.unfinished.forEach(Runnable::run);
        socket.send(frame);
        assertEquals(16, t.sent.size(), "a closing link sends nothing more");
        assertEquals(0, socket.budget().queued(), "finished sends gave their bytes back");
    }

    @Test
    void aPeerThatReadsNeverHitsTheBudget() {
        StuckTransport t = new StuckTransport();
        BudgetedSocket socket = new BudgetedSocket(t, new SendBudget(16_384));
        String frame = "[\"FRAME\",\"" + "x".repeat(1000) + "\"]";
        for (int i = 0; i < 1000; i++) {
            socket.send(frame);
            t.unfinished.remove(0).run(); // written
        }
        assertEquals(1000, t.sent.size());
        assertTrue(t.closes.isEmpty());
    }

    @Test
    void theLinksOwnCloseHappensOnceAndStopsSends() {
        StuckTransport t = new StuckTransport();
        BudgetedSocket socket = new BudgetedSocket(t, new SendBudget(16_384));
        socket.close(1000, "idle: nothing received for 2 s; closing the link");
        socket.close(1008, "slow: ...");
        socket.send("[\"FRAME\"]");
        assertEquals(List.of("1000 idle: nothing received for 2 s; closing the link"), t.closes);
        assertTrue(t.sent.isEmpty());
    }
}
