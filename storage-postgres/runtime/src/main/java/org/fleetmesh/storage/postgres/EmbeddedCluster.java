package org.fleetmesh.storage.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * An embedded PostgreSQL cluster (zonky binaries) living in {@code <dataDir>/pg}, kept across
 * restarts, on a free port, with durable commits ({@code fsync=on}, {@code synchronous_commit=on}).
 *
 * <p>Ownership: the process that holds {@code <dataDir>/meshnode.lock} owns the cluster; it starts
 * it and stops it on {@link #close()}. On start, a postmaster that is still alive although nobody
 * holds the lock is an orphan of a killed node ({@code kill -9}, OOM): it is stopped (SIGINT, fast
 * shutdown) before a fresh start, so a data directory never gets two postmasters. A process that
 * cannot take the lock (another node on the same data dir is running) attaches to the running
 * postmaster found in {@code postmaster.pid} and leaves it running on close.
 *
 * <p>Framework-free: a CLI can use it directly.
 */
public final class EmbeddedCluster implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EmbeddedCluster.class);

    public static final String USER = "postgres";
    public static final String DATABASE = "postgres";
    static final String LOCK_FILE = "meshnode.lock";
    static final String PG_DIR = "pg";

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(120);
    private static final Duration ORPHAN_STOP_WAIT = Duration.ofSeconds(60);

    private final Path dataDir;
    private final int port;
    private final EmbeddedPostgres postgres; // null when attached to another process's cluster
    private final FileChannel lockChannel;
    private final FileLock lock;
    private volatile boolean closed;

    private EmbeddedCluster(Path dataDir, int port, EmbeddedPostgres postgres, FileChannel lockChannel, FileLock lock) {
        this.dataDir = dataDir;
        this.port = port;
        this.postgres = postgres;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /** Starts (or attaches to) the cluster of {@code dataDir}; creates the directory when absent. */
    public static EmbeddedCluster start(Path dataDir) throws IOException {
        Path dir = dataDir.toAbsolutePath().normalize();
        Files.createDirectories(dir);
        Path pgDir = dir.resolve(PG_DIR);
        FileChannel ch = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by this JVM (another EmbeddedCluster on the same dir)
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        if (lock == null) {
            ch.close();
            int port = awaitRunningPostmaster(pgDir, STARTUP_WAIT);
            LOG.infof("data dir %s is in use by another process: attaching to its PostgreSQL on port %d", dir, port);
            return new EmbeddedCluster(dir, port, null, null, null);
        }
        try {
            stopOrphan(pgDir);
            boolean fresh = !Files.exists(pgDir.resolve("postgresql.conf"));
            Files.createDirectories(pgDir);
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setDataDirectory(pgDir)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setPGStartupWait(STARTUP_WAIT)
                    // zonky's defaults favour speed over durability (-F, synchronous_commit=off):
                    // an OK true must mean the event survives a crash.
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on")
                    .setServerConfig("listen_addresses", "localhost")
                    .setServerConfig("max_connections", "200")
                    // a relay writes steadily: fewer, larger checkpoints and a bigger cache than the
                    // 128 MB / 1 GB defaults (an external server is tuned by its operator)
                    .setServerConfig("shared_buffers", "256MB")
                    .setServerConfig("max_wal_size", "4GB")
                    .setServerConfig("checkpoint_timeout", "15min")
                    .setServerConfig("wal_buffers", "16MB")
                    // (initdb only, on a fresh dir) byte-wise text comparison: tag values are only
                    // ever compared for equality, the C collation is the fastest and platform-neutral
                    .setLocaleConfig("locale", "C")
                    .start();
            LOG.infof("embedded PostgreSQL %s in %s on port %d", fresh ? "initialised and started" : "started", pgDir,
                    pg.getPort());
            return new EmbeddedCluster(dir, pg.getPort(), pg, ch, lock);
        } catch (IOException | RuntimeException | Error e) {
            try {
                lock.release();
            } catch (IOException ignored) {
                // closing the channel releases it anyway
            }
            ch.close();
            throw e;
        }
    }

    public Path dataDir() {
        return dataDir;
    }

    public int port() {
        return port;
    }

    /** True when this process started the postmaster and stops it on close. */
    public boolean owner() {
        return postgres != null;
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/" + DATABASE;
    }

    public String user() {
        return USER;
    }

    /** The embedded cluster trusts local connections: the password is empty. */
    public String password() {
        return "";
    }

    /** Stops the postmaster when this process owns it; then releases the data dir. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (postgres == null) {
            return;
        }
        try {
            postgres.close();
        } catch (IOException e) {
            LOG.warnf(e, "could not stop the embedded PostgreSQL in %s", dataDir);
        }
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.debugf(e, "releasing %s", LOCK_FILE);
        }
    }

    // ---------------------------------------------------------------- postmaster.pid handling

    /** The parsed {@code postmaster.pid}: pid (line 1), port (line 4), status (line 8, PG 10+). */
    record PidFile(long pid, int port, String status) {
    }

    static Optional<PidFile> readPidFile(Path pgDir) {
        List<String> lines;
        try {
            lines = Files.readAllLines(pgDir.resolve("postmaster.pid"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        try {
            long pid = Long.parseLong(lines.get(0).trim());
            int port = lines.size() >= 4 && !lines.get(3).isBlank() ? Integer.parseInt(lines.get(3).trim()) : -1;
            String status = lines.size() >= 8 ? lines.get(7).trim() : "";
            return Optional.of(new PidFile(pid, port, status));
        } catch (NumberFormatException e) {
            return Optional.empty(); // being written right now
        }
    }

    /** Alive and not a zombie. */
    static boolean isAlive(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (Files.isReadable(Path.of("/proc/self/stat"))) {
            try {
                String s = Files.readString(stat);
                int close = s.lastIndexOf(')');
                char state = close >= 0 && close + 2 < s.length() ? s.charAt(close + 2) : '?';
                return state != 'Z' && state != 'X';
            } catch (IOException e) {
                return false;
            }
        }
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** What a live pid named in postmaster.pid turned out to be. */
    enum PidOwner {
        /** A postmaster of this very data directory. */
        OUR_POSTMASTER,
        /** Some other program: the pid was reused, the file is stale. */
        OTHER_PROGRAM,
        /** A PostgreSQL process of another cluster, or unknown. */
        UNKNOWN
    }

    static PidOwner identify(long pid, Path pgDir) {
        Path cmdline = Path.of("/proc", Long.toString(pid), "cmdline");
        String[] args;
        if (Files.isDirectory(Path.of("/proc/self"))) {
            try {
                args = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\u0000");
            } catch (IOException e) {
                return PidOwner.UNKNOWN;
            }
        } else { // no procfs (macOS): ask the JDK
            Optional<ProcessHandle.Info> info = ProcessHandle.of(pid).map(ProcessHandle::info);
            if (info.isEmpty() || info.get().command().isEmpty()) {
                return PidOwner.UNKNOWN;
            }
            List<String> all = new ArrayList<>();
            all.add(info.get().command().get());
            info.get().arguments().ifPresent(a -> all.addAll(List.of(a)));
            args = all.toArray(new String[0]);
        }
        if (args.length == 0 || args[0].isEmpty()) {
            return PidOwner.UNKNOWN; // a kernel thread or a zombie: cannot tell
        }
        String exe = Path.of(args[0].split(" ")[0]).getFileName().toString();
        if (!exe.equals("postgres") && !exe.startsWith("postgres:")) {
            return PidOwner.OTHER_PROGRAM;
        }
        String dir = pgDir.toAbsolutePath().normalize().toString();
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("-D") && Path.of(args[i + 1]).toAbsolutePath().normalize().toString().equals(dir)) {
                return PidOwner.OUR_POSTMASTER;
            }
        }
        return PidOwner.UNKNOWN;
    }

    /**
     * Called with the lock held: nobody else runs this cluster, so a live postmaster is an orphan
     * of a killed node. Stops it with SIGINT (fast shutdown: aborts its transactions, checkpoints)
     * and waits until it is gone.
     */
    private static void stopOrphan(Path pgDir) throws IOException {
        Optional<PidFile> pf = readPidFile(pgDir);
        if (pf.isEmpty()) {
            return;
        }
        long pid = pf.get().pid();
        if (!isAlive(pid)) {
            LOG.infof("stale %s/postmaster.pid (pid %d is gone): PostgreSQL will recover", pgDir, pid);
            return;
        }
        switch (identify(pid, pgDir)) {
            case OTHER_PROGRAM -> {
                // the pid was reused by an unrelated program (e.g. after a reboot): the file is stale
                LOG.warnf("%s/postmaster.pid names pid %d, which is not PostgreSQL: removing the stale file", pgDir, pid);
                Files.deleteIfExists(pgDir.resolve("postmaster.pid"));
                return;
            }
            case UNKNOWN -> throw new IOException(pgDir + "/postmaster.pid names the running process " + pid
                    + ", which is not recognisably this cluster's PostgreSQL; refusing to start a second server."
                    + " Stop that process, or remove the file if it is stale.");
            default -> {
                // an orphan: stop it below
            }
        }
        LOG.warnf("orphaned PostgreSQL (pid %d) found in %s, left by a node that did not stop cleanly: stopping it",
                pid, pgDir);
        signal(pid, "INT");
        long deadline = System.nanoTime() + ORPHAN_STOP_WAIT.toNanos();
        boolean escalated = false;
        while (isAlive(pid) && Files.exists(pgDir.resolve("postmaster.pid"))) {
            if (!escalated && System.nanoTime() > deadline - ORPHAN_STOP_WAIT.toNanos() / 2) {
                LOG.warnf("PostgreSQL pid %d still running after SIGINT: sending SIGQUIT", pid);
                signal(pid, "QUIT");
                escalated = true;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("could not stop the orphaned PostgreSQL (pid " + pid + ") in " + pgDir);
            }
            sleep(100);
        }
        // the pid file disappears before the last children exit; give them a moment
        long childDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (isAlive(pid) && System.nanoTime() < childDeadline) {
            sleep(50);
        }
        LOG.infof("orphaned PostgreSQL (pid %d) stopped", pid);
    }

    private static void signal(long pid, String sig) throws IOException {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while signalling pid " + pid, e);
        }
    }

    /** Waits until another process's postmaster in {@code pgDir} is up and accepting connections. */
    private static int awaitRunningPostmaster(Path pgDir, Duration wait) throws IOException {
        long deadline = System.nanoTime() + wait.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            Optional<PidFile> pf = readPidFile(pgDir);
            if (pf.isPresent() && pf.get().port() > 0 && isAlive(pf.get().pid())
                    && (pf.get().status().isEmpty() || pf.get().status().equals("ready"))) {
                try {
                    ping(pf.get().port());
                    return pf.get().port();
                } catch (SQLException e) {
                    last = e;
                }
            }
            sleep(200);
        }
        throw new IOException("the data dir " + pgDir.getParent() + " is locked by another process, but no running "
                + "PostgreSQL was found in " + pgDir + " within " + wait.toSeconds() + " s", last);
    }

    private static void ping(int port) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("connectTimeout", "5");
        try (Connection c = new org.postgresql.Driver().connect("jdbc:postgresql://localhost:" + port + "/" + DATABASE, props);
                Statement s = c.createStatement()) {
            s.execute("select 1");
        }
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return "EmbeddedCluster[" + dataDir + ", port " + port + (owner() ? ", owner" : ", attached") + "]";
    }
}
