package org.fleetmesh.peering.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BucketTest {

    /**
     * Each row: allowance, window (ns), then steps {@code <now> <op> <args> = <expected>}; ops are {@code reserve
     * cost} (expected: 0 or the wait in ns, NEVER), {@code release n}, {@code apply reserved actual}, {@code avail}.
     * The same figures are the worked example of docs/spec/grants.md.
     */
    static List<Arguments> rules() {
        return List.of(
                row("a full bucket gives its whole allowance, then waits one interval", 5, 100,
                        "0 reserve 5 = 0; 0 reserve 1 = 20; 0 avail = 0"),
                row("it refills one unit per interval, continuously", 5, 100,
                        "0 reserve 5 = 0; 19 reserve 1 = 1; 20 reserve 1 = 0; 20 reserve 1 = 20; 60 avail = 2"),
                row("a long idle fills it only to its allowance (the burst cap)", 5, 100,
                        "0 reserve 5 = 0; 10000 avail = 5; 10000 reserve 5 = 0; 10000 reserve 1 = 20"),
                row("a cost larger than the allowance never fits", 5, 100, "0 reserve 6 = NEVER; 0 avail = 5"),
                row("a refused reservation takes nothing", 5, 100,
                        "0 reserve 3 = 0; 0 reserve 3 = 20; 0 reserve 2 = 0; 0 reserve 1 = 20"),
                row("the wait is until the whole cost fits", 5, 100, "0 reserve 5 = 0; 0 reserve 3 = 60"),
                row("release gives a reservation back", 5, 100,
                        "0 reserve 5 = 0; 0 release 2 = 0; 0 avail = 2; 0 reserve 2 = 0; 0 reserve 1 = 20"),
                row("release never fills past the allowance", 5, 100,
                        "0 reserve 2 = 0; 100 release 2 = 0; 100 avail = 5; 100 reserve 5 = 0; 100 reserve 1 = 20"),
                row("apply with a smaller actual cost gives the difference back", 5, 100,
                        "0 reserve 4 = 0; 0 apply 4 1 = 0; 0 avail = 4"),
                row("apply with a larger actual cost charges it: debt waits longer", 5, 100,
                        "0 reserve 5 = 0; 0 apply 5 7 = 0; 0 avail = 0; 0 reserve 1 = 60; 60 reserve 1 = 0"),
                row("debt is capped at one window beyond an empty bucket", 5, 100,
                        "0 reserve 5 = 0; 0 apply 5 1000 = 0; 0 reserve 0 = 100; 0 reserve 1 = 120; 200 avail = 5"),
                row("a window that does not divide evenly rounds the interval down", 3, 10,
                        "0 reserve 3 = 0; 0 reserve 1 = 3; 3 reserve 1 = 0; 9 avail = 2; 12 avail = 3"),
                row("a nanoTime clock that wraps past Long.MAX_VALUE is fine", 5, 100,
                        "9223372036854775800 reserve 5 = 0; -9223372036854775796 reserve 1 = 0;"
                                + " -9223372036854775796 reserve 1 = 20"));
    }

    private static Arguments row(String name, long allowance, long window, String steps) {
        return Arguments.of(name, allowance, window, steps);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void theRule(String name, long allowance, long window, String steps) {
        String[] all = steps.split(";");
        long start = Long.parseLong(all[0].trim().split(" ")[0]);
        Bucket b = new Bucket(allowance, window, start);
        for (String step : all) {
            String[] sides = step.trim().split(" = ");
            String[] w = sides[0].split(" ");
            long now = Long.parseLong(w[0]);
            long expected = sides[1].equals("NEVER") ? Bucket.NEVER : Long.parseLong(sides[1]);
            long actual = switch (w[1]) {
                case "reserve" -> b.reserve(Long.parseLong(w[2]), now);
                case "release" -> {
                    b.release(Long.parseLong(w[2]), now);
                    yield 0;
                }
                case "apply" -> {
                    b.apply(Long.parseLong(w[2]), Long.parseLong(w[3]), now);
                    yield 0;
                }
                case "avail" -> b.available(now);
                default -> throw new IllegalArgumentException(w[1]);
            };
            assertEquals(expected, actual, name + ": " + step.trim());
        }
    }

    @Test
    void nThreadsReservingNeverTakeMoreThanTheAllowance() throws InterruptedException {
        long allowance = 100_000;
        Bucket b = new Bucket(allowance, 1_000_000_000L, 0);
        int threads = 8;
        AtomicLong granted = new AtomicLong();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long mine = 0;
                for (int n = 0; n < 40_000; n++) { // 8 x 40,000 asks for 3.2 times the allowance
                    if (b.reserve(1, 0) == 0) {
                        mine++;
                    }
                }
                granted.addAndGet(mine);
            });
            t.start();
            all.add(t);
        }
        go.countDown();
        for (Thread t : all) {
            t.join();
        }
        assertEquals(allowance, granted.get(), "exactly the allowance, never more");
        assertEquals(0, b.available(0));
    }

    @Test
    void threadsReservingAndReleasingLeaveTheBucketAsItWas() throws InterruptedException {
        Bucket b = new Bucket(1000, 1_000_000_000L, 0);
        b.reserve(400, 0);
        List<Thread> all = new ArrayList<>();
        AtomicLong overdraft = new AtomicLong();
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                for (int n = 0; n < 50_000; n++) {
                    if (b.reserve(7, 0) == 0) {
                        if (b.available(0) < 0) {
                            overdraft.incrementAndGet();
                        }
                        b.release(7, 0);
                    }
                }
            });
            t.start();
            all.add(t);
        }
        for (Thread t : all) {
            t.join();
        }
        assertEquals(0, overdraft.get());
        assertEquals(600, b.available(0), "every reservation was given back, the first one still holds 400");
    }

    @Test
    void aCheckAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(mx instanceof com.sun.management.ThreadMXBean,
                "this JVM does not count allocated bytes per thread");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        long id = Thread.currentThread().getId();
        Bucket b = new Bucket(1000, 1_000_000L, 0);
        long sink = 0;
        for (int i = 0; i < 10_000; i++) {
            sink += b.reserve(1, i * 100L); // warm up: granted and refused paths
        }
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100_000; i++) {
            long now = 1_000_000L + i * 500L;
            sink += b.reserve(1, now) + b.reserve(1000, now);
            b.release(1, now);
        }
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        org.junit.jupiter.api.Assertions.assertTrue(allocated < 4096, "300,000 calls allocated " + allocated + " bytes (sink " + sink + ")");
    }

    @Test
    void nonsenseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Bucket(0, 100, 0));
        assertThrows(IllegalArgumentException.class, () -> new Bucket(101, 100, 0));
        Bucket b = new Bucket(5, 100, 0);
        assertThrows(IllegalArgumentException.class, () -> b.reserve(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> b.release(6, 0));
        assertThrows(IllegalArgumentException.class, () -> b.apply(1, -1, 0));
    }
}
