package org.fleetmesh.storage.postgres.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import javax.sql.DataSource;

import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.EscrowStep;
import org.fleetmesh.spi.settlement.JournalEntry;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Posting;

/**
 * {@link LedgerStore} on the V2 schema ({@code db/fleetmesh/V2__ledger.sql}; run
 * {@code Migrations.migrate} first). Each write is one transaction: the entry key row first (its
 * primary key makes replays no-ops, and makes a concurrent duplicate wait and then see the
 * first), then the escrow row guarded by state and version, then account totals (in account
 * order, so concurrent writers cannot deadlock) and postings.
 */
public final class PgLedgerStore implements LedgerStore {
    private static final String NUMERIC_OUT_OF_RANGE = "22003";
    private static final String UNIQUE_VIOLATION = "23505";

    private final DataSource ds;

    public PgLedgerStore(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    @Override
    public Outcome post(JournalEntry entry) {
        return inTransaction("post " + entry.key(), c -> {
            if (!insertEntry(c, entry.key(), null)) {
                return Outcome.REPLAYED;
            }
            insertPostings(c, entry);
            return Outcome.APPLIED;
        });
    }

    @Override
    public Outcome apply(EscrowStep step) {
        Escrow after = step.after();
        return inTransaction("escrow step " + step.entry().key(), c -> {
            if (!insertEntry(c, step.entry().key(), after.paymentHash())) {
                return Outcome.REPLAYED;
            }
            if (step.before() == null) {
                insertEscrow(c, after);
            } else {
                updateEscrow(c, step.before(), after);
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into ledger_escrow_step (payment_hash, state, version, entry_key, at) values (?, ?, ?, ?, ?)")) {
                ps.setBytes(1, after.paymentHash().toBytes());
                ps.setString(2, after.state().name());
                ps.setLong(3, after.version());
                ps.setString(4, step.entry().key());
                ps.setLong(5, after.updatedAt().toEpochMilli());
                ps.executeUpdate();
            }
            insertPostings(c, step.entry());
            return Outcome.APPLIED;
        });
    }

    @Override
    public boolean markEffectDone(PaymentHash hash, EscrowState state) {
        return inTransaction("mark effect done " + hash, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "update ledger_escrow set effect_done = true where payment_hash = ? and state = ?")) {
                ps.setBytes(1, hash.toBytes());
                ps.setString(2, state.name());
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public Optional<Escrow> escrow(PaymentHash hash) {
        List<Escrow> found = escrows("where payment_hash = ?", hash.toBytes());
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    @Override
    public List<EscrowState> history(PaymentHash hash) {
        return read("history " + hash, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "select state from ledger_escrow_step where payment_hash = ? order by version")) {
                ps.setBytes(1, hash.toBytes());
                List<EscrowState> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(EscrowState.valueOf(rs.getString(1)));
                    }
                }
                return out;
            }
        });
    }

    @Override
    public List<Escrow> unfinished() {
        // the predicate of ledger_escrow_unfinished_idx
        return escrows("where state not in ('KEY_RELEASED', 'REFUNDED', 'EXPIRED') or not effect_done"
                + " order by updated_at, payment_hash");
    }

    @Override
    public long balance(String account) {
        return read("balance " + account, c -> {
            try (PreparedStatement ps = c.prepareStatement("select debit_msat, credit_msat from ledger_account where name = ?")) {
                ps.setString(1, account);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Math.subtractExact(rs.getLong(1), rs.getLong(2)) : 0L;
                }
            }
        });
    }

    @Override
    public List<AccountTotals> trialBalance() {
        return read("trial balance", c -> {
            try (PreparedStatement ps = c.prepareStatement("select name, debit_msat, credit_msat from ledger_account order by name");
                    ResultSet rs = ps.executeQuery()) {
                List<AccountTotals> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(new AccountTotals(rs.getString(1), rs.getLong(2), rs.getLong(3)));
                }
                return out;
            }
        });
    }

    private static boolean insertEntry(Connection c, String key, PaymentHash hash) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "insert into ledger_entry (entry_key, payment_hash, created_at) values (?, ?, ?) on conflict (entry_key) do nothing")) {
            ps.setString(1, key);
            ps.setBytes(2, hash == null ? null : hash.toBytes());
            ps.setLong(3, Instant.now().toEpochMilli());
            return ps.executeUpdate() == 1;
        }
    }

    private static void insertEscrow(Connection c, Escrow e) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into ledger_escrow"
                + " (payment_hash, peer, rail, amount_msat, state, version, effect_done, updated_at)"
                + " values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (payment_hash) do nothing")) {
            ps.setBytes(1, e.paymentHash().toBytes());
            ps.setString(2, e.peer());
            ps.setString(3, e.rail());
            ps.setLong(4, e.amountMsat());
            ps.setString(5, e.state().name());
            ps.setLong(6, e.version());
            ps.setBoolean(7, e.effectDone());
            ps.setLong(8, e.updatedAt().toEpochMilli());
            if (ps.executeUpdate() != 1) {
                throw new LedgerException(LedgerException.Reason.CONFLICT, "escrow " + e.paymentHash() + " already exists");
            }
        }
    }

    private static void updateEscrow(Connection c, EscrowState before, Escrow after) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("update ledger_escrow set state = ?, version = ?, effect_done = ?,"
                + " updated_at = ? where payment_hash = ? and state = ? and version = ?")) {
            ps.setString(1, after.state().name());
            ps.setLong(2, after.version());
            ps.setBoolean(3, after.effectDone());
            ps.setLong(4, after.updatedAt().toEpochMilli());
            ps.setBytes(5, after.paymentHash().toBytes());
            ps.setString(6, before.name());
            ps.setLong(7, after.version() - 1);
            if (ps.executeUpdate() != 1) {
                throw new LedgerException(LedgerException.Reason.CONFLICT, "escrow " + after.paymentHash()
                        + " is no longer at " + before + " v" + (after.version() - 1));
            }
        }
    }

    private static void insertPostings(Connection c, JournalEntry entry) throws SQLException {
        if (entry.postings().isEmpty()) {
            return;
        }
        Map<String, long[]> byAccount = new TreeMap<>(); // sorted: the lock order
        for (Posting p : entry.postings()) {
            long[] t = byAccount.computeIfAbsent(p.account(), a -> new long[2]);
            int i = p.side() == Posting.Side.DEBIT ? 0 : 1;
            t[i] = Math.addExact(t[i], p.amountMsat()); // cannot throw: the entry's sums were checked
        }
        try (PreparedStatement ps = c.prepareStatement("insert into ledger_account as a (name, debit_msat, credit_msat)"
                + " values (?, ?, ?) on conflict (name) do update set debit_msat = a.debit_msat + excluded.debit_msat,"
                + " credit_msat = a.credit_msat + excluded.credit_msat")) {
            for (Map.Entry<String, long[]> e : byAccount.entrySet()) {
                ps.setString(1, e.getKey());
                ps.setLong(2, e.getValue()[0]);
                ps.setLong(3, e.getValue()[1]);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        try (PreparedStatement ps = c.prepareStatement(
                "insert into ledger_posting (entry_key, leg, account, debit_msat, credit_msat) values (?, ?, ?, ?, ?)")) {
            int leg = 0;
            for (Posting p : entry.postings()) {
                ps.setString(1, entry.key());
                ps.setInt(2, leg++);
                ps.setString(3, p.account());
                ps.setLong(4, p.side() == Posting.Side.DEBIT ? p.amountMsat() : 0);
                ps.setLong(5, p.side() == Posting.Side.CREDIT ? p.amountMsat() : 0);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private List<Escrow> escrows(String where, Object... args) {
        return read("escrows", c -> {
            try (PreparedStatement ps = c.prepareStatement("select payment_hash, peer, rail, amount_msat, state, version,"
                    + " effect_done, updated_at from ledger_escrow " + where)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                List<Escrow> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Escrow(new PaymentHash(rs.getBytes(1)), rs.getString(2), rs.getString(3), rs.getLong(4),
                                EscrowState.valueOf(rs.getString(5)), rs.getLong(6), rs.getBoolean(7),
                                Instant.ofEpochMilli(rs.getLong(8))));
                    }
                }
                return out;
            }
        });
    }

    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T read(String what, Work<T> work) {
        try (Connection c = ds.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new LedgerException(LedgerException.Reason.STORE_FAILED, "ledger " + what + " failed: " + e.getMessage(), e);
        }
    }

    private <T> T inTransaction(String what, Work<T> work) {
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollback(c, e);
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            if (NUMERIC_OUT_OF_RANGE.equals(e.getSQLState())) {
                throw new LedgerException(LedgerException.Reason.OVERFLOW, "ledger " + what + ": an account total would overflow", e);
            }
            if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                throw new LedgerException(LedgerException.Reason.CONFLICT, "ledger " + what + ": " + e.getMessage(), e);
            }
            throw new LedgerException(LedgerException.Reason.STORE_FAILED, "ledger " + what + " failed: " + e.getMessage(), e);
        }
    }

    private static void rollback(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException r) {
            cause.addSuppressed(r);
        }
    }
}
