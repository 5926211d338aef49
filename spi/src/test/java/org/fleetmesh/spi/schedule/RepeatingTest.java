package org.fleetmesh.spi.schedule;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class RepeatingTest {
    /** Throws an Error on its first run, a RuntimeException on its second, then counts down. */
    static Runnable failingTwice(AtomicInteger runs, CountDownLatch later) {
        return () -> {
            int n = runs.incrementAndGet();
            if (n == 1) {
                throw new OutOfMemoryError("Java heap space (a test's)");
            }
            if (n == 2) {
                throw new IllegalStateException("a test's");
            }
            later.countDown();
        };
    }

    @Test
    void aTaskThatThrowsAnErrorRunsAgain() throws Exception {
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor();
        try {
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch later = new CountDownLatch(3);
            ScheduledFuture<?> f = s.scheduleWithFixedDelay(Repeating.surviving("a test task", failingTwice(runs, later)),
                    0, 5, TimeUnit.MILLISECONDS);
            assertTrue(later.await(10, TimeUnit.SECONDS), "ran " + runs.get() + " times");
            assertFalse(f.isDone(), "still scheduled");
        } finally {
            s.shutdownNow();
        }
    }

    /** What the wrapper is for: unwrapped, the executor ends the repetition at the first Error, silently. */
    @Test
    void unwrappedTheFirstErrorEndsIt() throws Exception {
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor();
        try {
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> f = s.scheduleWithFixedDelay(failingTwice(runs, new CountDownLatch(1)), 0, 5,
                    TimeUnit.MILLISECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!f.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(f.isDone());
            Thread.sleep(50);
            assertTrue(runs.get() == 1, "ran " + runs.get() + " times");
        } finally {
            s.shutdownNow();
        }
    }
}
