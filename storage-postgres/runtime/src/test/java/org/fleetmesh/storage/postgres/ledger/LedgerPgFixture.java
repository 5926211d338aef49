package org.fleetmesh.storage.postgres.ledger;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

import org.fleetmesh.storage.postgres.EmbeddedCluster;
import org.fleetmesh.storage.postgres.Migrations;
import org.fleetmesh.storage.postgres.PostgresStore;
import org.junit.jupiter.api.AfterAll;

import io.agroal.api.AgroalDataSource;

/**
 * One embedded cluster per test class, as PgFixture (package-private, one package up) does it;
 * Flyway runs V1 and V2 on it.
 */
abstract class LedgerPgFixture {
    static EmbeddedCluster cluster;
    static AgroalDataSource pool;
    static PgLedgerStore store;

    static void open(Path dataDir) throws Exception {
        cluster = EmbeddedCluster.start(dataDir);
        pool = PostgresStore.createPool(cluster.jdbcUrl(), cluster.user(), cluster.password(), 4);
        Migrations.migrate(pool);
        store = new PgLedgerStore(pool);
    }

    /** Drops every object: what a killed process leaves behind is only the database. */
    static void closeAll() {
        store = null;
        if (pool != null) {
            pool.close();
            pool = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    @AfterAll
    static void stopCluster() {
        closeAll();
    }

    static void sql(String... statements) throws Exception {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }

    static void truncateLedger() throws Exception {
        sql("truncate ledger_escrow_step, ledger_posting, ledger_escrow, ledger_entry, ledger_account");
    }
}
