package org.fleetmesh.storage.postgres;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.jboss.logging.Logger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * Starts the embedded cluster's postmaster itself, without zonky, when zonky started this cluster before with the
 * same PostgreSQL bundle (docs/OPERATING.md "Fast start").
 *
 * <p>
 * Zonky's start costs about 0.5 s of the node's boot before PostgreSQL runs at all (measured on 2 cores): per JVM it
 * runs a shell script to name the Linux distribution and, as root, {@code unshare} twice to see whether it needs a user
 * namespace; per start it reads and MD5s its whole ~10 MB binary archive to find the directory it unpacked it to; then
 * {@code pg_ctl -w start} polls for readiness every 100 ms, and a JDBC connection every further 100 ms. After a start
 * through zonky the cluster records where the binary it ran lives, and which bundle it came from
 * ({@value #RECORD_FILE}); the next start of that cluster runs that binary with the same settings, in its own session
 * ({@code setsid}, as {@code pg_ctl} does: a terminal's Ctrl-C reaches the node, which then stops PostgreSQL, not
 * PostgreSQL directly), in a user namespace when run as root (as zonky does: PostgreSQL refuses to run as root), and
 * waits for {@code postmaster.pid} to say {@code ready}, checking every 5 ms.
 *
 * <p>
 * Anything unexpected (no record, another bundle on the class path, a missing binary, a cluster zonky must still
 * secure, a postmaster that exits) returns empty, and the caller starts through zonky as before. Stopping is the same
 * for both: SIGINT to the pid in {@code postmaster.pid} by the last user ({@link EmbeddedCluster}).
 */
final class DirectPostmaster {
    private static final Logger LOG = Logger.getLogger(DirectPostmaster.class);

    /** In the node's data dir: {@code bundle=<zonky's binary archive URL>} and {@code bin=<its unpacked bin dir>}. */
    static final String RECORD_FILE = "pg.binaries";

    /** The one bundle this path knows (zonky's name for Linux on x86-64); elsewhere zonky always starts. */
    private static final String BUNDLE = "postgres-linux-x86_64.txz";

    private static final long POLL_NANOS = 5_000_000;

    private DirectPostmaster() {
    }

    /** The bundle on the class path: the URL of zonky's archive (its jar's name carries the version), or empty. */
    static Optional<String> bundle() {
        URL u = EmbeddedPostgres.class.getClassLoader().getResource(BUNDLE);
        return u == null ? Optional.empty() : Optional.of(u.toString());
    }

    /**
     * After zonky started the cluster: records the running postmaster's binary and the bundle, for the next start, in
     * the data dir and (for {@link #init}) in zonky's working directory.
     */
    static void record(Path dataDir, Path pgDir) {
        Path file = dataDir.resolve(RECORD_FILE);
        try {
            Optional<String> bundle = bundle();
            Optional<EmbeddedCluster.PidFile> pf = EmbeddedCluster.readPidFile(pgDir);
            Path exe = pf.isPresent() ? Path.of("/proc", Long.toString(pf.get().pid()), "exe") : null;
            if (bundle.isEmpty() || exe == null || !Files.exists(exe)) {
                Files.deleteIfExists(file);
                return;
            }
            Path bin = exe.toRealPath().getParent();
            if (bin == null || !bin.getFileName().toString().equals("bin")) {
                Files.deleteIfExists(file);
                return;
            }
            writeRecord(file, bundle.get(), bin);
            Path machine = machineRecord(bundle.get());
            if (!bin.equals(binOf(machine).orElse(null))) {
                writeRecord(machine, bundle.get(), bin);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debugf(e, "could not record the PostgreSQL binary in %s", file);
        }
    }

    private static void writeRecord(Path file, String bundle, Path bin) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
        try {
            Files.writeString(tmp, "bundle=" + bundle + "\nbin=" + bin + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Where this machine's first start through zonky found the bundle's binaries unpacked: a file in zonky's working
     * directory ({@code ot.epg.working-dir}, else {@code <java.io.tmpdir>/embedded-pg}, where zonky unpacks them)
     * named after the bundle's URL. Read by {@link #init}, for data dirs that zonky has not started yet.
     */
    static Path machineRecord(String bundle) {
        Path work = workingDir();
        try {
            byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(bundle.getBytes(StandardCharsets.UTF_8));
            return work.resolve("fleetmesh-" + java.util.HexFormat.of().formatHex(h, 0, 8) + "." + RECORD_FILE);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Zonky's working directory, where it unpacks its binaries: {@code ot.epg.working-dir}, else the temporary one's {@code embedded-pg}. */
    static Path workingDir() {
        return Path.of(System.getProperty("ot.epg.working-dir",
                Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg").toString()));
    }

    /** The bin dir this machine's record names for the bundle on the class path, if usable ({@link #init}). */
    static Optional<Path> machineBin() {
        return bundle().flatMap(b -> machineBin(machineRecord(b)));
    }

    private static Optional<Path> machineBin(Path machine) {
        Optional<Path> bin = binOf(machine);
        if (bin.isEmpty() || !Files.isExecutable(bin.get().resolve("initdb")) || !ownedByMe(machine, bin.get(),
                bin.get().resolve("initdb"), bin.get().resolve("postgres"))) {
            return Optional.empty();
        }
        return bin;
    }

    /** Records {@code bin} for {@code dataDir}'s next start ({@link #start}). */
    static void recordFor(Path dataDir, Path bin) throws IOException {
        writeRecord(dataDir.resolve(RECORD_FILE), bundle().orElseThrow(), bin);
    }

    /** The bin dir recorded for {@code dataDir}, if the record is for the bundle on the class path and still there. */
    static Optional<Path> recordedBin(Path dataDir) {
        return binOf(dataDir.resolve(RECORD_FILE));
    }

    /** The bin dir a record file names, if it is for the bundle on the class path and its server is still there. */
    private static Optional<Path> binOf(Path file) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        String bundle = null;
        String bin = null;
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith("bundle=")) {
                    bundle = line.substring("bundle=".length());
                } else if (line.startsWith("bin=")) {
                    bin = line.substring("bin=".length());
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        if (bundle == null || bin == null || !bundle().map(bundle::equals).orElse(false)) {
            return Optional.empty(); // another PostgreSQL bundle now: zonky unpacks it
        }
        Path dir = Path.of(bin);
        return Files.isExecutable(dir.resolve("postgres")) ? Optional.of(dir) : Optional.empty();
    }

    /**
     * Initialises a fresh cluster in {@code pgDir} without zonky, with the binaries a start through zonky on this
     * machine recorded ({@link #machineRecord}), the arguments zonky gives {@code initdb} and ours ({@code C} locale,
     * SCRAM for local and host connections, the superuser's password from {@code passwordFile}); then records the
     * binaries for the data dir, so that {@link #start} applies. False when this path does not apply (no record, or
     * one that is not this user's, another bundle, a directory that is not empty) or {@code initdb} failed, which
     * leaves nothing behind in {@code pgDir}: the caller then goes through zonky.
     */
    static boolean init(Path dataDir, Path pgDir, Path passwordFile, Duration wait) {
        Optional<String> bundle = bundle();
        return bundle.isPresent() && init(dataDir, pgDir, passwordFile, wait, machineRecord(bundle.get()));
    }

    /** {@link #init} with the binaries {@code machine} records (tests). */
    static boolean init(Path dataDir, Path pgDir, Path passwordFile, Duration wait, Path machine) {
        Optional<String> bundle = bundle();
        if (bundle.isEmpty()) {
            return false;
        }
        Optional<Path> bin = machineBin(machine);
        if (bin.isEmpty()) {
            return false;
        }
        try {
            if (Files.isDirectory(pgDir)) {
                try (java.util.stream.Stream<Path> in = Files.list(pgDir)) {
                    if (in.findAny().isPresent()) {
                        return false;
                    }
                }
            }
        } catch (IOException e) {
            return false;
        }
        if (isRoot() && tool("unshare").isEmpty()) {
            return false;
        }
        List<String> cmd = new ArrayList<>();
        tool("setsid").ifPresent(p -> cmd.add(p.toString()));
        cmd.addAll(asUnprivileged());
        cmd.addAll(List.of(bin.get().resolve("initdb").toString(), "-A", "trust", "-U", EmbeddedCluster.USER, "-D",
                pgDir.toString(), "-E", "UTF-8", "--locale=C", "--auth-local=scram-sha-256",
                "--auth-host=scram-sha-256", "--pwfile=" + passwordFile));
        long t0 = System.nanoTime();
        try {
            File log = pgDir.resolveSibling(EmbeddedCluster.LOG_FILE).toFile();
            Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
            if (!p.waitFor(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                LOG.warnf("initdb in %s did not finish within %d s: initialising through zonky", pgDir, wait.toSeconds());
                clear(pgDir);
                return false;
            }
            if (p.exitValue() != 0 || !Files.exists(pgDir.resolve("postgresql.conf"))) {
                LOG.warnf("initdb in %s failed (code %d, see %s): initialising through zonky", pgDir, p.exitValue(),
                        log);
                clear(pgDir);
                return false;
            }
            writeRecord(dataDir.resolve(RECORD_FILE), bundle.get(), bin.get());
        } catch (IOException | RuntimeException e) {
            LOG.debugf(e, "direct initdb in %s failed: initialising through zonky", pgDir);
            clear(pgDir);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            clear(pgDir);
            return false;
        }
        LOG.debugf("PostgreSQL cluster initialised in %d ms, directly", (System.nanoTime() - t0) / 1_000_000);
        return true;
    }

    /** Empties {@code dir} (what a failed or killed {@code initdb} may have left), keeping the directory itself. */
    static void clear(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            LOG.debugf(e, "could not empty %s", dir);
        }
    }

    /** Every path is owned by this process's user (a record or binaries another user planted are not run). */
    static boolean ownedByMe(Path... paths) {
        try {
            int me = uid();
            for (Path p : paths) {
                if (((Number) Files.getAttribute(p, "unix:uid")).intValue() != me) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Starts the postmaster of the secured, initialised cluster in {@code pgDir} with {@code settings} on a free port
     * and waits until it accepts connections; empty when this path does not apply or the start failed (nothing of it
     * is left running then).
     */
    static OptionalInt start(Path dataDir, Path pgDir, Map<String, String> settings, Duration wait) {
        return start(dataDir, pgDir, settings, wait, 0);
    }

    /**
     * As {@link #start(Path, Path, Map, Duration)}, on {@code fixedPort} when above 0 (a postmaster started again under
     * a running node, whose connections name its port: {@link EmbeddedCluster#restartIfGone}).
     */
    static OptionalInt start(Path dataDir, Path pgDir, Map<String, String> settings, Duration wait, int fixedPort) {
        return start(dataDir, pgDir, settings, wait, fixedPort, () -> false);
    }

    /** As above; while it waits for the server, {@code cancelled} true stops it and answers empty. */
    static OptionalInt start(Path dataDir, Path pgDir, Map<String, String> settings, Duration wait, int fixedPort,
            java.util.function.BooleanSupplier cancelled) {
        String then = fixedPort > 0 ? "trying again later" : "starting through zonky";
        if (!Files.exists(pgDir.resolve("postgresql.conf")) || !EmbeddedCluster.isSecured(pgDir)) {
            if (fixedPort > 0) {
                LOG.warnf("cannot start PostgreSQL in %s: %s", pgDir, Files.exists(pgDir.resolve("postgresql.conf"))
                        ? "its pg_hba.conf is not the node's" : "its postgresql.conf is missing");
            }
            return OptionalInt.empty();
        }
        Optional<Path> bin = recordedBin(dataDir);
        if (bin.isEmpty()) {
            if (fixedPort > 0) {
                LOG.warnf("cannot start PostgreSQL in %s: the binary recorded in %s is gone", pgDir, RECORD_FILE);
            }
            return OptionalInt.empty();
        }
        List<String> cmd = new ArrayList<>();
        Optional<Path> setsid = tool("setsid");
        setsid.ifPresent(p -> cmd.add(p.toString()));
        if (isRoot()) {
            Optional<Path> unshare = tool("unshare");
            if (unshare.isEmpty()) {
                return OptionalInt.empty();
            }
            cmd.add(unshare.get().toString());
            cmd.add("-U");
        }
        int port = fixedPort;
        if (port <= 0) {
            try {
                port = freePort();
            } catch (IOException e) {
                return OptionalInt.empty();
            }
        }
        cmd.add(bin.get().resolve("postgres").toString());
        cmd.add("-D");
        cmd.add(pgDir.toString());
        cmd.add("-p");
        cmd.add(Integer.toString(port));
        settings.forEach((k, v) -> {
            cmd.add("-c");
            cmd.add(k + "=" + v);
        });
        long t0 = System.nanoTime();
        Process p;
        try {
            EmbeddedCluster.writeHba(pgDir);
            File log = pgDir.resolveSibling(EmbeddedCluster.LOG_FILE).toFile();
            p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        } catch (IOException | RuntimeException e) {
            LOG.debugf(e, "direct start of PostgreSQL in %s failed: %s", pgDir, then);
            return OptionalInt.empty();
        }
        long deadline = t0 + wait.toNanos();
        while (true) {
            Optional<EmbeddedCluster.PidFile> pf = EmbeddedCluster.readPidFile(pgDir);
            if (pf.isPresent() && pf.get().pid() == p.pid() && pf.get().status().equals("ready")) {
                LOG.debugf("PostgreSQL (pid %d) ready in %d ms, started directly", p.pid(), (System.nanoTime() - t0) / 1_000_000);
                return OptionalInt.of(port);
            }
            if (!p.isAlive()) {
                LOG.warnf("PostgreSQL in %s exited at its start (code %d, see %s): %s", pgDir, p.exitValue(),
                        pgDir.resolveSibling(EmbeddedCluster.LOG_FILE), then);
                return OptionalInt.empty();
            }
            boolean cancel = cancelled.getAsBoolean();
            if (cancel || System.nanoTime() > deadline) {
                if (cancel) {
                    LOG.infof("stopping the PostgreSQL starting in %s: the node stops", pgDir);
                } else {
                    LOG.warnf("PostgreSQL in %s not ready within %d s: stopping it, %s", pgDir, wait.toSeconds(), then);
                }
                p.destroy(); // SIGTERM: smart shutdown
                try {
                    if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return OptionalInt.empty();
            }
            java.util.concurrent.locks.LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** What runs a PostgreSQL program as this user: nothing, or as root {@code unshare -U} (it refuses to run as root). */
    static List<String> asUnprivileged() {
        if (!isRoot()) {
            return List.of();
        }
        return tool("unshare").map(u -> List.of(u.toString(), "-U")).orElse(List.of());
    }

    static Optional<Path> tool(String name) {
        for (String dir : new String[] { "/usr/bin", "/bin", "/usr/sbin", "/sbin" }) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Effective uid 0 (from /proc/self/status: this path is for Linux only). */
    private static boolean isRoot() {
        return uid() == 0;
    }

    /** The effective uid (from /proc/self/status), or -1 without procfs: not root then; a root start fails and zonky starts. */
    private static int uid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    String[] f = line.substring(4).trim().split("\\s+");
                    return f.length > 1 ? Integer.parseInt(f[1]) : -1;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no procfs
        }
        return -1;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
