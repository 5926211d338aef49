package org.fleetmesh.storage.postgres;

import java.io.IOException;
import java.time.Duration;

import org.jboss.logging.Logger;

/**
 * Keeps a running node's embedded PostgreSQL up: looks every {@code interval} whether its postmaster still runs and,
 * when it is gone (the OOM killer, {@code kill -9}, a crash, a stop by someone else), starts it again on its port
 * ({@link EmbeddedCluster#restartIfGone}). The node's pool drops the dead connections and opens new ones, so the node
 * is ready again without a restart of its own. A start that fails (the port was taken meanwhile, the disk is full,
 * a backend of the dead server still holds its shared memory) is tried again after twice the wait of the last one, up
 * to {@link #MAX_BACKOFF}; liveness reports a cluster gone for longer than its grace, for an orchestrator to restart
 * the whole node. Ends when closed, or once the cluster is closed. Framework-free: the relay starts one
 * ({@code quarkus.EmbeddedClusterWatch}); CLI commands, which run for a moment, do not.
 */
public final class PostmasterWatch implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PostmasterWatch.class);

    /** The longest wait between two failed starts. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final EmbeddedCluster cluster;
    private final Runnable onStarted;
    private final long intervalNanos;
    private final Thread thread;
    private final Object wake = new Object();

    private volatile boolean stopped;
    private volatile long restarts;
    private volatile int failedInARow;
    private volatile EmbeddedCluster.Restart last = EmbeddedCluster.Restart.RUNNING;

    private PostmasterWatch(EmbeddedCluster cluster, Duration interval, Runnable onStarted) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive: " + interval);
        }
        this.cluster = cluster;
        this.onStarted = onStarted;
        this.intervalNanos = interval.toNanos();
        this.thread = new Thread(this::run, "postmaster-watch");
        this.thread.setDaemon(true);
    }

    /** Starts watching {@code cluster} every {@code interval}. */
    public static PostmasterWatch start(EmbeddedCluster cluster, Duration interval) {
        return start(cluster, interval, () -> { });
    }

    /**
     * The same, running {@code onStarted} after each start of the postmaster (the node drops its pooled connections,
     * all open on the dead server).
     */
    public static PostmasterWatch start(EmbeddedCluster cluster, Duration interval, Runnable onStarted) {
        PostmasterWatch w = new PostmasterWatch(cluster, interval, onStarted);
        w.thread.start();
        return w;
    }

    /** How many times this watch started the postmaster again. */
    public long restarts() {
        return restarts;
    }

    /** Starts that failed since the postmaster last ran (0 while it runs). */
    public int failedInARow() {
        return failedInARow;
    }

    /** Whether the watch still runs (not closed, its thread not ended by an error). */
    public boolean watching() {
        return !stopped && thread.isAlive();
    }

    /** What the last look found or did. */
    public EmbeddedCluster.Restart last() {
        return last;
    }

    private void run() {
        long wait = intervalNanos;
        boolean toldUnsupported = false;
        while (!stopped) {
            synchronized (wake) {
                long until = System.nanoTime() + wait;
                long left;
                while (!stopped && (left = until - System.nanoTime()) > 0) {
                    try {
                        wake.wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            if (stopped) {
                return;
            }
            EmbeddedCluster.Restart r;
            try {
                r = cluster.restartIfGone();
            } catch (IOException | RuntimeException | Error e) { // an Error too: the watch must not end silently
                LOG.warnf("could not start the embedded PostgreSQL again: %s", e.toString());
                r = EmbeddedCluster.Restart.FAILED;
            }
            last = r;
            switch (r) {
                case RUNNING -> {
                    failedInARow = 0;
                    wait = intervalNanos;
                }
                case STARTED -> {
                    restarts++;
                    failedInARow = 0;
                    wait = intervalNanos;
                    LOG.warnf("the embedded PostgreSQL had stopped under the running node (see %s): it was started"
                            + " again (restart %d)", cluster.dataDir().resolve(EmbeddedCluster.LOG_FILE), restarts);
                    try {
                        onStarted.run();
                    } catch (RuntimeException e) {
                        LOG.warnf("after the restart: %s", e.toString());
                    }
                }
                case FAILED -> {
                    failedInARow++;
                    wait = Math.min(MAX_BACKOFF.toNanos(), Math.max(intervalNanos, wait) * 2);
                    LOG.warnf("the embedded PostgreSQL is not running and did not start again (attempt %d; see %s);"
                            + " trying again in %d ms", failedInARow, cluster.dataDir().resolve(EmbeddedCluster.LOG_FILE),
                            wait / 1_000_000L);
                }
                case UNSUPPORTED -> {
                    if (!toldUnsupported) {
                        LOG.warnf("the embedded PostgreSQL is not running, and this node cannot start it again itself"
                                + " (it was started through zonky only); restart the node");
                        toldUnsupported = true;
                    }
                    wait = intervalNanos;
                }
                case CLOSED -> {
                    return;
                }
            }
        }
    }

    /** Stops watching; a start under way finishes (the cluster's close then stops it). */
    @Override
    public void close() {
        stopped = true;
        synchronized (wake) {
            wake.notifyAll();
        }
    }
}
