package org.fleetmesh.relay;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.jboss.logging.Logger;

/**
 * The threads that read the store for REQ, COUNT and NEG-OPEN, shared fairly: each connection
 * has a {@link Lane} holding at most {@code perLane} queued or running tasks, threads take lanes
 * in turn (round robin), and one lane never runs on every thread at once, so a client that floods
 * queries waits behind itself while the others' queries still run.
 */
final class QueryPool implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(QueryPool.class);

    /** One connection's queries. Guarded by the pool. */
    static final class Lane {
        private final Deque<Runnable> waiting = new ArrayDeque<>();
        private int running;
        private boolean ready;

        /** Queued plus running. */
        private int inFlight() {
            return waiting.size() + running;
        }
    }

    /** A worker thread; {@code idle} when it is parked in {@link #idle}, waiting to be handed a lane. Guarded by the lock. */
    private static final class Worker {
        Thread thread;
        boolean idle;
    }

    /**
     * Guards every field below and the lanes. A lock rather than the pool's monitor with {@code notify}: a woken
     * worker is unparked after the submitter has let go of the lock, so it does not wake only to queue for it (on
     * two cores JFR showed the event loop spinning in {@code submit} against the workers' monitor).
     */
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Lane> ready = new ArrayDeque<>();
    private final Deque<Worker> idle = new ArrayDeque<>();
    private final Worker[] workers;
    private final int perLane;
    private final int maxRunningPerLane;
    private final int capacity;
    private int queued;
    private boolean closed;

    /**
     * @param perLane tasks one connection may have queued or running
     * @param capacity tasks queued over all connections
     */
    QueryPool(int threads, int perLane, int capacity) {
        this.perLane = perLane;
        this.capacity = capacity;
        this.maxRunningPerLane = Math.max(1, threads - 1);
        this.workers = new Worker[threads];
        for (int i = 0; i < threads; i++) {
            Worker w = new Worker();
            workers[i] = w;
            w.thread = new Thread(() -> work(w), "fleetmesh-query-" + (i + 1));
            w.thread.setDaemon(true);
        }
        for (Worker w : workers) {
            w.thread.start();
        }
    }

    /** Queues {@code task} on {@code lane}; returns why not ({@code rate-limited: ...}), or null. */
    String submit(Lane lane, Runnable task) {
        Worker wake;
        lock.lock();
        try {
            if (closed) {
                return "error: the relay is shutting down";
            }
            if (lane.inFlight() >= perLane) {
                return "rate-limited: too many queries in flight on this connection (at most " + perLane + ")";
            }
            if (queued >= capacity) {
                return "rate-limited: the relay is busy; try again shortly";
            }
            lane.waiting.add(task);
            queued++;
            wake = makeReady(lane);
        } finally {
            lock.unlock();
        }
        unpark(wake);
        return null;
    }

    /** Forgets what a closed connection still has queued. */
    void drop(Lane lane) {
        lock.lock();
        try {
            queued -= lane.waiting.size();
            lane.waiting.clear();
            ready.remove(lane);
            lane.ready = false;
        } finally {
            lock.unlock();
        }
    }

    /** Tasks queued over all connections (not yet running), and the most that may be. */
    int queued() {
        lock.lock();
        try {
            return queued;
        } finally {
            lock.unlock();
        }
    }

    int capacity() {
        return capacity;
    }

    int inFlight(Lane lane) {
        lock.lock();
        try {
            return lane.inFlight();
        } finally {
            lock.unlock();
        }
    }

    /** Puts {@code lane} in line if it has work it may start; returns an idle worker to unpark for it, or null. */
    private Worker makeReady(Lane lane) {
        return makeReady(lane, 0);
    }

    /**
     * As {@link #makeReady(Lane)}, but wakes a worker only when more than {@code takenBySelf} lanes are waiting: a
     * worker that has just finished a task takes the first one itself, without a wake-up.
     */
    private Worker makeReady(Lane lane, int takenBySelf) {
        if (!lane.ready && !lane.waiting.isEmpty() && lane.running < maxRunningPerLane) {
            lane.ready = true;
            ready.add(lane);
            Worker w = ready.size() > takenBySelf ? idle.poll() : null;
            if (w != null) {
                w.idle = false;
            }
            return w;
        }
        return null;
    }

    private static void unpark(Worker w) {
        if (w != null) {
            LockSupport.unpark(w.thread);
        }
    }

    private void work(Worker me) {
        while (true) {
            Lane lane;
            Runnable task;
            Worker wake;
            lock.lock();
            try {
                while (ready.isEmpty() && !closed) {
                    if (!me.idle) {
                        me.idle = true;
                        idle.push(me); // the most recently idle first: its caches are the warmest
                    }
                    lock.unlock();
                    try {
                        LockSupport.park(this);
                    } finally {
                        lock.lock();
                    }
                }
                if (closed) {
                    return;
                }
                if (me.idle) { // woken by something else than a hand-over (or not parked yet): off the idle list
                    me.idle = false;
                    idle.remove(me);
                }
                lane = ready.poll();
                lane.ready = false;
                task = lane.waiting.poll();
                queued--;
                lane.running++;
                wake = makeReady(lane); // its next task goes to the back of the line
            } finally {
                lock.unlock();
            }
            unpark(wake);
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("a query task failed", e);
            } finally {
                lock.lock();
                try {
                    lane.running--;
                    wake = makeReady(lane, 1);
                } finally {
                    lock.unlock();
                }
                unpark(wake);
            }
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        for (Worker w : workers) {
            LockSupport.unpark(w.thread);
        }
    }
}
