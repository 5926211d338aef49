package org.fleetmesh.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One meshnode started from the packaged app ({@code quarkus-run.jar}) as a child process, with
 * its own data dir and a free port, its log captured under {@code target/it-logs/}. It can be
 * stopped gracefully, killed with SIGKILL, and started again on the same data dir.
 */
public final class MeshnodeProcess implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Nodes still running, so that a test JVM that dies early does not leave them behind. */
    private static final java.util.Set<MeshnodeProcess> RUNNING = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (MeshnodeProcess p : RUNNING) {
                if (p.process != null) {
                    p.process.destroyForcibly();
                }
                stopLeftoverPostmasters(p.dataDir);
            }
        }, "meshnode-it-cleanup"));
    }

    /** The suite's class archive for the nodes (see {@link #suiteArchive()}); null when none. */
    private static Path suiteArchive;
    private static boolean suiteArchiveTried;

    /**
     * A dynamic CDS archive (JEP 350) of the packaged node for the tests' JVM, made once per build of the node (kept in
     * {@code target/it-cds} with a stamp of the JVM and the build) by starting one node with
     * {@code -XX:ArchiveClassesAtExit} and stopping it, then checked ({@code -Xshare:on -version}), and
     * mapped by every node started with the tests' JVM and the packaged app (as {@code ./meshnode relay} maps the
     * launcher's archive): each such start then loads its classes from the archive (about 0.7-0.9 s less CPU on JDK
     * 17; docs/BENCHMARKS.md "The suite"). {@code -Dit.cds=false} turns it off; a node whose test sets its own JVM
     * ({@code MESHNODE_JAVA}), another app, or archive options in {@code JAVA_OPTS} does not use it. Any failure
     * leaves the nodes without it.
     */
    static synchronized Path suiteArchive() {
        if (suiteArchiveTried) {
            return suiteArchive;
        }
        suiteArchiveTried = true;
        if (!Boolean.parseBoolean(System.getProperty("it.cds", "true"))) {
            return null;
        }
        long t0 = System.nanoTime();
        Path dir = targetDir().resolve("it-cds");
        Path jsa = dir.resolve("node.jsa");
        Path tmp = dir.resolve("node.jsa.new");
        Path stampFile = dir.resolve("node.jsa.stamp");
        MeshnodeProcess trainer = null;
        try {
            // made for this JVM and this build of the node: kept for the next test run while both stay the same
            Path jar = appDir().resolve("quarkus-run.jar").toAbsolutePath();
            String stamp = System.getProperty("java.home") + " " + Files.getLastModifiedTime(jar).toMillis() + " " + jar;
            if (Files.isRegularFile(jsa) && Files.isRegularFile(stampFile)
                    && Files.readString(stampFile).equals(stamp)) {
                suiteArchive = jsa;
                return jsa;
            }
            Files.createDirectories(dir);
            Files.deleteIfExists(stampFile);
            Files.deleteIfExists(jsa);
            Files.deleteIfExists(tmp);
            trainer = new MeshnodeProcess("cds-training", newDataDir("cds-training"),
                    Map.of("JAVA_OPTS", "-XX:ArchiveClassesAtExit=" + tmp));
            trainer.startAgain();
            trainer.stop(); // the JVM writes the archive as it exits
            if (!Files.isRegularFile(tmp) || Files.size(tmp) == 0) {
                System.out.println("[it] no suite class archive: the training node wrote none");
                return null;
            }
            String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process check = new ProcessBuilder(javaBin, "-Xmx512m", "-XX:SharedArchiveFile=" + tmp, "-Xshare:on", "-cp",
                    appDir().resolve("quarkus-run.jar").toAbsolutePath().toString(), "-version")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!check.waitFor(60, TimeUnit.SECONDS) || check.exitValue() != 0) {
                check.destroyForcibly();
                System.out.println("[it] no suite class archive: the JVM refuses it");
                return null;
            }
            Files.move(tmp, jsa, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            Files.writeString(stampFile, stamp);
            suiteArchive = jsa;
            System.out.printf("[it] suite class archive %s (%d MiB) made in %.1f s%n", jsa, Files.size(jsa) >> 20,
                    (System.nanoTime() - t0) / 1e9);
            return jsa;
        } catch (IOException | RuntimeException e) {
            System.out.println("[it] no suite class archive: " + e);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (trainer != null) {
                stopLeftoverPostmasters(trainer.dataDir);
                deleteDataDir(trainer.dataDir);
            }
        }
    }

    /** Whether this node maps the suite's archive: the tests' JVM, the packaged app, no archive options of its own. */
    private boolean usesSuiteArchive() {
        String opts = env.getOrDefault("JAVA_OPTS", "");
        return app == null && !env.containsKey("MESHNODE_JAVA") && !opts.contains("Archive") && !opts.contains("Xshare")
                && !opts.contains("AOTCache");
    }

    private final String name;
    private final Path dataDir;
    private final Map<String, String> env;
    private Process process;
    /** The packaged app this node runs, null for {@link #appDir()}. */
    private Path app;
    private int port;
    private Path log;
    private int starts;
    /** The port the next start binds, 0 for any free one. */
    private int nextPort;

    private MeshnodeProcess(String name, Path dataDir, Map<String, String> env) {
        this.name = name;
        this.dataDir = dataDir;
        this.env = env;
    }

    /** Starts a node on a fresh data dir and waits until it is ready. */
    public static MeshnodeProcess start(String name) {
        return start(name, Map.of());
    }

    /** Starts a node on a fresh data dir with extra environment and waits until it is ready. */
    public static MeshnodeProcess start(String name, Map<String, String> env) {
        MeshnodeProcess p = new MeshnodeProcess(name, newDataDir(name), Map.copyOf(env));
        p.startAgain();
        return p;
    }

    /** Starts a node of another packaged app (e.g. a build with other adapters) on a fresh data dir. */
    public static MeshnodeProcess startApp(Path app, String name, Map<String, String> env) {
        MeshnodeProcess p = new MeshnodeProcess(name, newDataDir(name), Map.copyOf(env));
        p.app = app;
        p.startAgain();
        return p;
    }

    public static Path appDir() {
        Path app = Path.of(System.getProperty("meshnode.app.dir", "../meshnode-app/target/quarkus-app"));
        if (!Files.isRegularFile(app.resolve("quarkus-run.jar"))) {
            throw new IllegalStateException("the packaged node is missing: " + app.resolve("quarkus-run.jar")
                    + " (run `mvn -o install -DskipTests` first)");
        }
        return app;
    }

    public static Path projectRoot() {
        return Path.of(System.getProperty("meshnode.root", "..")).toAbsolutePath().normalize();
    }

    public static Path targetDir() {
        return Path.of(System.getProperty("meshnode.it.target", "target")).toAbsolutePath().normalize();
    }

    /** A fresh, empty directory under target/it-data. */
    public static Path newDataDir(String name) {
        try {
            Path root = targetDir().resolve("it-data");
            Files.createDirectories(root);
            return Files.createTempDirectory(root, name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** (Re)starts the node on its data dir on a new free port and waits for readiness. */
    /**
     * Starts a node on an existing data dir (one another process used, stopped or killed) with another environment,
     * binding {@code port} (its peers' stored URLs keep working).
     */
    public static MeshnodeProcess startOn(String name, Path dataDir, Map<String, String> env, int port) {
        MeshnodeProcess p = new MeshnodeProcess(name, dataDir, Map.copyOf(env));
        p.nextPort = port;
        p.startAgain();
        return p;
    }

    public synchronized void startAgain() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        starts++;
        // the node binds any free port itself and logs it: a port picked here and released could be
        // taken meanwhile (once by the node's own embedded PostgreSQL)
        port = 0;
        int bind = nextPort;
        nextPort = 0;
        try {
            Path logs = targetDir().resolve("it-logs");
            Files.createDirectories(logs);
            log = logs.resolve(dataDir.getFileName() + "-start" + starts + ".log");
            List<String> cmd = new ArrayList<>();
            // MESHNODE_JAVA in the env picks the JVM, as it does for the launcher; else the tests' own
            cmd.add(env.getOrDefault("MESHNODE_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString()));
            cmd.add("-Xmx512m");
            Path archive = usesSuiteArchive() ? suiteArchive() : null;
            if (archive != null) {
                cmd.add("-XX:SharedArchiveFile=" + archive);
            }
            // JAVA_OPTS in the env adds JVM options, as it does for the launcher (space-separated)
            for (String opt : env.getOrDefault("JAVA_OPTS", "").trim().split("\\s+")) {
                if (!opt.isEmpty()) {
                    cmd.add(opt);
                }
            }
            cmd.add("-jar");
            cmd.add((app != null ? app : appDir()).resolve("quarkus-run.jar").toAbsolutePath().toString());
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .directory(dataDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            Map<String, String> e = pb.environment();
            e.put("QUARKUS_HTTP_PORT", Integer.toString(bind));
            e.put("QUARKUS_HTTP_HOST", "127.0.0.1");
            e.put("FLEETMESH_DATA_DIR", dataDir.toString());
            // every test client shares 127.0.0.1: a test about client limits turns them on in its env
            e.put("FLEETMESH_CLIENT_LIMITS", "off");
            // NIP-66 probes add events, connections and a clock of their own to every node: MonitorIT turns them on
            e.put("FLEETMESH_MONITOR_ENABLED", "false");
            e.putAll(env);
            process = pb.start();
            RUNNING.add(this);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        try {
            awaitReady(READY_TIMEOUT);
        } catch (RuntimeException notReady) {
            // a node that never became ready must not outlive the test (nor its postmaster)
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stopLeftoverPostmasters(dataDir);
            throw notReady;
        }
    }

    /**
     * Restarts the node on the port it had (a restart in place, as an operator's would be), not on a new one: its
     * peers find it where they knew it. The port was just released, so nothing else of ours holds it.
     */
    public synchronized void startAgainOnSamePort() {
        nextPort = port;
        startAgain();
    }

    private static final java.util.regex.Pattern LISTENING = java.util.regex.Pattern
            .compile("Listening on: http://[^\\s:]+:(\\d+)");

    /** The port the node logged it listens on, or 0 while it has not. */
    private int loggedPort() {
        try {
            java.util.regex.Matcher m = LISTENING.matcher(Files.readString(log, StandardCharsets.UTF_8));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (port == 0 && System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue()
                        + " before it was ready; log " + log + ":\n" + logTail(60));
            }
            port = loggedPort();
            if (port == 0) {
                sleep(100);
            }
        }
        HttpRequest ready = HttpRequest.newBuilder(httpUri().resolve("/q/health/ready"))
                .timeout(Duration.ofSeconds(2)).GET().build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue()
                        + " before it was ready; log " + log + ":\n" + logTail(60));
            }
            try {
                HttpResponse<String> r = HTTP.send(ready, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            sleep(200);
        }
        throw new IllegalStateException(name + " was not ready within " + timeout + "; log " + log + ":\n" + logTail(60));
    }

    /** The NIP-11 document's text. */
    public String relayInfo() {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(httpUri())
                    .header("Accept", "application/nostr+json").timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("NIP-11 answered " + r.statusCode());
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int port() {
        return port;
    }

    public URI wsUri() {
        return URI.create("ws://127.0.0.1:" + port + "/");
    }

    public URI httpUri() {
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public String logText() {
        try {
            return log == null ? "" : Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    public String logTail(int lines) {
        String[] all = logText().split("\n");
        StringBuilder sb = new StringBuilder();
        for (int i = Math.max(0, all.length - lines); i < all.length; i++) {
            sb.append(all[i]).append('\n');
        }
        return sb.toString();
    }

    /** Graceful stop (SIGTERM), SIGKILL after 30 s. Returns the exit code. */
    public synchronized int stop() {
        if (process == null) {
            return -1;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code kill -9}: the node gets no chance to clean up (its embedded postmaster survives it). */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " did not die after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The embedded PostgreSQL clusters under the data dir, found by their {@code postmaster.pid}:
     * the pid each file names, whether or not that process still runs.
     */
    public List<Long> postmasterPids() {
        List<Long> pids = new ArrayList<>();
        if (!Files.isDirectory(dataDir)) {
            return pids;
        }
        try (Stream<Path> files = Files.walk(dataDir, 6)) {
            for (Path f : files.filter(f -> f.getFileName().toString().equals("postmaster.pid")).toList()) {
                try {
                    String first = Files.readAllLines(f).stream().findFirst().orElse("").trim();
                    pids.add(Long.parseLong(first));
                } catch (IOException | NumberFormatException e) {
                    // being written or removed right now
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // a cluster directory changed while we walked it
        }
        return pids;
    }

    /** postgresql.conf and postgresql.auto.conf of every cluster under the data dir. */
    public List<Path> clusterConfigFiles() {
        try (Stream<Path> files = Files.walk(dataDir, 6)) {
            return files.filter(f -> f.getFileName().toString().matches("postgresql(\\.auto)?\\.conf")).toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of();
        }
    }

    /** Live postgres server processes whose command line names a directory inside this data dir. */
    public List<ProcessHandle> livePostmasters() {
        return livePostmasters(dataDir);
    }

    static List<ProcessHandle> livePostmasters(Path dataDir) {
        String dir = dataDir.toAbsolutePath().toString();
        return ProcessHandle.allProcesses()
                .filter(ProcessHandle::isAlive)
                .filter(h -> {
                    Optional<String> cmd = h.info().commandLine();
                    return cmd.isPresent() && cmd.get().contains("postgres") && cmd.get().contains(" -D ")
                            && cmd.get().contains(dir) && !cmd.get().contains("pg_ctl");
                })
                .toList();
    }

    /** The pid the node's own {@code postmaster.pid} names, if any such process is alive. */
    public OptionalLong livePostmasterFromPidFile() {
        for (long pid : postmasterPids()) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return OptionalLong.of(pid);
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Stops the node, then any postmaster it left behind in its data dir (only processes this
     * node started: their pid files lie in our own temp data dir).
     */
    @Override
    public synchronized void close() {
        if (process != null && process.isAlive()) {
            stop();
        }
        stopLeftoverPostmasters(dataDir);
        RUNNING.remove(this);
        deleteDataDir(dataDir);
    }

    /**
     * Stops postmasters left running in a data dir that a test created (a killed node's, or a
     * crashed CLI's): only processes whose {@code -D} lies inside that dir.
     */
    public static void stopLeftoverPostmasters(Path dataDir) {
        List<ProcessHandle> leftovers = livePostmasters(dataDir);
        for (ProcessHandle h : leftovers) {
            h.destroy(); // SIGTERM: PostgreSQL's "smart" shutdown
        }
        for (ProcessHandle h : leftovers) {
            try {
                h.onExit().get(15, TimeUnit.SECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
    }

    /** Removes a data dir (the logs stay in target/it-logs) unless -Dmeshnode.it.keep-data=true. */
    public static void deleteDataDir(Path dir) {
        if (Boolean.getBoolean("meshnode.it.keep-data") || !Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete " + dir + ": " + e);
        }
    }

    /** A fresh file under target/it-proc for a child process's output. */
    public static Path outputFile(String prefix, String suffix) {
        try {
            Path dir = targetDir().resolve("it-proc");
            Files.createDirectories(dir);
            return Files.createTempFile(dir, prefix, suffix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Environment for two nodes sharing one external database. */
    public static Map<String, String> externalDatabase(String jdbcUrl, String user) {
        Map<String, String> m = new HashMap<>();
        m.put("QUARKUS_DATASOURCE_JDBC_URL", jdbcUrl);
        m.put("QUARKUS_DATASOURCE_USERNAME", user);
        return m;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return name + "@" + port + " (" + dataDir + ")";
    }

    /** This host's first IPv4 address that is not loopback, if any: to reach a node as a stranger would. */
    static java.util.Optional<java.net.InetAddress> nonLoopbackAddress() throws java.net.SocketException {
        return java.net.NetworkInterface.networkInterfaces().filter(i -> {
            try {
                return i.isUp() && !i.isLoopback();
            } catch (java.net.SocketException x) {
                return false;
            }
        }).flatMap(java.net.NetworkInterface::inetAddresses)
                .filter(a -> a instanceof java.net.Inet4Address && !a.isLoopbackAddress()).findFirst();
    }
}
