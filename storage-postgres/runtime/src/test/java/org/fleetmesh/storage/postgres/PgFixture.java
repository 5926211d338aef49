package org.fleetmesh.storage.postgres;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** One embedded cluster per test class, in a temporary data dir. */
abstract class PgFixture {
    static final long NOW = 1_700_000_000L;
    /** The connections of {@link #store}'s pool. */
    static final int POOL_SIZE = 4;

    @TempDir
    static Path dataDir;
    static EmbeddedCluster cluster;
    static PostgresStore store;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = EmbeddedCluster.start(dataDir);
        store = PostgresStore.open(cluster.jdbcUrl(), cluster.user(), cluster.password(), POOL_SIZE);
    }

    @AfterAll
    static void stopCluster() {
        if (store != null) {
            store.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Applies the migrations up to and including version {@code target} only (an older schema, for upgrade tests). */
    static void migrateTo(javax.sql.DataSource ds, String target) {
        ClassLoader cl = Migrations.class.getClassLoader();
        org.flywaydb.core.Flyway.configure(cl).dataSource(ds).table(Migrations.HISTORY_TABLE)
                .resourceProvider(new Migrations.ListedResources(cl)).javaMigrationClassProvider(List::of)
                .target(target).load().migrate();
    }

    @FunctionalInterface
    interface OnConnection {
        void run(Connection c) throws Exception;
    }

    /**
     * Holds every connection of {@link #store}'s pool at once and runs {@code action} on each: every backend of the
     * pool exactly once (what a session holds, its settings and prepared statements, is per backend).
     */
    static void onEveryPooledConnection(OnConnection action) throws Exception {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < POOL_SIZE; i++) {
                held.add(store.dataSource().getConnection());
            }
            for (Connection c : held) {
                action.run(c);
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
    }

    static void sql(String... statements) throws Exception {
        try (Connection c = store.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }

    static void truncate() throws Exception {
        sql("truncate event, tag, deleted_event, deleted_address");
    }

    /** Tag rows whose event is gone (the schema has no foreign key: deletes must take them along). */
    static long orphanTags() throws Exception {
        try (Connection c = store.dataSource().getConnection(); Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(
                        "select count(*) from tag t where not exists (select 1 from event e where e.seq = t.event_seq)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static List<EventId> ids(Filter f) {
        return ids(store, f, NOW);
    }

    static List<EventId> ids(PostgresStore s, Filter f, long now) {
        List<EventId> out = new ArrayList<>();
        s.query(f, now, (id, json) -> out.add(id));
        return out;
    }
}
