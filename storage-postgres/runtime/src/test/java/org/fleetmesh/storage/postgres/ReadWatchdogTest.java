package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** The bounded reads' timeout without a database: which statements it cancels, and when (the real cancel: StatementTimeoutTest). */
class ReadWatchdogTest {

    /** A statement that only counts its cancels (and releases {@code cancelled} at the first). */
    private static Statement counting(AtomicInteger cancels, CountDownLatch cancelled) {
        return (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] { Statement.class },
                (proxy, m, args) -> {
                    if (m.getName().equals("cancel")) {
                        cancels.incrementAndGet();
                        cancelled.countDown();
                        return null;
                    }
                    if (m.getName().equals("hashCode")) {
                        return System.identityHashCode(proxy);
                    }
                    if (m.getName().equals("equals")) {
                        return proxy == args[0];
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void aStatementPastItsTimeoutIsCancelledOnceAndNotBefore() throws Exception {
        try (ReadWatchdog w = new ReadWatchdog(Duration.ofMillis(200))) {
            assertEquals(Duration.ofMillis(50), w.period());
            AtomicInteger cancels = new AtomicInteger();
            CountDownLatch cancelled = new CountDownLatch(1);
            long t0 = System.nanoTime();
            w.start(counting(cancels, cancelled));
            assertTrue(cancelled.await(10, TimeUnit.SECONDS), "never cancelled");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(ms >= 200, "cancelled after " + ms + " ms, before its timeout");
            Thread.sleep(300); // several more looks: the statement is not cancelled again
            w.done();
            assertEquals(1, cancels.get());
        }
    }

    @Test
    void aStatementThatEndsInTimeIsNeverCancelledAndEachThreadHasItsOwn() throws Exception {
        try (ReadWatchdog w = new ReadWatchdog(Duration.ofMillis(100))) {
            AtomicInteger quick = new AtomicInteger();
            AtomicInteger slow = new AtomicInteger();
            CountDownLatch slowCancelled = new CountDownLatch(1);
            Thread other = new Thread(() -> w.start(counting(slow, slowCancelled))); // never done: a read that hangs
            other.start();
            other.join();
            for (int i = 0; i < 20; i++) { // each ends within its timeout, on this thread
                w.start(counting(quick, new CountDownLatch(1)));
                Thread.sleep(20);
                w.done();
            }
            assertTrue(slowCancelled.await(10, TimeUnit.SECONDS), "the other thread's read was not cancelled");
            assertEquals(0, quick.get());
            assertEquals(1, slow.get());
        }
    }

    @Test
    void thePeriodIsAQuarterOfTheTimeoutWithinTenMillisecondsAndOneSecond() {
        try (ReadWatchdog a = new ReadWatchdog(Duration.ofMillis(20)); ReadWatchdog b = new ReadWatchdog(Duration.ofSeconds(10));
                ReadWatchdog c = new ReadWatchdog(Duration.ofSeconds(2))) {
            assertEquals(Duration.ofMillis(10), a.period());
            assertEquals(Duration.ofSeconds(1), b.period());
            assertEquals(Duration.ofMillis(500), c.period());
        }
        assertThrows(IllegalArgumentException.class, () -> new ReadWatchdog(Duration.ZERO));
    }
}
