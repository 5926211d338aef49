package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

/** The start-time shortcut past Flyway on an up-to-date schema, against Flyway's own history on a real cluster. */
class MigrationsFastPathTest extends PgFixture {

    private static DataSource ds() {
        return store.dataSource();
    }

    @Test
    void ourChecksumIsFlywaysForEveryShippedMigration() throws Exception {
        Map<String, Integer> flyway = new HashMap<>();
        try (Connection c = ds().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select version, checksum from " + Migrations.HISTORY_TABLE + " where version is not null")) {
            while (rs.next()) {
                flyway.put(rs.getString(1), rs.getInt(2));
            }
        }
        assertEquals(Migrations.FILES.size(), flyway.size());
        for (String f : Migrations.FILES) {
            String version = f.substring(1, f.indexOf("__"));
            assertEquals(flyway.get(version), Migrations.checksum(f), f);
        }
        assertTrue(Migrations.upToDate(ds()), "the schema the store just migrated is up to date");
        assertEquals(0, Migrations.migrate(ds()));
    }

    @Test
    void anEditedMigrationStillReachesFlywaysValidation() throws Exception {
        sql("update " + Migrations.HISTORY_TABLE + " set checksum = checksum + 1 where version = '3'");
        try {
            assertFalse(Migrations.upToDate(ds()));
            // Flyway, not the shortcut, answers: its validation refuses the mismatch
            assertThrows(RuntimeException.class, () -> Migrations.migrate(ds()));
        } finally {
            sql("update " + Migrations.HISTORY_TABLE + " set checksum = checksum - 1 where version = '3'");
        }
        assertTrue(Migrations.upToDate(ds()));
    }

    /** A database a newer build migrated is refused with the reason, before anything serves on it. */
    @Test
    void aDatabaseAtANewerVersionIsRefused() throws Exception {
        sql("create table history_copy as select * from " + Migrations.HISTORY_TABLE,
                "insert into " + Migrations.HISTORY_TABLE + " select installed_rank + 100, '14', 'next', type,"
                        + " 'V14__next.sql', 1, installed_by, installed_on, execution_time, success from history_copy"
                        + " where version = '1'");
        try {
            assertEquals(14, Migrations.appliedVersion(ds()));
            for (boolean shared : new boolean[] { false, true }) {
                Migrations.SchemaVersionException e = assertThrows(Migrations.SchemaVersionException.class,
                        () -> Migrations.migrate(ds(), shared));
                assertTrue(e.getMessage().startsWith("the database is at schema version 14, newer than this build's "
                        + Migrations.shippedVersion()), e.getMessage());
            }
        } finally {
            sql("delete from " + Migrations.HISTORY_TABLE + " where version = '14'", "drop table history_copy");
        }
        assertTrue(Migrations.upToDate(ds()));
    }

    /**
     * Attached to a cluster another process uses, a schema behind this build's is not migrated under it (an older
     * node would break): refused once it has not caught up within the wait; one that catches up meanwhile (this
     * build migrating it in the other process) is taken.
     */
    @Test
    void aSharedClusterBehindThisBuildIsNotMigratedUnderItsOtherUser() throws Exception {
        int shipped = Migrations.shippedVersion();
        sql("create table history_copy as select * from " + Migrations.HISTORY_TABLE,
                "delete from " + Migrations.HISTORY_TABLE + " where version = '" + shipped + "'");
        try {
            assertEquals(shipped - 1, Migrations.appliedVersion(ds()));
            Migrations.SchemaVersionException e = assertThrows(Migrations.SchemaVersionException.class,
                    () -> Migrations.migrate(ds(), true, java.time.Duration.ofMillis(300)));
            assertTrue(e.getMessage().startsWith("the database is at schema version " + (shipped - 1)
                    + " and this build needs " + shipped + ", but another process"), e.getMessage());
            Thread restore = new Thread(() -> {
                try {
                    sql("insert into " + Migrations.HISTORY_TABLE + " select * from history_copy where version = '"
                            + shipped + "'");
                } catch (Exception x) {
                    throw new IllegalStateException(x);
                }
            });
            java.util.concurrent.CompletableFuture<Integer> waiting = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> Migrations.migrate(ds(), true, java.time.Duration.ofSeconds(30)));
            Thread.sleep(500);
            assertFalse(waiting.isDone(), "it waits for the other process's migration");
            restore.start();
            assertEquals(0, waiting.get(30, java.util.concurrent.TimeUnit.SECONDS));
        } finally {
            sql("delete from " + Migrations.HISTORY_TABLE, "insert into " + Migrations.HISTORY_TABLE
                    + " select * from history_copy", "drop table history_copy");
        }
        assertTrue(Migrations.upToDate(ds()));
        assertEquals(0, Migrations.migrate(ds(), true));
    }

    @Test
    void aFailedOrMissingOrFutureVersionIsNotUpToDate() throws Exception {
        sql("update " + Migrations.HISTORY_TABLE + " set success = false where version = '11'");
        try {
            assertFalse(Migrations.upToDate(ds()));
        } finally {
            sql("update " + Migrations.HISTORY_TABLE + " set success = true where version = '11'");
        }
        sql("create table history_copy as select * from " + Migrations.HISTORY_TABLE,
                "delete from " + Migrations.HISTORY_TABLE + " where version = '11'");
        try {
            assertFalse(Migrations.upToDate(ds()), "a pending migration");
        } finally {
            sql("delete from " + Migrations.HISTORY_TABLE, "insert into " + Migrations.HISTORY_TABLE + " select * from history_copy");
        }
        sql("insert into " + Migrations.HISTORY_TABLE + " select installed_rank + 100, '99', 'future', type, 'V99__future.sql',"
                + " 1, installed_by, installed_on, execution_time, success from history_copy where version = '1'");
        try {
            assertFalse(Migrations.upToDate(ds()), "a version from a newer node");
        } finally {
            sql("delete from " + Migrations.HISTORY_TABLE + " where version = '99'", "drop table history_copy");
        }
        assertTrue(Migrations.upToDate(ds()));
    }

    @Test
    void aDatabaseWithoutHistoryIsNotUpToDate() throws Exception {
        sql("create schema if not exists empty_schema");
        try (Connection c = ds().getConnection(); Statement s = c.createStatement()) {
            s.execute("set search_path = empty_schema");
            DataSource one = new SingleConnection(c);
            assertFalse(Migrations.upToDate(one));
            s.execute("reset search_path");
        }
    }

    /** A data source handing out one (already open) connection; closing it is a no-op for the test. */
    private record SingleConnection(Connection c) implements DataSource {
        @Override
        public Connection getConnection() {
            return (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] { Connection.class }, (p, m, a) -> m.getName().equals("close") ? null : m.invoke(c, a));
        }

        @Override
        public Connection getConnection(String u, String p) {
            return getConnection();
        }

        @Override
        public java.io.PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(java.io.PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public java.util.logging.Logger getParentLogger() {
            return java.util.logging.Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
