package org.fleetmesh.spi.schedule;

import org.jboss.logging.Logger;

/**
 * A task a {@link java.util.concurrent.ScheduledExecutorService} runs again and again. Such an executor stops
 * repeating a task for good, silently, the first time it throws anything; a task that catches only
 * {@link RuntimeException} is stopped by the first {@link Error} (an {@link OutOfMemoryError} while the heap is short,
 * a {@link StackOverflowError}), and the node then goes on without it (no more purges of expired events, shard claims,
 * samples, recomputed views, status snapshots) with nothing to say so. Every periodic task of the node is wrapped in
 * {@link #surviving}: whatever it throws is logged, and it runs again as planned.
 */
public final class Repeating {
    private static final Logger LOG = Logger.getLogger(Repeating.class);

    private Repeating() {
    }

    /** {@code task}, with whatever it throws logged (naming {@code what}) instead of ending its repetition. */
    public static Runnable surviving(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable t) {
                try {
                    LOG.errorf(t, "%s failed; it runs again as planned", what);
                } catch (Throwable ignored) {
                    // logging itself failed (out of memory): the task still runs again
                }
            }
        };
    }
}
