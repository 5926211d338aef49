package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class QueryPoolTest {

    @Test
    void everyTaskRunsOnceAcrossManyLanesAndThreads() throws Exception {
        try (QueryPool pool = new QueryPool(3, 1000, 100_000)) {
            int lanes = 20, perLane = 500;
            CountDownLatch done = new CountDownLatch(lanes * perLane);
            AtomicInteger ran = new AtomicInteger();
            List<Thread> submitters = new ArrayList<>();
            for (int l = 0; l < lanes; l++) {
                QueryPool.Lane lane = new QueryPool.Lane();
                Thread t = new Thread(() -> {
                    for (int i = 0; i < perLane; i++) {
                        String refused;
                        while ((refused = pool.submit(lane, () -> {
                            ran.incrementAndGet();
                            done.countDown();
                        })) != null) {
                            assertTrue(refused.startsWith("rate-limited"), refused);
                            Thread.onSpinWait();
                        }
                    }
                });
                submitters.add(t);
                t.start();
            }
            for (Thread t : submitters) {
                t.join();
            }
            assertTrue(done.await(30, TimeUnit.SECONDS), "tasks left: " + done.getCount());
            assertEquals(lanes * perLane, ran.get());
            assertEquals(0, pool.queued());
        }
    }

    @Test
    void aLaneNeverHoldsEveryThreadAndItsLimitsHold() throws Exception {
        try (QueryPool pool = new QueryPool(2, 3, 5)) {
            QueryPool.Lane flooder = new QueryPool.Lane();
            QueryPool.Lane other = new QueryPool.Lane();
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch flooderRunning = new CountDownLatch(1);
            AtomicInteger concurrent = new AtomicInteger(), most = new AtomicInteger();
            Runnable blocking = () -> {
                most.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                flooderRunning.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                concurrent.decrementAndGet();
            };
            for (int i = 0; i < 3; i++) {
                assertNull(pool.submit(flooder, blocking));
            }
            assertTrue(pool.submit(flooder, blocking).startsWith("rate-limited: too many queries in flight"));
            assertTrue(flooderRunning.await(10, TimeUnit.SECONDS));
            // two threads, so the flooder runs on one of them at most; the other lane's query still runs
            CountDownLatch otherRan = new CountDownLatch(1);
            assertNull(pool.submit(other, otherRan::countDown));
            assertTrue(otherRan.await(10, TimeUnit.SECONDS), "the other lane's query waited behind the flooder");
            assertEquals(1, most.get());
            release.countDown();
        }
    }

    @Test
    void theSharedQueueIsBounded() {
        try (QueryPool pool = new QueryPool(1, 100, 4)) {
            CountDownLatch release = new CountDownLatch(1);
            List<String> answers = Collections.synchronizedList(new ArrayList<>());
            QueryPool.Lane lane = new QueryPool.Lane();
            Runnable blocking = () -> {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            for (int i = 0; i < 10; i++) {
                String r = pool.submit(lane, blocking);
                answers.add(r == null ? "ok" : r);
            }
            assertTrue(answers.contains("rate-limited: the relay is busy; try again shortly"), answers.toString());
            assertTrue(pool.queued() <= 4, "queued " + pool.queued());
            release.countDown();
        }
    }
}
