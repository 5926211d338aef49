package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running node's embedded postmaster that dies alone (the OOM killer, {@code kill -9}) is started again by the node,
 * on the same port, with every committed event there; a node that is stopping never starts it again.
 */
class PostmasterRestartTest {
    @TempDir
    Path dir;

    private static void kill9(long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (EmbeddedCluster.isAlive(pid) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(EmbeddedCluster.isAlive(pid), "the postmaster died");
    }

    /**
     * Saves, again while the pool replaces the connections the dead server left: each fails one save ({@code FAILED},
     * nothing committed) and is dropped, so a pool of n connections fails at most n saves.
     */
    private static List<SaveOutcome> saveSoon(PostgresStorage s, Event e) throws Exception {
        List<SaveOutcome> r = List.of();
        for (int i = 0; i <= PostgresStorage.DEFAULT_POOL_SIZE; i++) {
            r = s.save(List.of(e));
            if (!r.equals(List.of(SaveOutcome.FAILED))) {
                return r;
            }
        }
        return r;
    }

    static String tail(Path log) {
        try {
            List<String> l = java.nio.file.Files.readAllLines(log);
            return String.join("\n", l.subList(Math.max(0, l.size() - 12), l.size()));
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    @Test
    void aKilledPostmasterIsStartedAgainOnItsPortWithItsData() throws Exception {
        Event before = Ev.ev(Ev.author(), EmbeddedClusterTest.NOW - 2, 1, "committed before the kill");
        Event after = Ev.ev(Ev.author(), EmbeddedClusterTest.NOW - 1, 1, "after the restart");
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty())) {
            EmbeddedCluster c = s.cluster().orElseThrow();
            assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(before)));
            assertEquals(EmbeddedCluster.Restart.RUNNING, c.restartIfGone(), "nothing to do while it runs");
            long pid = EmbeddedClusterTest.postmasterPid(dir);
            kill9(pid);
            assertFalse(c.postmasterRunning());

            // what the dead server left attached to its shared memory is killed first (an orphaned autovacuum
            // launcher lingered for many seconds here); a start that fails all the same is tried again, as the watch does
            EmbeddedCluster.Restart r = c.restartIfGone();
            for (int i = 0; i < 8 && r == EmbeddedCluster.Restart.FAILED; i++) {
                Thread.sleep(250);
                r = c.restartIfGone();
            }
            assertEquals(EmbeddedCluster.Restart.STARTED, r, () -> "postgres.log ends:\n" + tail(dir.resolve("postgres.log")));
            assertTrue(c.postmasterRunning());
            EmbeddedCluster.PidFile pf = EmbeddedCluster.readPidFile(dir.resolve("pg")).orElseThrow();
            assertNotEquals(pid, pf.pid());
            assertEquals(c.port(), pf.port(), "on the port every connection of the node names");
            assertEquals(1, EmbeddedClusterTest.postmastersOf(dir.resolve("pg")));

            assertEquals(List.of(SaveOutcome.STORED), saveSoon(s, after));
            assertEquals(1, EmbeddedClusterTest.countIds(s.store(), before.id()), "committed before the kill");
            assertEquals(1, EmbeddedClusterTest.countIds(s.store(), after.id()));
            assertEquals(EmbeddedCluster.Restart.RUNNING, c.restartIfGone());
        }
        assertEquals(0, EmbeddedClusterTest.postmastersOf(dir.resolve("pg")), "stopped with the node");
    }

    /**
     * After the watch started the postmaster again, the node drops its pooled connections (all open on the dead
     * server): the very first write succeeds. Before, each connection used in the last 10 s (not validated on borrow)
     * failed one more read or write with an I/O error before the pool found it dead.
     */
    @Test
    void afterARestartTheFirstWriteSucceedsOnAFreshConnection() throws Exception {
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty());
                PostmasterWatch w = PostmasterWatch.start(s.cluster().orElseThrow(), Duration.ofMillis(50),
                        s::dropConnections)) {
            for (int i = 0; i < 3; i++) { // pooled connections, used moments ago
                assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(Ev.ev(Ev.author(), EmbeddedClusterTest.NOW - 10
                        + i, 1, "before " + i))));
            }
            kill9(EmbeddedClusterTest.postmasterPid(dir));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (w.restarts() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, w.restarts());
            Event after = Ev.ev(Ev.author(), EmbeddedClusterTest.NOW - 1, 1, "the first write after the restart");
            assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(after)), "on the first try");
        }
    }

    @Test
    void theWatchRestartsItAndAStartThatFailsIsTriedAgain() throws Exception {
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty());
                PostmasterWatch w = PostmasterWatch.start(s.cluster().orElseThrow(), Duration.ofMillis(50))) {
            EmbeddedCluster c = s.cluster().get();
            long first = EmbeddedClusterTest.postmasterPid(dir);
            // the port taken while the server is down: its start fails until the port is free again
            ServerSocket squatter;
            ServerSocket squatter6 = null;
            synchronized (EmbeddedCluster.class) { // no start between the kill and the bind
                kill9(first);
                squatter = new ServerSocket(c.port(), 1, InetAddress.getByName("127.0.0.1"));
                try { // where localhost is ::1 too, PostgreSQL would start on that one alone
                    squatter6 = new ServerSocket(c.port(), 1, InetAddress.getByName("::1"));
                } catch (java.io.IOException noIpv6) {
                    // no IPv6 loopback here
                }
            }
            try (squatter; ServerSocket s6 = squatter6) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (w.failedInARow() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(w.failedInARow() >= 2, "failed starts: " + w.failedInARow());
                assertEquals(EmbeddedCluster.Restart.FAILED, w.last());
                assertEquals(0, w.restarts());
                assertFalse(c.postmasterRunning());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (w.restarts() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(1, w.restarts(), "started again once the port was free");
            assertEquals(0, w.failedInARow());
            assertTrue(c.postmasterRunning());
            assertEquals(List.of(SaveOutcome.STORED),
                    saveSoon(s, Ev.ev(Ev.author(), EmbeddedClusterTest.NOW - 1, 1, "after the watch's restart")));
        }
        assertEquals(0, EmbeddedClusterTest.postmastersOf(dir.resolve("pg")));
    }

    /**
     * A CLI command attaching while the postmaster is down does not hold the start lock while it waits for one: the
     * relay starts it again, and the command is served by it. Before, the command held the lock for up to 120 s and
     * the restart waited behind it.
     */
    @Test
    void aCommandAttachingWhileThePostmasterIsDownDoesNotHoldUpItsRestart() throws Exception {
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty());
                PostmasterWatch w = PostmasterWatch.start(s.cluster().orElseThrow(), Duration.ofMillis(50))) {
            long first = EmbeddedClusterTest.postmasterPid(dir);
            Process cli;
            synchronized (EmbeddedCluster.class) { // no restart before the command waits for a postmaster
                kill9(first);
                String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                cli = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                        "-Djava.util.logging.manager=org.jboss.logmanager.LogManager", ClusterUser.class.getName(),
                        dir.toString()).redirectErrorStream(true).start();
                Thread.sleep(3000); // the command's JVM starts and joins the cluster
            }
            try {
                java.io.BufferedReader out = new java.io.BufferedReader(
                        new java.io.InputStreamReader(cli.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
                java.util.concurrent.CompletableFuture<String> ready = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        for (String line; (line = out.readLine()) != null;) {
                            if (line.startsWith("READY")) {
                                return line;
                            }
                        }
                        return "exited";
                    } catch (java.io.IOException e) {
                        return e.toString();
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (w.restarts() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertEquals(1, w.restarts(), "started again while the command waited");
                assertEquals("READY false", ready.get(30, TimeUnit.SECONDS), "the command attached to it");
                cli.getOutputStream().write("exit\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                cli.getOutputStream().flush();
                assertTrue(cli.waitFor(30, TimeUnit.SECONDS));
                assertTrue(s.cluster().get().postmasterRunning(), "the command left it running for the node");
            } finally {
                cli.destroyForcibly();
            }
        }
        assertEquals(0, EmbeddedClusterTest.postmastersOf(dir.resolve("pg")));
    }

    /** A node stopping while a restart waits for the server: the restart gives up and stops what it started. */
    @Test
    void aStopDuringARestartEndsIt() throws Exception {
        EmbeddedCluster c = EmbeddedCluster.start(dir);
        long first = EmbeddedClusterTest.postmasterPid(dir);
        kill9(first);
        // a restart that takes long: the first start after the kill waits for the dead server's backends at most
        // briefly; here the close comes while restartIfGone is under way on another thread
        java.util.concurrent.CompletableFuture<EmbeddedCluster.Restart> restart = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> {
                    try {
                        return c.restartIfGone();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
        Thread.sleep(5);
        c.close();
        EmbeddedCluster.Restart r = restart.get(60, TimeUnit.SECONDS);
        assertTrue(r == EmbeddedCluster.Restart.CLOSED || r == EmbeddedCluster.Restart.STARTED
                || r == EmbeddedCluster.Restart.FAILED, r.toString());
        assertEquals(EmbeddedCluster.Restart.CLOSED, c.restartIfGone());
        assertEquals(0, EmbeddedClusterTest.postmastersOf(dir.resolve("pg")), "nothing left running after the close");
    }

    /** The socket lock a dead postmaster left (PostgreSQL keeps it when its pid is a zombie) is removed; others stay. */
    @Test
    void aDeadPostmastersSocketLockIsRemoved() throws Exception {
        Path pg = java.nio.file.Files.createDirectories(dir.resolve("pg"));
        Path sockets = java.nio.file.Files.createDirectories(dir.resolve("sockets"));
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        java.nio.file.Files.writeString(pg.resolve("postmaster.pid"), gone.pid() + "\n" + pg + "\n0\n45678\n" + sockets
                + "\nlocalhost\n  1 2\nready\n");
        Path lock = sockets.resolve(".s.PGSQL.45678.lock");
        java.nio.file.Files.writeString(lock, gone.pid() + "\n" + pg + "\n");
        Path other = sockets.resolve(".s.PGSQL.45679.lock");
        java.nio.file.Files.writeString(other, gone.pid() + "\n" + pg + "\n");
        EmbeddedCluster.removeStaleSocketLock(pg);
        assertFalse(java.nio.file.Files.exists(lock), "the dead postmaster's socket lock");
        assertTrue(java.nio.file.Files.exists(other), "another port's");
        // a lock naming a live process stays
        java.nio.file.Files.writeString(pg.resolve("postmaster.pid"), ProcessHandle.current().pid() + "\n" + pg
                + "\n0\n45679\n" + sockets + "\nlocalhost\n  1 2\nready\n");
        java.nio.file.Files.writeString(other, ProcessHandle.current().pid() + "\n" + pg + "\n");
        EmbeddedCluster.removeStaleSocketLock(pg);
        assertTrue(java.nio.file.Files.exists(other), "a live pid's");
    }

    @Test
    void aClosedClusterIsNotStartedAgain() throws Exception {
        EmbeddedCluster c = EmbeddedCluster.start(dir);
        PostmasterWatch w = PostmasterWatch.start(c, Duration.ofMillis(20));
        try {
            c.close(); // the node stops: the last user stops the postmaster
            Thread.sleep(500); // many looks of the watch
            assertEquals(EmbeddedCluster.Restart.CLOSED, c.restartIfGone());
            assertEquals(0, w.restarts());
            assertEquals(0, EmbeddedClusterTest.postmastersOf(dir.resolve("pg")));
            assertFalse(c.postmasterRunning());
        } finally {
            w.close();
        }
    }

    /** A postmaster asked to shut down (SIGTERM) still runs: no second one is started beside it. */
    @Test
    void aPostmasterShuttingDownIsLeftAlone() throws Exception {
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty());
                java.sql.Connection held = s.dataSource().getConnection()) {
            EmbeddedCluster c = s.cluster().orElseThrow();
            long pid = EmbeddedClusterTest.postmasterPid(dir);
            assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(pid)).start().waitFor());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!c.postmasterStopping() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(c.postmasterStopping());
            assertEquals(EmbeddedCluster.Restart.RUNNING, c.restartIfGone());
            assertEquals(pid, EmbeddedClusterTest.postmasterPid(dir));
        }
    }
}
