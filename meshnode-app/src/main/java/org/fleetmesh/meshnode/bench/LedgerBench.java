package org.fleetmesh.meshnode.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Optional;

import org.fleetmesh.spi.settlement.JournalEntry;
import org.fleetmesh.spi.settlement.Posting;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.fleetmesh.storage.postgres.ledger.PgLedgerStore;

/**
 * Ledger postings per second on a fresh embedded PostgreSQL (fsync on), one thread, one durable
 * transaction per journal entry, next to the rate of bare one-row durable commits on the same
 * database (the floor any durable ledger write pays).
 */
public final class LedgerBench {

    public static void main(String[] args) throws Exception {
        Args a = new Args(args, "--entries");
        int n = a.getInt("--entries", 5000);
        Path dir = Files.createTempDirectory("fleetmesh-ledger-bench");
        try (PostgresStorage storage = PostgresStorage.openFromConfig(dir, Optional.empty(), Optional.empty(),
                Optional.empty())) {
            PgLedgerStore ledger = new PgLedgerStore(storage.dataSource());
            double commits = bareCommits(storage, n);
            for (int i = 0; i < 1000; i++) { // warm-up
                ledger.post(JournalEntry.of("warm-" + i, Posting.debit("peer:warm:receivable", 1000),
                        Posting.credit("income", 1000)));
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                ledger.post(JournalEntry.of("bench-" + i, Posting.debit("peer:p" + (i % 50) + ":receivable", 1000 + i),
                        Posting.credit("income", 1000 + i)));
            }
            double entries = n / ((System.nanoTime() - t0) / 1e9);
            System.err.printf("bare durable commits %,.0f/s; ledger entries %,.0f/s (%,.0f postings/s)%n", commits, entries,
                    2 * entries);
            System.out.printf("{\"entries\":%d,\"entries_per_s\":%.0f,\"postings_per_s\":%.0f,\"bare_commits_per_s\":%.0f,"
                    + "\"ratio\":%.2f}%n", n, entries, 2 * entries, commits, entries / commits);
        }
    }

    static double bareCommits(PostgresStorage storage, int n) throws Exception {
        try (Connection c = storage.dataSource().getConnection()) {
            c.setAutoCommit(true);
            // a regular table: temp tables skip the WAL, which would not be a fair floor
            try (var s = c.createStatement()) {
                s.execute("create table if not exists bench_commit_floor (n int)");
            }
            try (PreparedStatement ps = c.prepareStatement("insert into bench_commit_floor values (?)")) {
                for (int i = 0; i < 500; i++) {
                    ps.setInt(1, i);
                    ps.executeUpdate();
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    ps.setInt(1, i);
                    ps.executeUpdate();
                }
                return n / ((System.nanoTime() - t0) / 1e9);
            }
        }
    }
}
