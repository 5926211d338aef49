package org.fleetmesh.relay.capacity;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jboss.logging.Logger;

/**
 * When the group-commit writer's transactions began and ended (times from {@link System#nanoTime}):
 * the commit latency part of the pressure signal, and each batch for metrics. Written by the one
 * writer thread, read by any.
 */
public final class CommitTimes {
    private static final Logger LOG = Logger.getLogger(CommitTimes.class);

    /** Told of every transaction that ended. */
    public interface BatchListener {
        /** @param events events in the transaction (0 when it failed), @param nanos how long it took */
        void committed(int events, long nanos, boolean ok);
    }

    private final List<BatchListener> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean inProgress;
    private volatile long startedAt;
    private volatile long lastNanos;
    private volatile long lastEndedAt;
    private volatile boolean anyEnded;

    public void addListener(BatchListener l) {
        listeners.add(l);
    }

    public void removeListener(BatchListener l) {
        listeners.remove(l);
    }

    /** The writer starts a transaction. */
    public void began(long now) {
        startedAt = now;
        inProgress = true;
    }

    /** The writer's transaction ended (committed when {@code ok}, else rolled back). */
    public void ended(int events, long now, boolean ok) {
        long took = now - startedAt;
        lastNanos = took;
        lastEndedAt = now;
        anyEnded = true;
        inProgress = false;
        for (BatchListener l : listeners) {
            try {
                l.committed(events, took, ok);
            } catch (RuntimeException e) {
                LOG.warn("a commit listener failed", e); // it must never disturb the writer
            }
        }
    }

    /** How long the transaction in progress has run at {@code now}; 0 when the writer is between transactions. */
    public long inProgressNanos(long now) {
        return inProgress ? Math.max(0, now - startedAt) : 0;
    }

    /**
     * The commit latency at {@code now}: how long the transaction in progress has run, else how long
     * the last one took if it ended within {@code memoryNanos} (an idle writer has no latency).
     */
    public long latency(long now, long memoryNanos) {
        if (inProgress) {
            return Math.max(0, now - startedAt);
        }
        return anyEnded && now - lastEndedAt <= memoryNanos ? lastNanos : 0;
    }
}
