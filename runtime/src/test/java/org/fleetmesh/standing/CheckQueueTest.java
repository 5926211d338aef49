package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class CheckQueueTest {

    @Test
    void aFloodPushesOutTheOldestWaitingAndNeverBlocksTheCaller() throws Exception {
        CheckQueue q = new CheckQueue(10, "test-check");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> ran = new CopyOnWriteArrayList<>();
        q.execute(() -> {
            running.countDown();
            await(release);
        });
        assertTrue(running.await(10, TimeUnit.SECONDS));
        for (int i = 0; i < 1000; i++) {
            int n = i;
            q.execute(() -> ran.add(n)); // returns at once although the thread is busy
        }
        assertEquals(10, q.waiting(), "at most the capacity waits");
        assertEquals(990, q.dropped());
        CountDownLatch done = new CountDownLatch(1);
        q.execute(done::countDown); // pushes out one more; runs after the rest
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of(991, 992, 993, 994, 995, 996, 997, 998, 999), ran,
                "the newest waiting ran, in order (the oldest of the ten was pushed out by the last task)");
        assertEquals(991, q.dropped());
        q.shutdown();
    }

    private static void await(CountDownLatch l) {
        try {
            l.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
