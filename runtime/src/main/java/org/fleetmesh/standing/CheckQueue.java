package org.fleetmesh.standing;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The findings waiting to be checked: one thread, at most {@code capacity} waiting; a task that finds it full pushes
 * out the oldest waiting one (counted in {@link #dropped}), so a flood of findings never blocks the caller (the relay's
 * writer) and never grows without bound. After {@link #shutdown}, tasks are dropped.
 */
public final class CheckQueue {
    private final ThreadPoolExecutor pool;
    private final AtomicLong dropped = new AtomicLong();

    public CheckQueue(int capacity, String threadName) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity >= 1");
        }
        pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(capacity), r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        }, (r, p) -> {
            if (!p.isShutdown()) {
                p.getQueue().poll();
                dropped.incrementAndGet();
                p.execute(r);
            }
        });
        pool.allowCoreThreadTimeOut(true);
    }

    public void execute(Runnable task) {
        pool.execute(task);
    }

    /** Tasks pushed out unrun so far. */
    public long dropped() {
        return dropped.get();
    }

    /** Tasks waiting now (not the one running). */
    public int waiting() {
        return pool.getQueue().size();
    }

    public void shutdown() {
        pool.shutdown();
    }
}
