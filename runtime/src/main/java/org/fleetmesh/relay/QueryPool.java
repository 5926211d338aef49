package org.fleetmesh.relay;

import java.util.ArrayDeque;
import java.util.Deque;

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

    private final Deque<Lane> ready = new ArrayDeque<>();
    private final Thread[] workers;
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
        this.workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Thread(this::work, "fleetmesh-query-" + (i + 1));
            workers[i].setDaemon(true);
            workers[i].start();
        }
    }

    /** Queues {@code task} on {@code lane}; returns why not ({@code rate-limited: ...}), or null. */
    synchronized String submit(Lane lane, Runnable task) {
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
        makeReady(lane);
        return null;
    }

    /** Forgets what a closed connection still has queued. */
    synchronized void drop(Lane lane) {
        queued -= lane.waiting.size();
        lane.waiting.clear();
        ready.remove(lane);
        lane.ready = false;
    }

    /** Tasks queued over all connections (not yet running), and the most that may be. */
    synchronized int queued() {
        return queued;
    }

    int capacity() {
        return capacity;
    }

    synchronized int inFlight(Lane lane) {
        return lane.inFlight();
    }

    private void makeReady(Lane lane) {
        if (!lane.ready && !lane.waiting.isEmpty() && lane.running < maxRunningPerLane) {
            lane.ready = true;
            ready.add(lane);
            notify();
        }
    }

    private void work() {
        while (true) {
            Lane lane;
            Runnable task;
            synchronized (this) {
                while (ready.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                lane = ready.poll();
                lane.ready = false;
                task = lane.waiting.poll();
                queued--;
                lane.running++;
                makeReady(lane); // its next task goes to the back of the line
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("a query task failed", e);
            } finally {
                synchronized (this) {
                    lane.running--;
                    makeReady(lane);
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        notifyAll();
        for (Thread t : workers) {
            t.interrupt();
        }
    }
}
