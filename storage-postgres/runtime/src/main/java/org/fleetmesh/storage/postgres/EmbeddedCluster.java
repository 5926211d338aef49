package org.fleetmesh.storage.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.spi.secrets.SecretFile;
import org.jboss.logging.Logger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * An embedded PostgreSQL cluster (zonky binaries) living in {@code <dataDir>/pg}, kept across
 * restarts, on a free port, with durable commits ({@code fsync=on}, {@code synchronous_commit=on}).
 *
 * <p>Access: nothing is trusted. A fresh cluster is initialised with SCRAM-SHA-256 for every
 * connection (local socket and localhost TCP) and a random password kept with the node keys in
 * {@code <dataDir>/postgres.key} (0600); a cluster initialised by an older version with zonky's
 * {@code trust} is given the password and the same {@code pg_hba.conf} on its next start. So a
 * local user who is not the node's user cannot connect, let alone run {@code COPY ... PROGRAM}.
 *
 * <p>Owner rule, whatever the start order: every process using the cluster (the relay, the CLI's
 * {@code import}, {@code sync}, {@code delete}) holds a shared lock on {@code <dataDir>/pg.users}
 * while it uses it; starts and stops are serialised by an exclusive lock on
 * {@code <dataDir>/meshnode.lock}. The first user starts the postmaster; the last one out stops
 * it, whoever started it. A postmaster found running while nobody holds {@code pg.users} is an
 * orphan of killed processes ({@code kill -9}, OOM): it is stopped (SIGINT, fast shutdown) before
 * a fresh start, so a data directory never gets two postmasters, and a postmaster still in use is
 * never stopped.
 *
 * <p>Framework-free: a CLI can use it directly.
 */
public final class EmbeddedCluster implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EmbeddedCluster.class);

    public static final String USER = "postgres";
    public static final String DATABASE = "postgres";
    static final String LOCK_FILE = "meshnode.lock";
    static final String USERS_FILE = "pg.users";
    static final String PASSWORD_FILE = "postgres.key";
    static final String PG_DIR = "pg";
    static final String LOG_FILE = "postgres.log";
    static final String HBA_HEADER = "# fleetmesh: every connection needs the password in " + PASSWORD_FILE;

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(120);
    private static final Duration ORPHAN_STOP_WAIT = Duration.ofSeconds(60);

    /** This JVM's use of each data dir (one shared file lock per JVM); guarded by EmbeddedCluster.class. */
    private static final Map<Path, Users> USERS = new HashMap<>();

    private static final class Users {
        final FileChannel channel;
        final FileLock shared;
        /** The postmaster this JVM started, if it did: stopped through zonky when this JVM is the last user. */
        final EmbeddedPostgres started;
        /** The server's log held to its bound, by the JVM that started the server; else null. */
        final ServerLog log;
        /** This JVM joined a postmaster another process was using. */
        final boolean joined;
        int count = 1;

        Users(FileChannel channel, FileLock shared, EmbeddedPostgres started, ServerLog log, boolean joined) {
            this.channel = channel;
            this.shared = shared;
            this.started = started;
            this.log = log;
            this.joined = joined;
        }
    }

    private final Path dataDir;
    private final int port;
    private final boolean startedHere;
    private final String password;
    /** The server's Unix-domain socket the node's connections use, or null for loopback TCP. */
    private final Path socket;
    private boolean closed; // guarded by EmbeddedCluster.class
    /** Set as {@link #close} begins, before it waits for the monitor: a restart under way gives up. */
    private volatile boolean closing;

    private EmbeddedCluster(Path dataDir, int port, boolean startedHere, String password) {
        this.dataDir = dataDir;
        this.port = port;
        this.startedHere = startedHere;
        this.password = password;
        this.socket = localSocket(dataDir.resolve(PG_DIR), port, System.getenv(LOCAL_SOCKET_ENV));
    }

    /** {@code off}: connect over loopback TCP even where the server's Unix-domain socket is usable. */
    static final String LOCAL_SOCKET_ENV = "FLEETMESH_PG_LOCAL_SOCKET";

    /** The longest socket path a {@code sockaddr_un} holds on Linux (108 bytes with its terminating NUL). */
    private static final int MAX_SOCKET_PATH = 107;

    /**
     * The Unix-domain socket of the postmaster of {@code pgDir} listening on {@code port}: the first of the directories
     * its {@code postmaster.pid} names (line 5), {@code .s.PGSQL.<port>} in it; null (loopback TCP) when the switch
     * says {@code off}, the file names none, the path is too long for a socket address, or no socket is there.
     */
    static Path localSocket(Path pgDir, int port, String setting) {
        if (setting != null && setting.trim().equalsIgnoreCase("off")) {
            return null;
        }
        Optional<PidFile> pf;
        try {
            pf = readPidFile(pgDir);
        } catch (UncheckedIOException e) {
            return null;
        }
        String dir = pf.map(f -> f.socketDirs().split(",")[0].trim()).orElse("");
        if (dir.isEmpty() || dir.startsWith("@")) {
            return null; // an abstract-namespace socket
        }
        Path p = Path.of(dir).resolve(".s.PGSQL." + port);
        if (p.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH || !Files.exists(p)) {
            return null;
        }
        return p;
    }

    /** Starts (or attaches to) the cluster of {@code dataDir}; creates the directory when absent. */
    public static EmbeddedCluster start(Path dataDir) throws IOException {
        return start(dataDir, false);
    }

    /**
     * As {@link #start(Path)}; with {@code schema}, a fresh cluster is a copy of the template that holds the shipped
     * migrations ({@link ClusterTemplate}) when it can be, for a caller that migrates the schema next anyway.
     */
    public static EmbeddedCluster start(Path dataDir, boolean schema) throws IOException {
        Path dir = dataDir.toAbsolutePath().normalize();
        Files.createDirectories(dir);
        Path pgDir = dir.resolve(PG_DIR);
        String password = HexFormat.of().formatHex(SecretFile.load(Optional.empty(), Optional.empty(),
                dir.resolve(PASSWORD_FILE), EmbeddedCluster::randomPassword, "embedded PostgreSQL password"));
        synchronized (EmbeddedCluster.class) {
            try (StartLock startLock = StartLock.take(dir)) {
                Users mine = USERS.get(dir);
                if (mine != null) {
                    startLock.close(); // waiting for a postmaster is no start: a restart of it must not wait for this
                    int port = awaitRunningPostmaster(pgDir, password, STARTUP_WAIT);
                    mine.count++;
                    return new EmbeddedCluster(dir, port, false, password);
                }
                FileChannel ch = FileChannel.open(dir.resolve(USERS_FILE), StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE); // a shared lock needs a readable channel
                try {
                    FileLock alone = ch.tryLock();
                    if (alone == null) {
                        // others use the cluster: join them
                        FileLock shared = ch.lock(0, Long.MAX_VALUE, true);
                        // a user now: nobody stops the postmaster as its last user from here on; the start lock is
                        // let go while waiting for it, so that a relay whose postmaster died can start it again
                        startLock.close();
                        int port = awaitRunningPostmaster(pgDir, password, STARTUP_WAIT);
                        USERS.put(dir, new Users(ch, shared, null, null, true));
                        LOG.infof("data dir %s is in use by another process: attaching to its PostgreSQL on port %d", dir, port);
                        return new EmbeddedCluster(dir, port, false, password);
                    }
                    EmbeddedPostgres pg = null; // null: started directly (DirectPostmaster), stopped by signal
                    int port;
                    try {
                        stopPostmaster(pgDir, true);
                        // a fresh cluster without zonky when zonky unpacked this bundle on this machine before: the schema
                        // template's copy when asked for, else initdb run directly
                        boolean initialised = !Files.exists(pgDir.resolve("postgresql.conf"))
                                && (schema && ClusterTemplate.copyInto(dir, pgDir, password, STARTUP_WAIT)
                                        || DirectPostmaster.init(dir, pgDir, dir.resolve(PASSWORD_FILE), STARTUP_WAIT));
                        OptionalInt direct = DirectPostmaster.start(dir, pgDir, serverSettings(), STARTUP_WAIT);
                        if (direct.isPresent()) {
                            port = direct.getAsInt();
                            LOG.infof("embedded PostgreSQL %s in %s on port %d (password authentication)",
                                    initialised ? "initialised and started" : "started", pgDir, port);
                        } else {
                            stopPostmaster(pgDir, true); // whatever a failed direct start left
                            pg = startPostmaster(pgDir, dir.resolve(PASSWORD_FILE), password);
                            port = pg.getPort();
                            DirectPostmaster.record(dir, pgDir);
                        }
                    } finally {
                        alone.release();
                    }
                    FileLock shared;
                    try {
                        shared = ch.lock(0, Long.MAX_VALUE, true);
                    } catch (IOException | RuntimeException e) {
                        if (pg != null) {
                            pg.close();
                        } else {
                            stopPostmaster(pgDir, false);
                        }
                        throw e;
                    }
                    USERS.put(dir, new Users(ch, shared, pg, ServerLog.watch(dir.resolve(LOG_FILE)), false));
                    return new EmbeddedCluster(dir, port, true, password);
                } catch (IOException | RuntimeException | Error e) {
                    if (!USERS.containsKey(dir)) {
                        ch.close();
                    }
                    throw e;
                }
            }
        }
    }

    /** Extra server settings for the embedded cluster, {@code name=value,...}; they win over the defaults above. */
    static final String SETTINGS_ENV = "FLEETMESH_PG_SETTINGS";

    /** What the node's guarantees rest on: not for {@link #SETTINGS_ENV} to change. */
    private static final java.util.Set<String> FIXED_SETTINGS = java.util.Set.of("fsync", "synchronous_commit",
            "full_page_writes", "listen_addresses", "password_encryption", "port", "unix_socket_directories",
            "hba_file", "data_directory", "ssl");

    /** Parses {@link #SETTINGS_ENV}: comma-separated {@code name=value} pairs, names of lowercase letters and _. */
    static java.util.Map<String, String> operatorSettings(String spec) {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        if (spec == null || spec.isBlank()) {
            return out;
        }
        for (String part : spec.split(",")) {
            int eq = part.indexOf('=');
            String name = eq < 0 ? "" : part.substring(0, eq).trim();
            String value = eq < 0 ? "" : part.substring(eq + 1).trim();
            if (!name.matches("[a-z_]+") || value.isEmpty() || !value.matches("[A-Za-z0-9_.]+")) {
                throw new IllegalArgumentException(SETTINGS_ENV + ": expected name=value[,name=value...] (letters, digits,"
                        + " _ and . in values), got '" + part.trim() + "'");
            }
            if (FIXED_SETTINGS.contains(name)) {
                throw new IllegalArgumentException(SETTINGS_ENV + ": " + name + " is fixed by the node (durable commits,"
                        + " localhost only, SCRAM)");
            }
            out.put(name, value);
        }
        return out;
    }

    private static byte[] randomPassword() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /** The server's settings, whoever starts it (zonky or {@link DirectPostmaster}): the node's, then the operator's. */
    static java.util.Map<String, String> serverSettings() {
        java.util.Map<String, String> s = new java.util.LinkedHashMap<>();
        s.put("timezone", "UTC"); // zonky's default, which the schema's timestamps were written under
        // zonky's defaults favour speed over durability (-F, synchronous_commit=off):
        // an OK true must mean the event survives a crash.
        s.put("fsync", "on");
        s.put("synchronous_commit", "on");
        s.put("full_page_writes", "on");
        s.put("listen_addresses", "localhost");
        s.put("password_encryption", "scram-sha-256");
        s.put("max_connections", "200");
        // Sized for a node that shares its machine (docs/OPERATING.md "Memory and disk"; an
        // external server is tuned by its operator): the kernel's page cache holds the hot
        // pages anyway, so a small shared_buffers saves the double copy (and every backend's
        // share of it) at no measured cost to reads; WAL is kept to 128 MB between
        // checkpoints (the 4 GB it was let a 200,000-event ingest leave 625 MB of WAL on
        // disk, more than the tables). Full-page images are not compressed: PostgreSQL 14's
        // pglz tripled the database's CPU on a 1,000,000-event ingest (2,562 events/s against
        // 5,553 without; docs/BENCHMARKS.md, issue 17).
        s.put("shared_buffers", "64MB");
        s.put("max_wal_size", "128MB");
        s.put("min_wal_size", "32MB");
        s.put("wal_compression", "off");
        s.put("checkpoint_timeout", "15min");
        s.put("wal_buffers", "16MB");
        // the small max_wal_size above is chosen: a busy ingest would log "checkpoints are occurring too frequently"
        // with a hint to raise it every few seconds into postgres.log (ServerLog)
        s.put("checkpoint_warning", "0");
        s.putAll(operatorSettings(System.getenv(SETTINGS_ENV)));
        return s;
    }

    /** Starts the postmaster; initdb (SCRAM, the password from {@code passwordFile}) when the dir is fresh. */
    private static EmbeddedPostgres startPostmaster(Path pgDir, Path passwordFile, String password) throws IOException {
        boolean fresh = !Files.exists(pgDir.resolve("postgresql.conf"));
        Files.createDirectories(pgDir);
        boolean secured = fresh || isSecured(pgDir);
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(pgDir)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false)
                .setPGStartupWait(STARTUP_WAIT)
                // initdb only, on a fresh dir; zonky passes these as --name=value after its own
                // "-A trust", so they win: byte-wise text comparison (tag values are only compared for
                // equality, C is the fastest and platform-neutral), SCRAM everywhere, and the
                // superuser's password from the first line of the key file
                .setLocaleConfig("locale", "C")
                .setLocaleConfig("auth-local", "scram-sha-256")
                .setLocaleConfig("auth-host", "scram-sha-256")
                .setLocaleConfig("pwfile", passwordFile.toString())
                .setConnectConfig("password", password)
                // to a file, not to this JVM: the postmaster may outlive the process that started it
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(pgDir.resolveSibling(LOG_FILE).toFile()))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(pgDir.resolveSibling(LOG_FILE).toFile()))
                // a cluster already secured gets its pg_hba.conf rewritten before every start (no
                // trust line can creep back); a legacy trust cluster is secured right after this start
                .setDataDirectoryCustomizer(d -> {
                    if (isSecured(pgDir)) {
                        writeHba(pgDir);
                    }
                })
                ;
        serverSettings().forEach(builder::setServerConfig);
        EmbeddedPostgres pg = builder.start();
        if (!secured) {
            secureLegacyCluster(pg, pgDir, password);
        }
        LOG.infof("embedded PostgreSQL %s in %s on port %d (password authentication)",
                fresh ? "initialised and started" : "started", pgDir, pg.getPort());
        return pg;
    }

    /** True when pg_hba.conf is ours (initdb with SCRAM writes scram-sha-256 lines only). */
    static boolean isSecured(Path pgDir) {
        try {
            List<String> lines = Files.readAllLines(pgDir.resolve("pg_hba.conf"), StandardCharsets.UTF_8);
            boolean any = false;
            for (String l : lines) {
                String t = l.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                if (!t.endsWith("scram-sha-256")) {
                    return false;
                }
                any = true;
            }
            return any;
        } catch (IOException e) {
            return false;
        }
    }

    static void writeHba(Path pgDir) {
        String hba = HBA_HEADER + "\n"
                + "local all all scram-sha-256\n"
                + "host all all 127.0.0.1/32 scram-sha-256\n"
                + "host all all ::1/128 scram-sha-256\n";
        try {
            Path tmp = pgDir.resolve("pg_hba.conf.tmp");
            Files.writeString(tmp, hba, StandardCharsets.UTF_8);
            Files.move(tmp, pgDir.resolve("pg_hba.conf"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + pgDir.resolve("pg_hba.conf"), e);
        }
    }

    /** A cluster initialised with trust by an older version: set the password, then stop trusting. */
    private static void secureLegacyCluster(EmbeddedPostgres pg, Path pgDir, String password) throws IOException {
        LOG.warnf("the embedded PostgreSQL in %s trusted every local connection: setting a password and SCRAM", pgDir);
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("set password_encryption = 'scram-sha-256'");
            s.execute("alter role " + USER + " password '" + password + "'"); // hex: nothing to escape
            writeHba(pgDir);
            s.execute("select pg_reload_conf()");
        } catch (SQLException e) {
            pg.close();
            throw new IOException("could not secure the embedded PostgreSQL in " + pgDir, e);
        }
    }

    public Path dataDir() {
        return dataDir;
    }

    public int port() {
        return port;
    }

    /**
     * True when this JVM joined a postmaster another process was already using (a node or a CLI command, possibly of
     * another build), rather than starting it.
     */
    public static boolean joinedAnotherProcess(Path dataDir) {
        synchronized (EmbeddedCluster.class) {
            Users u = USERS.get(dataDir.toAbsolutePath().normalize());
            return u != null && u.joined;
        }
    }

    /** True when this object started the postmaster (it may still outlive this process: the last user stops it). */
    public boolean owner() {
        return startedHere;
    }

    /**
     * The node's JDBC URL for this cluster: over its Unix-domain socket ({@link LocalSocketFactory}) where there is one
     * ({@link #localSocket}), else over loopback TCP.
     */
    public String jdbcUrl() {
        String url = "jdbc:postgresql://localhost:" + port + "/" + DATABASE;
        if (socket == null) {
            return url;
        }
        return url + "?socketFactory=" + LocalSocketFactory.class.getName() + "&" + LocalSocketFactory.ARG + "="
                + java.net.URLEncoder.encode(socket.toString(), StandardCharsets.UTF_8);
    }

    /** The Unix-domain socket {@link #jdbcUrl} connects through, if any. */
    public Optional<Path> localSocket() {
        return Optional.ofNullable(socket);
    }

    public String user() {
        return USER;
    }

    /** The superuser's password (from {@code <dataDir>/postgres.key}). */
    public String password() {
        return password;
    }

    /** Leaves the cluster; the last process using it stops the postmaster. */
    @Override
    public void close() {
        closing = true;
        synchronized (EmbeddedCluster.class) {
            if (closed) {
                return;
            }
            closed = true;
            Users u = USERS.get(dataDir);
            if (u == null) {
                return;
            }
            if (--u.count > 0) {
                return; // another handle in this JVM still uses it
            }
            USERS.remove(dataDir);
            if (u.log != null) {
                u.log.close();
            }
            try (StartLock ignored = StartLock.takeIfPossible(dataDir)) {
                u.shared.release();
                FileLock last = u.channel.tryLock();
                if (last == null) {
                    LOG.infof("leaving the embedded PostgreSQL in %s running: another process uses it", dataDir);
                    return;
                }
                try {
                    if (u.started != null) {
                        u.started.close();
                    } else {
                        stopPostmaster(dataDir.resolve(PG_DIR), false);
                    }
                } finally {
                    last.release();
                }
            } catch (IOException e) {
                LOG.warnf(e, "could not stop the embedded PostgreSQL in %s", dataDir);
            } finally {
                try {
                    u.channel.close();
                } catch (IOException e) {
                    LOG.debugf(e, "closing %s", USERS_FILE);
                }
            }
        }
    }

    /** What {@link #restartIfGone} did. */
    public enum Restart {
        /** The postmaster runs (or is shutting down: someone asked it to stop): nothing to do. */
        RUNNING,
        /** It was gone and runs again, on the same port. */
        STARTED,
        /** It was gone and did not start (its log says why); the caller tries again later. */
        FAILED,
        /** It is gone, and this cluster cannot be started again here: it was never started directly (no binary recorded). */
        UNSUPPORTED,
        /** This handle was closed: the node is stopping, and so is its cluster. */
        CLOSED
    }

    /**
     * Starts this cluster's postmaster again when it is gone (killed by the OOM killer or {@code kill -9}, crashed, or
     * stopped by someone else under the running node), on the port it had: every connection the node opens names
     * that port. PostgreSQL recovers from its WAL as at any start after a crash, so every committed transaction is
     * there. Serialised with this JVM's starts and stops and, through {@code meshnode.lock}, with those of other
     * processes using the cluster; after {@link #close} it does nothing, so a node that is stopping never starts its
     * cluster again. A postmaster that is shutting down ({@link #postmasterStopping}) is left alone: it still runs.
     * Blocks while the postmaster starts (up to two minutes of crash recovery).
     */
    public Restart restartIfGone() throws IOException {
        if (closing) {
            return Restart.CLOSED;
        }
        if (postmasterRunning()) {
            return Restart.RUNNING; // the look every second: a pid file read, no lock
        }
        if (DirectPostmaster.recordedBin(dataDir).isEmpty()) {
            return Restart.UNSUPPORTED;
        }
        synchronized (EmbeddedCluster.class) {
            if (closed || closing || !USERS.containsKey(dataDir)) {
                return Restart.CLOSED;
            }
            // not a blocking lock: a CLI command attaching meanwhile holds it while it waits for a postmaster (it lets
            // go of it once it sees none); this JVM's monitor is not held through someone else's wait
            try (StartLock lock = StartLock.tryTake(dataDir)) {
                if (lock == null) {
                    return Restart.FAILED;
                }
                if (postmasterRunning()) {
                    return Restart.RUNNING; // another process using the cluster started it first
                }
                Path pgDir = dataDir.resolve(PG_DIR);
                long t0 = System.nanoTime();
                removeStaleSocketLock(pgDir);
                killOrphans(pgDir);
                stopPostmaster(pgDir, true); // a stale postmaster.pid (a dead or reused pid) is removed
                OptionalInt started = DirectPostmaster.start(dataDir, pgDir, serverSettings(), STARTUP_WAIT, port,
                        () -> closing);
                if (started.isEmpty()) {
                    return closing ? Restart.CLOSED : Restart.FAILED;
                }
                LOG.infof("embedded PostgreSQL in %s started again on port %d in %d ms", pgDir, port,
                        (System.nanoTime() - t0) / 1_000_000);
                return Restart.STARTED;
            }
        }
    }

    /**
     * Kills what is left of a dead postmaster: its children still attached to the System V segment it created (its
     * interlock: {@code /proc/sysvipc/shm}, creator pid = the postmaster) keep a new server from starting ({@code FATAL:
     * pre-existing shared memory block ... is still in use}; "terminate any old server processes", says its hint).
     * Most exit as soon as they see the postmaster gone, but not all: an autovacuum launcher was seen alive, orphaned,
     * a minute on. Only processes mapping that very segment and running a {@code postgres} binary are killed.
     */
    static void killOrphans(Path pgDir) {
        try {
            Optional<PidFile> pf = readPidFile(pgDir);
            if (pf.isEmpty() || isAlive(pf.get().pid()) || !Files.isReadable(Path.of("/proc/sysvipc/shm"))) {
                return;
            }
            List<String> marks = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of("/proc/sysvipc/shm"), StandardCharsets.UTF_8)) {
                String[] f = line.trim().split("\\s+");
                // key shmid perms size cpid lpid nattch ...
                if (f.length > 6 && f[4].equals(Long.toString(pf.get().pid())) && !f[6].equals("0")) {
                    try {
                        marks.add(String.format("/SYSV%08x", Long.parseLong(f[0])));
                    } catch (NumberFormatException e) {
                        // the header line
                    }
                }
            }
            if (marks.isEmpty()) {
                return;
            }
            try (java.util.stream.Stream<Path> procs = Files.list(Path.of("/proc"))) {
                for (Path proc : procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                        .toList()) {
                    long pid = Long.parseLong(proc.getFileName().toString());
                    String maps;
                    try {
                        maps = Files.readString(proc.resolve("maps"), StandardCharsets.UTF_8);
                    } catch (IOException | RuntimeException e) {
                        continue; // gone, or not ours to read
                    }
                    if (marks.stream().noneMatch(maps::contains) || identify(pid, pgDir) == PidOwner.OTHER_PROGRAM) {
                        continue;
                    }
                    LOG.infof("killing pid %d, left attached to the shared memory of the dead postmaster %d", pid,
                            pf.get().pid());
                    signal(pid, "KILL");
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debugf(e, "could not look for what the dead postmaster of %s left", pgDir);
        }
    }

    /**
     * Removes the Unix-domain socket's lock file ({@code <dir>/.s.PGSQL.<port>.lock}) a dead postmaster left, when it
     * names that postmaster's pid and the pid is gone or a zombie. PostgreSQL removes a stale one itself only when
     * {@code kill(pid, 0)} fails, which it does not for a zombie: a postmaster whose parent never reaps it (zonky's
     * {@code pg_ctl} exits, and in a container the JVM is process 1, which reaps only its own children) would keep a
     * restart from creating its socket for good ({@code FATAL: lock file ... already exists}).
     */
    static void removeStaleSocketLock(Path pgDir) {
        try {
            Optional<PidFile> pf = readPidFile(pgDir);
            if (pf.isEmpty() || isAlive(pf.get().pid())) {
                return;
            }
            for (String dir : pf.get().socketDirs().split(",")) {
                String d = dir.trim();
                if (d.isEmpty() || d.startsWith("@")) {
                    continue;
                }
                Path lock = Path.of(d).resolve(".s.PGSQL." + pf.get().port() + ".lock");
                List<String> lines;
                try {
                    lines = Files.readAllLines(lock, StandardCharsets.UTF_8);
                } catch (NoSuchFileException e) {
                    continue;
                }
                if (!lines.isEmpty() && lines.get(0).trim().equals(Long.toString(pf.get().pid()))) {
                    LOG.infof("removing %s, left by the dead postmaster %d", lock, pf.get().pid());
                    Files.deleteIfExists(lock);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debugf(e, "could not look at the socket lock of %s", pgDir);
        }
    }

    /** The exclusive lock on meshnode.lock that serialises starts and stops across processes. */
    private static final class StartLock implements AutoCloseable {
        private final FileChannel channel;

        private StartLock(FileChannel channel) {
            this.channel = channel;
        }

        static StartLock take(Path dir) throws IOException {
            FileChannel ch = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                ch.lock(); // waits for another process's start or stop (bounded by STARTUP_WAIT)
                return new StartLock(ch);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        /** The lock if no other process holds it now, else null. */
        static StartLock tryTake(Path dir) throws IOException {
            FileChannel ch = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                if (ch.tryLock() == null) {
                    ch.close();
                    return null;
                }
                return new StartLock(ch);
            } catch (java.nio.channels.OverlappingFileLockException e) {
                ch.close(); // this JVM holds it (a start or stop under way here)
                return null;
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        /** For a stop: when the data dir was removed under a running process, stop without the lock. */
        static StartLock takeIfPossible(Path dir) {
            try {
                return take(dir);
            } catch (IOException e) {
                LOG.warnf("cannot lock %s (%s): stopping without it", dir.resolve(LOCK_FILE), e.getMessage());
                return new StartLock(null);
            }
        }

        @Override
        public void close() throws IOException {
            if (channel != null) {
                channel.close(); // releases the lock
            }
        }
    }

    /**
     * Whether the cluster's postmaster still runs: {@code pg/postmaster.pid} names a live process of this data dir.
     * False once it stopped (the file is gone) or died ({@code kill -9}, the OOM killer: the file names a dead pid).
     */
    public boolean postmasterRunning() {
        Path pgDir = dataDir.resolve(PG_DIR);
        try {
            Optional<PidFile> f = readPidFile(pgDir);
            return f.isPresent() && isAlive(f.get().pid()) && identify(f.get().pid(), pgDir) != PidOwner.OTHER_PROGRAM;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    /**
     * Whether the running postmaster is shutting down ({@code stopping} in {@code pg/postmaster.pid}): someone sent it
     * SIGTERM (a smart shutdown), so it takes no new connection and waits for the node's own to close, which a
     * running node never does; the node can go on only on the connections its pool holds.
     */
    public boolean postmasterStopping() {
        try {
            Optional<PidFile> f = readPidFile(dataDir.resolve(PG_DIR));
            return f.isPresent() && f.get().status().equals("stopping") && isAlive(f.get().pid());
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------- postmaster.pid handling

    /** The parsed {@code postmaster.pid}: pid (line 1), port (line 4), status (line 8, PG 10+). */
    /** Lines 1, 4, 8 and 5 of {@code postmaster.pid}: socketDirs is the server's unix_socket_directories, or "". */
    record PidFile(long pid, int port, String status, String socketDirs) {
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
            String socketDirs = lines.size() >= 5 ? lines.get(4).trim() : "";
            return Optional.of(new PidFile(pid, port, status, socketDirs));
        } catch (NumberFormatException e) {
            return Optional.empty(); // being written right now
        }
    }

    /**
     * Alive and not a zombie. A {@code /proc} entry that cannot be read for another reason than its absence (out of
     * file descriptors) counts as alive: a live postmaster's pid file must not be taken for a stale one.
     */
    static boolean isAlive(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (Files.isReadable(Path.of("/proc/self/stat"))) {
            try {
                String s = Files.readString(stat);
                int close = s.lastIndexOf(')');
                char state = close >= 0 && close + 2 < s.length() ? s.charAt(close + 2) : '?';
                return state != 'Z' && state != 'X';
            } catch (NoSuchFileException e) {
                return false;
            } catch (IOException e) {
                // the process went away while its file was read ("No such process"), or this process cannot open files
                return Files.exists(Path.of("/proc", Long.toString(pid)));
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
     * Called with {@code pg.users} held exclusively: nobody else uses this cluster, so a live
     * postmaster is an orphan of killed processes ({@code orphan}) or the one the last user leaves
     * behind. Stops it with SIGINT (fast shutdown: aborts its transactions, checkpoints) and waits
     * until it is gone.
     */
    static void stopPostmaster(Path pgDir, boolean orphan) throws IOException {
        Optional<PidFile> pf = readPidFile(pgDir);
        if (pf.isEmpty()) {
            return;
        }
        long pid = pf.get().pid();
        if (!isAlive(pid)) {
            // a killed postmaster nobody reaped stays a zombie, which PostgreSQL's own check (kill 0)
            // takes for a running server; its shared-memory interlock still refuses to start while a
            // backend of the dead server lives, so removing the file is safe
            LOG.infof("stale %s/postmaster.pid (pid %d is gone): removing it; PostgreSQL will recover", pgDir, pid);
            Files.deleteIfExists(pgDir.resolve("postmaster.pid"));
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
                // ours: stop it below
            }
        }
        if (orphan) {
            LOG.warnf("orphaned PostgreSQL (pid %d) found in %s, left by processes that did not stop cleanly: stopping it",
                    pid, pgDir);
        } else {
            LOG.infof("last user of the embedded PostgreSQL (pid %d) in %s: stopping it", pid, pgDir);
        }
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
                throw new IOException("could not stop PostgreSQL (pid " + pid + ") in " + pgDir);
            }
            sleep(10); // a fast shutdown of an idle cluster takes 50-150 ms: every stop of a node waits for it
        }
        // the pid file disappears before the last children exit; give them a moment
        long childDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (isAlive(pid) && System.nanoTime() < childDeadline) {
            sleep(10);
        }
        LOG.infof("PostgreSQL (pid %d) stopped", pid);
    }

    /**
     * Sends SIG{@code sig} to {@code pid}. Through the shell's own {@code kill} where there is a {@code /bin/sh} (the
     * container image has no {@code kill} program, only dash, whose {@code kill} is a builtin), else the program.
     */
    private static void signal(long pid, String sig) throws IOException {
        if (!sig.matches("[A-Z]+")) {
            throw new IllegalArgumentException("signal " + sig);
        }
        List<String> cmd = Files.isExecutable(Path.of("/bin/sh"))
                ? List.of("/bin/sh", "-c", "kill -" + sig + " " + pid)
                : List.of("kill", "-" + sig, Long.toString(pid));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while signalling pid " + pid, e);
        }
    }

    /** How long a postmaster seen shutting down is watched before waiting for it is given up. */
    private static final long STOPPING_WAIT_NANOS = 3_000_000_000L;

    /**
     * Waits until another process's postmaster in {@code pgDir} is up and accepting connections; gives up at once (3 s)
     * on one that is shutting down.
     */
    private static int awaitRunningPostmaster(Path pgDir, String password, Duration wait) throws IOException {
        long deadline = System.nanoTime() + wait.toNanos();
        Exception last = null;
        long stopping = 0; // the postmaster last seen shutting down (its pid), 0 when not
        long stoppingSince = 0;
        while (System.nanoTime() < deadline) {
            Optional<PidFile> pf = readPidFile(pgDir);
            long was = stopping;
            stopping = pf.isPresent() && pf.get().status().equals("stopping") && isAlive(pf.get().pid())
                    ? pf.get().pid() : 0;
            if (stopping == 0) {
                stoppingSince = 0;
            } else if (was != stopping) {
                stoppingSince = System.nanoTime();
            } else if (System.nanoTime() - stoppingSince > STOPPING_WAIT_NANOS) {
                break; // a smart shutdown waits for the other process's connections: it will not be ready again
            }
            if (pf.isPresent() && pf.get().port() > 0 && isAlive(pf.get().pid())
                    && (pf.get().status().isEmpty() || pf.get().status().equals("ready"))) {
                try {
                    ping(pf.get().port(), password);
                    return pf.get().port();
                } catch (SQLException e) {
                    last = e;
                }
            }
            sleep(200);
        }
        if (stopping > 0) {
            throw new IOException("the data dir " + pgDir.getParent() + " is in use by another process, and its PostgreSQL"
                    + " (pid " + stopping + ") is shutting down (it was sent SIGTERM, and waits for that process's"
                    + " connections to close): stop or restart the node on " + pgDir.getParent(), last);
        }
        throw new IOException("the data dir " + pgDir.getParent() + " is locked by another process, but no running "
                + "PostgreSQL was found in " + pgDir + " within " + wait.toSeconds() + " s", last);
    }

    private static void ping(int port, String password) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", password);
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
        return "EmbeddedCluster[" + dataDir + ", port " + port + (owner() ? ", started here" : ", attached") + "]";
    }
}
