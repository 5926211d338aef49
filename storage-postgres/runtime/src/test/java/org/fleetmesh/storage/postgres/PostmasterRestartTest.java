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

            // the dead server's backends leave a moment after it (until then its shared memory is in use, and a
            // start fails: the watch tries again later)
            EmbeddedCluster.Restart r = c.restartIfGone();
            for (int i = 0; i < 20 && r == EmbeddedCluster.Restart.FAILED; i++) {
                Thread.sleep(250);
                r = c.restartIfGone();
            }
            assertEquals(EmbeddedCluster.Restart.STARTED, r);
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

    @Test
    void theWatchRestartsItAndAStartThatFailsIsTriedAgain() throws Exception {
        try (PostgresStorage s = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(), Optional.empty());
                PostmasterWatch w = PostmasterWatch.start(s.cluster().orElseThrow(), Duration.ofMillis(50))) {
            EmbeddedCluster c = s.cluster().get();
            long first = EmbeddedClusterTest.postmasterPid(dir);
            // the port taken while the server is down: its start fails until the port is free again
            ServerSocket squatter;
            synchronized (EmbeddedCluster.class) { // no start between the kill and the bind
                kill9(first);
                squatter = new ServerSocket(c.port(), 1, InetAddress.getByName("127.0.0.1"));
            }
            try (squatter) {
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
