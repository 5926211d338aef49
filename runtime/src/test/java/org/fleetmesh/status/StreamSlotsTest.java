package org.fleetmesh.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class StreamSlotsTest {
    @Test
    void refusesBeyondTheBoundAndTakesAgainAfterARelease() {
        StreamSlots slots = new StreamSlots(2);
        assertTrue(slots.tryAcquire());
        assertTrue(slots.tryAcquire());
        assertFalse(slots.tryAcquire());
        assertEquals(2, slots.inUse());
        slots.release();
        assertTrue(slots.tryAcquire());
        assertFalse(slots.tryAcquire());
    }

    @Test
    void zeroRefusesEveryStream() {
        assertFalse(new StreamSlots(0).tryAcquire());
        assertThrows(IllegalArgumentException.class, () -> new StreamSlots(-1));
    }

    @Test
    void aReleaseWithoutASlotIsAnError() {
        StreamSlots slots = new StreamSlots(1);
        assertThrows(IllegalStateException.class, slots::release);
        assertEquals(0, slots.inUse());
    }

    @Test
    void manyThreadsNeverHoldMoreThanTheBound() throws Exception {
        StreamSlots slots = new StreamSlots(5);
        AtomicInteger taken = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[16];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int k = 0; k < 1000; k++) {
                    if (slots.tryAcquire()) {
                        taken.incrementAndGet();
                    }
                }
            });
            threads[i].start();
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(5, taken.get());
        assertEquals(5, slots.inUse());
    }
}
