package org.fleetmesh.storage.postgres.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.fleetmesh.spi.settlement.Accounts;
import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write-ahead across a real crash: a child JVM commits escrow steps and leaves a transaction open
 * halfway through an unbalanced change; the backend holding that transaction is killed with
 * SIGKILL (PostgreSQL's crash recovery resets every backend), then the postmaster and the child
 * are, and a fresh process on the same data dir finds every committed step, none of the open
 * transaction, balanced books and the escrow still to be followed up.
 */
class PgLedgerCrashTest extends LedgerPgFixture {

    @TempDir
    Path dataDir;

    @Test
    void committedStepsSurviveKillNineAndTheOpenTransactionLeavesNoTrace() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager", LedgerCrasher.class.getName(),
                dataDir.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        PaymentHash releasing;
        PaymentHash done;
        long backend;
        long postmaster;
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = r.readLine();
            assertTrue(line != null && line.startsWith("READY "), "the child did not get ready: " + line);
            String[] w = line.split(" ");
            releasing = PaymentHash.ofHex(w[1]);
            done = PaymentHash.ofHex(w[2]);
            backend = Long.parseLong(w[3]);
            postmaster = Long.parseLong(Files.readAllLines(dataDir.resolve("pg/postmaster.pid")).get(0).trim());

            kill9(backend); // the process holding the transaction
            awaitGone(backend);
            kill9(postmaster); // and the whole server, in the middle of its crash recovery or after it
            awaitGone(postmaster);
            // its children (the backends, and those its crash recovery started) exit when they see it
            // die; a new postmaster refuses to start while one of them still holds the shared memory
            awaitNoProcessIn(dataDir.resolve("pg"));
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }

        open(dataDir);
        Escrow e = store.escrow(releasing).orElseThrow();
        assertEquals(EscrowState.KEY_RELEASED, e.state(), "the open transaction's step is gone");
        assertEquals(4, e.version());
        assertFalse(e.effectDone());
        assertEquals(-57_000, store.balance(Accounts.INCOME));
        assertEquals(57_000, store.balance(Accounts.funds("ln")));
        assertEquals(0, store.balance(Accounts.escrow(releasing)));
        assertEquals(List.of(releasing), store.unfinished().stream().map(Escrow::paymentHash).toList());
        assertTrue(store.escrow(done).orElseThrow().effectDone());
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            assertEquals(0, one(s, "select count(*) from (select a.name from ledger_account a left join ledger_posting p"
                    + " on p.account = a.name group by a.name, a.debit_msat, a.credit_msat"
                    + " having a.debit_msat <> coalesce(sum(p.debit_msat), 0) or a.credit_msat <> coalesce(sum(p.credit_msat), 0)) x"),
                    "every account's totals are the sum of its postings");
            assertEquals(0, one(s, "select coalesce(sum(debit_msat) - sum(credit_msat), 0) from ledger_posting"),
                    "debits equal credits");
            assertEquals(0, one(s, "select count(*) from (select entry_key from ledger_posting group by entry_key"
                    + " having sum(debit_msat) <> sum(credit_msat)) x"), "every entry balances");
        }
        closeAll();
    }

    static long one(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void kill9(long pid) throws Exception {
        Process k = new ProcessBuilder("kill", "-9", Long.toString(pid)).redirectErrorStream(true).start();
        k.getInputStream().readAllBytes();
        assertEquals(0, k.waitFor(), "kill -9 " + pid);
    }

    static void awaitGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (alive(pid)) {
            assertTrue(System.nanoTime() < deadline, "pid " + pid + " is still alive");
            Thread.sleep(50);
        }
    }

    static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until no process has {@code dir} as its working directory (every PostgreSQL process of a cluster has). */
    static void awaitNoProcessIn(Path dir) throws Exception {
        Path real = dir.toRealPath();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            List<Long> left = new ArrayList<>();
            try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
                for (Path p : (Iterable<Path>) procs::iterator) {
                    String name = p.getFileName().toString();
                    if (!name.chars().allMatch(Character::isDigit)) {
                        continue;
                    }
                    try {
                        if (Files.readSymbolicLink(p.resolve("cwd")).equals(real) && alive(Long.parseLong(name))) {
                            left.add(Long.parseLong(name));
                        }
                    } catch (IOException | RuntimeException ignored) {
                        // gone meanwhile, or not ours to read
                    }
                }
            }
            if (left.isEmpty()) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "PostgreSQL processes still running in " + dir + ": " + left);
            Thread.sleep(50);
        }
    }
}
