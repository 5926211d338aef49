package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class SendBudgetTest {

    @Test
    void oneConnectionIsHeldToItsOwnBound() {
        SendBudget b = new SendBudget(1000, 1_000_000);
        SendBudget.Account a = b.open();
        assertTrue(a.reserve(600));
        assertTrue(a.reserve(400));
        assertFalse(a.reserve(1), "past its own bound");
        assertEquals(1000, a.pending(), "a refusal charges nothing");
        a.release(400);
        assertTrue(a.reserve(400), "what left the queue may be queued again");
    }

    @Test
    void pastTheTotalOnlyThoseAboveTheirFairShareAreRefused() {
        SendBudget b = new SendBudget(1000, 2000); // four connections: a fair share of 500 once past 2000
        SendBudget.Account hog = b.open(), reader = b.open(), x = b.open(), y = b.open();
        assertTrue(hog.reserve(900));
        assertTrue(x.reserve(500));
        assertTrue(y.reserve(500));
        assertTrue(reader.reserve(100), "the sum stays under the total: 2000");
        assertFalse(hog.reserve(100), "past the total, 1000 is above the fair share of 2000 / 4");
        assertEquals(900, hog.pending());
        assertTrue(reader.reserve(200), "past the total, 300 is still under the fair share of 500");
        assertEquals(2200, b.queued());
    }

    @Test
    void manyConnectionsThatReadNothingCannotQueueMoreThanTheTotalAndOneMessageEach() {
        long total = 100_000;
        SendBudget b = new SendBudget(8 * 1024 * 1024, total); // each alone could hold 8 MiB
        List<SendBudget.Account> slow = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            slow.add(b.open());
        }
        long message = SendBudget.charge(400);
        for (int round = 0; round < 1000; round++) {
            for (SendBudget.Account a : slow) {
                a.reserve(message); // refused ones are the relay's to drop; here they just keep trying
            }
        }
        assertTrue(b.queued() <= total + 100 * message, "queued " + b.queued() + " past the total and one message each");
        for (SendBudget.Account a : slow) {
            assertTrue(a.pending() <= total / 100 + message, "one connection holds " + a.pending());
        }
    }

    @Test
    void concurrentReservesAndReleasesBalance() throws Exception {
        SendBudget b = new SendBudget(10_000, 50_000);
        int threads = 4;
        CountDownLatch done = new CountDownLatch(threads);
        AtomicLong refused = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            SendBudget.Account a = b.open();
            new Thread(() -> {
                for (int i = 0; i < 100_000; i++) {
                    long cost = 100 + i % 700;
                    if (a.reserve(cost)) {
                        a.release(cost);
                    } else {
                        refused.incrementAndGet();
                    }
                }
                done.countDown();
            }).start();
        }
        done.await();
        assertEquals(0, b.queued(), "every charge given back");
        SendBudget.Account fresh = b.open();
        assertTrue(fresh.reserve(10_000), "nothing left charged after the churn (refused " + refused.get() + ")");
    }

    @Test
    void messagesAreChargedTheirQueueingOverhead() {
        assertEquals(400 + SendBudget.MESSAGE_OVERHEAD, SendBudget.charge(400));
        assertThrows(IllegalArgumentException.class, () -> new SendBudget(0, 1));
    }
}
