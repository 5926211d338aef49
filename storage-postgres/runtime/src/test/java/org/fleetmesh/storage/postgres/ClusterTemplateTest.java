package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's fresh cluster copied from the template that holds the shipped schema ({@link ClusterTemplate}). */
class ClusterTemplateTest {
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    /** Makes sure this machine has recorded zonky's binaries (a start through zonky when it has not). */
    private void machineRecorded() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(dir.resolve("first"))) {
            assertTrue(c.owner());
        }
        assertTrue(DirectPostmaster.machineBin().isPresent());
    }

    private static String query(EmbeddedCluster c, String sql) throws Exception {
        try (java.sql.Connection conn = java.sql.DriverManager.getConnection(c.jdbcUrl(), c.user(), c.password());
                java.sql.Statement st = conn.createStatement(); java.sql.ResultSet rs = st.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    @Test
    void aNodesFreshClusterIsACopyOfTheTemplateWithItsOwnPasswordAndTheShippedSchema() throws Exception {
        machineRecorded();
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Event e = Ev.ev(Ev.author(), EmbeddedClusterTest.NOW - 1, 1, "stored in a copy");
        try (PostgresStorage s = PostgresStorage.openFromConfig(a, Optional.empty(), Optional.empty(), Optional.empty())) {
            assertEquals(List.of(SaveOutcome.STORED), s.save(List.of(e)));
        }
        Path template = ClusterTemplate.templateDir(DirectPostmaster.workingDir(), DirectPostmaster.machineBin().get());
        assertTrue(Files.isRegularFile(template.resolve(ClusterTemplate.MANIFEST)), "the template is kept: " + template);
        assertFalse(Files.exists(template.resolve("password")), "the template keeps no password");
        try (PostgresStorage s = PostgresStorage.openFromConfig(b, Optional.empty(), Optional.empty(), Optional.empty())) {
            assertEquals(0, EmbeddedClusterTest.countIds(s.store(), e.id()), "a copy of the template, not of a");
        }
        try (EmbeddedCluster ca = EmbeddedCluster.start(a); EmbeddedCluster cb = EmbeddedCluster.start(b)) {
            // initdb gives every cluster its own system identifier: the same one in both is a copy of one cluster
            String sysA = query(ca, "select system_identifier from pg_control_system()");
            assertEquals(sysA, query(cb, "select system_identifier from pg_control_system()"), "both copied");
            // the schema came with the copy: Flyway's history of every shipped migration, and nothing is pending
            assertEquals(Integer.toString(Migrations.FILES.size()),
                    query(cb, "select count(*) from " + Migrations.HISTORY_TABLE + " where success"));
            try (io.agroal.api.AgroalDataSource ds = PostgresStore.createPool(cb.jdbcUrl(), cb.user(), cb.password(), 2)) {
                assertTrue(Migrations.upToDate(ds));
            }
            // each its own password (the data dir's key file), SCRAM only, nothing trusted
            assertNotEquals(ca.password(), cb.password());
            EmbeddedClusterTest.assertRefused(cb, ca.password());
            EmbeddedClusterTest.assertRefused(cb, null);
            assertTrue(query(cb, "select rolpassword from pg_authid where rolname = 'postgres'").startsWith("SCRAM-SHA-256$"));
            assertTrue(EmbeddedCluster.isSecured(b.resolve("pg")));
            assertEquals("C", query(cb, "show lc_collate"));
            assertEquals("UTF8", query(cb, "show server_encoding"));
            assertEquals("on", query(cb, "show fsync"));
        }
        // a cluster for other code (no schema asked for) is still initdb's own
        try (EmbeddedCluster plain = EmbeddedCluster.start(dir.resolve("plain"));
                EmbeddedCluster ca = EmbeddedCluster.start(a)) {
            assertNotEquals(query(ca, "select system_identifier from pg_control_system()"),
                    query(plain, "select system_identifier from pg_control_system()"));
            assertEquals("0", query(plain, "select count(*) from pg_tables where tablename = '" + Migrations.HISTORY_TABLE + "'"));
        }
    }

    @Test
    void twoMakeItAtOnceBothGetAWorkingCopyAndAnIncompleteTemplateIsRemoved() throws Exception {
        machineRecorded();
        Path work = dir.resolve("embedded-pg");
        Path x = Files.createDirectories(dir.resolve("x"));
        Path y = Files.createDirectories(dir.resolve("y"));
        String px = "11".repeat(32);
        String py = "22".repeat(32);
        CompletableFuture<Boolean> fx = CompletableFuture.supplyAsync(
                () -> ClusterTemplate.copyInto(x, x.resolve("pg"), px, WAIT, work));
        CompletableFuture<Boolean> fy = CompletableFuture.supplyAsync(
                () -> ClusterTemplate.copyInto(y, y.resolve("pg"), py, WAIT, work));
        assertTrue(fx.get(), "x has a copy");
        assertTrue(fy.get(), "y has a copy");
        try (Stream<Path> left = Files.list(work)) {
            assertEquals(1, left.count(), "one template, no work directory left behind");
        }
        for (Object[] c : new Object[][] { { x, px, py }, { y, py, px } }) {
            Path key = ((Path) c[0]).resolve(EmbeddedCluster.PASSWORD_FILE);
            Files.writeString(key, (String) c[1] + "\n");
            Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            try (EmbeddedCluster cluster = EmbeddedCluster.start((Path) c[0])) {
                assertEquals(c[1], cluster.password());
                assertEquals("1", query(cluster, "select 1"), "its own password opens it");
                EmbeddedClusterTest.assertRefused(cluster, (String) c[2]);
            }
        }

        // a file removed from the template (a cleaner of the temporary directory): the copy is refused and the
        // template removed, so the next fresh cluster makes it again
        Path template = ClusterTemplate.templateDir(work, DirectPostmaster.machineBin().get());
        Files.delete(template.resolve("pg/global/pg_control"));
        Path z = Files.createDirectories(dir.resolve("z"));
        assertFalse(ClusterTemplate.copyInto(z, z.resolve("pg"), px, WAIT, work));
        assertFalse(Files.exists(template), "the broken template is gone");
        assertFalse(Files.exists(z.resolve("pg.copy")), "nothing of the refused copy is left");
        try (Stream<Path> left = Files.list(z)) {
            assertEquals(List.of(), left.map(p -> p.getFileName().toString()).filter(n -> !n.equals("postgres.log")).toList());
        }
        Files.createDirectories(z.resolve("pg"));
        // what a start killed during its copy left beside pg: removed, and the copy made again
        Files.createDirectories(z.resolve("pg.copy/base"));
        Files.writeString(z.resolve("pg.copy/PG_VERSION"), "14\n");
        assertTrue(ClusterTemplate.copyInto(z, z.resolve("pg"), px, WAIT, work), "made again");
        assertTrue(Files.isRegularFile(z.resolve("pg/global/pg_control")));
        assertFalse(Files.exists(z.resolve("pg.copy")), "the copy became pg");
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"),
                Files.getPosixFilePermissions(z.resolve("pg")), "PostgreSQL's mode for a data directory");

        // a directory that is not empty is not copied over
        Path full = Files.createDirectories(dir.resolve("full/pg"));
        Files.writeString(full.resolve("mine"), "x");
        assertFalse(ClusterTemplate.copyInto(full.getParent(), full, px, WAIT, work));
        assertEquals("x", Files.readString(full.resolve("mine")));
    }
}
