package org.fleetmesh.storage.postgres;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import org.fleetmesh.spi.schedule.Repeating;

/**
 * The embedded PostgreSQL's log, {@code postgres.log} beside its cluster, held to a bound (docs/OPERATING.md "Memory
 * and disk"). The server writes its standard error there for as long as it runs: its start and stop, and an error line
 * with the statement's text for every read a client's filter made run past the statement timeout (about 400 bytes
 * each), so a stranger sending slow filters could otherwise grow the file without end. The file is opened in append
 * mode by every process that starts the server, so it can be cut while the server writes to it: once it passes
 * {@link #CAP} it is copied to {@code postgres.log.1} (replacing the part before) and truncated, and the server's next
 * write lands at its new end. Lines written between the copy and the truncation are lost; both files together stay
 * under twice the cap plus what the server writes in one {@link #PERIOD}.
 */
final class ServerLog implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ServerLog.class);

    static final long CAP = 16L << 20;
    static final Duration PERIOD = Duration.ofMinutes(1);

    private final ScheduledExecutorService timer;

    private ServerLog(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Cuts {@code log} now and then every {@link #PERIOD} on a daemon thread of its own, until closed. */
    static ServerLog watch(Path log) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-pg-log");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(Repeating.surviving("holding the PostgreSQL log to its size", () -> {
            try {
                cut(log, CAP);
            } catch (IOException | RuntimeException e) {
                LOG.debugf("holding %s to %d bytes: %s", log, CAP, e);
            }
        }), 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        return new ServerLog(timer);
    }

    /**
     * When {@code log} holds more than {@code cap} bytes: copies it to {@code <log>.1} and truncates it. Returns
     * whether it did.
     */
    static boolean cut(Path log, long cap) throws IOException {
        if (!Files.isRegularFile(log) || Files.size(log) <= cap) {
            return false;
        }
        Path previous = log.resolveSibling(log.getFileName() + ".1");
        Files.copy(log, previous, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        return true;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
