package org.fleetmesh.relay;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

/**
 * What the relay does on a clock: purging expired events (NIP-40), closing idle NIP-77 sessions,
 * and (on its own thread, as a build can take minutes) building and rebuilding live indexes.
 */
final class Housekeeping implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Housekeeping.class);

    private final ScheduledExecutorService clock;
    private ScheduledExecutorService indexer; // guarded by this

    Housekeeping(EventStore store, java.util.function.LongSupplier nowSeconds, Runnable closeIdleNegSessions) {
        this.clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-housekeeping");
            t.setDaemon(true);
            return t;
        });
        clock.scheduleWithFixedDelay(Repeating.surviving("purging expired events", () -> purgeExpired(store, nowSeconds.getAsLong())),
                60, 60, TimeUnit.SECONDS);
        clock.scheduleWithFixedDelay(Repeating.surviving("closing idle negentropy sessions", closeIdleNegSessions), 5, 5,
                TimeUnit.SECONDS);
    }

    /** Runs {@code task} every {@code interval} on the housekeeping thread (a failure is logged, the next runs). */
    void every(Duration interval, String what, Runnable task) {
        long ms = interval.toMillis();
        clock.scheduleWithFixedDelay(Repeating.surviving(what, task), ms, ms, TimeUnit.MILLISECONDS);
    }

    private static void purgeExpired(EventStore store, long now) {
        try {
            int n = store.purgeExpired(now);
            if (n > 0) {
                LOG.debugf("purged %d expired events", n);
            }
        } catch (RuntimeException e) {
            LOG.error("purging expired events failed", e);
        }
    }

    /** Builds {@code ix} now in the background, then every {@code rebuildEvery} (0: never again). */
    synchronized void maintain(LiveIndexes ix, Duration rebuildEvery) {
        Runnable build = () -> {
            try {
                ix.rebuild();
            } catch (RuntimeException e) {
                LOG.error("building the negentropy indexes failed; sessions use per-session snapshots", e);
            }
        };
        if (rebuildEvery.isZero()) {
            indexer().execute(build);
        } else {
            indexer().scheduleWithFixedDelay(Repeating.surviving("building the negentropy indexes", build), 0, rebuildEvery.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** Builds one index registered at run time, in the background on the same thread as the rebuilds. */
    synchronized void build(LiveIndexes all, LiveIndexes.Index ix) {
        indexer().execute(() -> {
            try {
                all.build(ix);
            } catch (RuntimeException e) {
                LOG.errorf(e, "building the negentropy index %s failed", ix.label);
            }
        });
    }

    private ScheduledExecutorService indexer() {
        if (indexer == null) {
            indexer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fleetmesh-negentropy-index");
                t.setDaemon(true);
                return t;
            });
        }
        return indexer;
    }

    @Override
    public synchronized void close() {
        clock.shutdownNow();
        if (indexer != null) {
            indexer.shutdownNow();
        }
    }
}
