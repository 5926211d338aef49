package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The node's connections to its embedded cluster over the cluster's Unix-domain socket ({@link LocalSocketFactory}). */
class LocalSocketTest {
    @TempDir
    static Path dir;
    static EmbeddedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = EmbeddedCluster.start(dir);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static Connection connect(String url, String... props) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", cluster.user());
        p.setProperty("password", cluster.password());
        for (int i = 0; i < props.length; i += 2) {
            p.setProperty(props[i], props[i + 1]);
        }
        return DriverManager.getConnection(url, p);
    }

    private static String tcpUrl() {
        return "jdbc:postgresql://localhost:" + cluster.port() + "/" + EmbeddedCluster.DATABASE;
    }

    private static boolean overUnixSocket(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select inet_client_addr() is null")) {
            assertTrue(rs.next());
            return rs.getBoolean(1); // no client address: a Unix-domain connection
        }
    }

    @Test
    void theNodesUrlConnectsThroughTheClustersSocketAndStillNeedsThePassword() throws Exception {
        Path socket = cluster.localSocket().orElseThrow(() -> new AssertionError("no socket found"));
        assertEquals(".s.PGSQL." + cluster.port(), socket.getFileName().toString());
        assertTrue(cluster.jdbcUrl().contains("socketFactory=" + LocalSocketFactory.class.getName()), cluster.jdbcUrl());
        try (Connection c = connect(cluster.jdbcUrl())) {
            assertTrue(overUnixSocket(c), "the node's URL goes through the socket");
        }
        try (Connection c = connect(tcpUrl())) {
            assertFalse(overUnixSocket(c), "the control: the plain URL is loopback TCP");
        }
        Properties wrong = new Properties();
        wrong.setProperty("user", cluster.user());
        wrong.setProperty("password", "not the password");
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(cluster.jdbcUrl(), wrong));
        assertEquals("28P01", e.getSQLState(), "SCRAM on the local socket too: " + e);
    }

    @Test
    void largeResultsArriveWhole() throws Exception {
        try (Connection c = connect(cluster.jdbcUrl()); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select md5(repeat('fleetmesh', 1000000)), repeat('fleetmesh', 1000000)")) {
                assertTrue(rs.next());
                String big = rs.getString(2);
                assertEquals(9_000_000, big.length());
                assertEquals(rs.getString(1), md5(big));
            }
            try (ResultSet rs = s.executeQuery("select g, sha256(int8send(g)) from generate_series(1, 100000) g")) {
                long n = 0;
                while (rs.next()) {
                    n++;
                    assertEquals(n, rs.getLong(1));
                    assertArrayEquals(sha256(n), rs.getBytes(2));
                }
                assertEquals(100_000, n);
            }
        }
    }

    @Test
    void aQueryTimeoutCancelsThroughTheSocketAndTheConnectionStaysUsable() throws Exception {
        try (Connection c = connect(cluster.jdbcUrl()); Statement s = c.createStatement()) {
            s.setQueryTimeout(1);
            long t0 = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("select pg_sleep(30)"));
            assertEquals("57014", e.getSQLState(), "cancelled by the driver's cancel request: " + e);
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "cancelled, not run to its end");
            s.setQueryTimeout(0);
            try (ResultSet rs = s.executeQuery("select 41 + 1")) {
                assertTrue(rs.next());
                assertEquals(42, rs.getInt(1));
            }
        }
    }

    @Test
    void aReadTimeoutIsASocketTimeoutAsOverTcp() throws Exception {
        try (Connection c = connect(cluster.jdbcUrl(), "socketTimeout", "1"); Statement s = c.createStatement()) {
            long t0 = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("select pg_sleep(30)"));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "the read gave up at its timeout");
            assertTrue(hasCause(e, java.net.SocketTimeoutException.class), "a read timeout: " + e);
            assertTrue(c.isClosed(), "the driver closes a connection whose read timed out");
        }
    }

    @Test
    void notificationsWaitWithATimeoutAndArrive() throws Exception {
        try (Connection listener = connect(cluster.jdbcUrl()); Connection sender = connect(cluster.jdbcUrl());
                Statement l = listener.createStatement(); Statement n = sender.createStatement()) {
            l.execute("listen local_socket_test");
            PGConnection pg = listener.unwrap(PGConnection.class);
            long t0 = System.nanoTime();
            PGNotification[] none = pg.getNotifications(200);
            long waited = System.nanoTime() - t0;
            assertTrue(none == null || none.length == 0, "nothing sent yet");
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(150), "waited for its timeout: " + waited / 1_000_000 + " ms");
            assertTrue(pg.getNotifications(-1) == null || pg.getNotifications(-1).length == 0, "a non-blocking check");
            CompletableFuture<PGNotification[]> got = CompletableFuture.supplyAsync(() -> {
                try {
                    return pg.getNotifications(10_000);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(100);
            n.execute("notify local_socket_test, 'hello'");
            PGNotification[] one = got.get(20, TimeUnit.SECONDS);
            assertEquals(1, one.length);
            assertEquals("hello", one[0].getParameter());
            try (ResultSet rs = l.executeQuery("select 7")) { // usable after the timed reads
                assertTrue(rs.next());
                assertEquals(7, rs.getInt(1));
            }
        }
    }

    @Test
    void theSocketIsChosenFromThePidFileAndCanBeTurnedOff(@TempDir Path pg) throws Exception {
        Path pgDir = dir.resolve(EmbeddedCluster.PG_DIR);
        int port = cluster.port();
        assertEquals(cluster.localSocket().orElseThrow(), EmbeddedCluster.localSocket(pgDir, port, null));
        assertNull(EmbeddedCluster.localSocket(pgDir, port, "off"), "the operator's switch");
        assertNull(EmbeddedCluster.localSocket(pgDir, port + 1, null), "no socket for that port");
        assertNull(EmbeddedCluster.localSocket(pg, port, null), "no postmaster.pid");
        Path longDir = Files.createDirectories(pg.resolve("d".repeat(120)));
        Files.createFile(longDir.resolve(".s.PGSQL." + port));
        Files.writeString(pg.resolve("postmaster.pid"), "1\n" + pg + "\n1\n" + port + "\n" + longDir + "\nlocalhost\n");
        assertNull(EmbeddedCluster.localSocket(pg, port, null), "a path longer than a socket address holds");
        Files.writeString(pg.resolve("postmaster.pid"), "1\n" + pg + "\n1\n" + port + "\n\nlocalhost\n");
        assertNull(EmbeddedCluster.localSocket(pg, port, null), "no socket directory (unix_socket_directories='')");
    }

    @Test
    void aThreadThatCarriesAnInterruptKeepsItsConnectionAndItsFlag() throws Exception {
        try (Connection c = connect(cluster.jdbcUrl()); Statement s = c.createStatement()) {
            Thread.currentThread().interrupt();
            try (ResultSet rs = s.executeQuery("select 6 * 7")) {
                assertTrue(rs.next());
                assertEquals(42, rs.getInt(1));
            } finally {
                assertTrue(Thread.interrupted(), "the flag is restored (and cleared here)");
            }
            assertFalse(c.isClosed());
            try (ResultSet rs = s.executeQuery("select 1")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void aStatementLargerThanTheSocketsBufferIsWrittenWhole() throws Exception {
        String big = "fleetmesh ".repeat(2_000_000); // 20 MB: the write waits for room many times
        try (Connection c = connect(cluster.jdbcUrl());
                java.sql.PreparedStatement ps = c.prepareStatement("select length(?), md5(?)")) {
            ps.setString(1, big);
            ps.setString(2, big);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertEquals(big.length(), rs.getInt(1));
                assertEquals(md5(big), rs.getString(2));
            }
        }
    }

    @Test
    void anInterruptWhileWaitingForTheServerNeitherEndsTheWaitNorTheConnection() throws Exception {
        try (Connection c = connect(cluster.jdbcUrl()); Statement s = c.createStatement()) {
            Thread reader = Thread.currentThread();
            java.util.concurrent.ScheduledExecutorService later = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            try {
                later.schedule(reader::interrupt, 200, TimeUnit.MILLISECONDS);
                try (ResultSet rs = s.executeQuery("select pg_sleep(0.6), 5")) {
                    assertTrue(rs.next());
                    assertEquals(5, rs.getInt(2), "the statement ran to its end, as over TCP");
                } finally {
                    assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
                }
            } finally {
                later.shutdownNow();
            }
            try (ResultSet rs = s.executeQuery("select 1")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void theFactoryNeedsAPath() {
        assertThrows(IllegalArgumentException.class, () -> new LocalSocketFactory(new Properties()));
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static String md5(String s) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5")
                .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private static byte[] sha256(long n) throws Exception {
        return java.security.MessageDigest.getInstance("SHA-256")
                .digest(java.nio.ByteBuffer.allocate(8).putLong(n).array());
    }
}
