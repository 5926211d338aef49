package org.fleetmesh.storage.postgres.cashu;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

import javax.sql.DataSource;

import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.jboss.logging.Logger;

/**
 * {@link CashuStore} on the V10 schema ({@code db/fleetmesh/V10__cashu_wallet.sql}; run {@code Migrations.migrate}
 * first). Reads are one statement; every write that touches several rows is one transaction, retried on a deadlock
 * or serialization failure. Proof rows are locked in secret order before they change, so concurrent reservations
 * and completions wait for each other instead of deadlocking.
 */
public final class PgCashuStore implements CashuStore {
    private static final Logger LOG = Logger.getLogger(PgCashuStore.class);
    private static final int MAX_ATTEMPTS = 3;
    private static final String UNIQUE_VIOLATION = "23505";
    private static final String PROOF_COLUMNS = "mint, keyset_id, amount, secret, c, dleq, state, op_id, lock, created_at";
    private static final String OP_COLUMNS = "id, kind, key, mint, state, payload, created_at, updated_at";

    private final DataSource ds;

    public PgCashuStore(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    @Override
    public void addProofs(Collection<StoredProof> proofs) {
        if (proofs.isEmpty()) {
            return;
        }
        inTransaction("add " + proofs.size() + " proofs", c -> {
            insertProofs(c, proofs);
            return null;
        });
    }

    @Override
    public List<StoredProof> proofs(String mint, ProofState state) {
        return selectProofs("where mint = ? and state = ? order by created_at, secret", ps -> {
            ps.setString(1, mint);
            ps.setString(2, state.name());
        });
    }

    @Override
    public List<StoredProof> proofsBySecret(Collection<String> secrets) {
        if (secrets.isEmpty()) {
            return List.of();
        }
        return selectProofs("where secret = any (?)", ps -> ps.setArray(1, texts(ps.getConnection(), secrets)));
    }

    @Override
    public List<StoredProof> proofsOfOp(String opId) {
        return selectProofs("where op_id = ? order by created_at, secret", ps -> ps.setString(1, opId));
    }

    @Override
    public List<StoredProof> proofsOfLock(String lock) {
        return selectProofs("where lock = ? order by created_at, secret", ps -> ps.setString(1, lock));
    }

    @Override
    public boolean reserve(Collection<String> secrets, ProofState from, String opId) {
        Objects.requireNonNull(opId, "opId");
        if (from == ProofState.PENDING) {
            throw new IllegalArgumentException("pending proofs belong to their operation: reserve from another state");
        }
        TreeSet<String> wanted = new TreeSet<>(secrets);
        if (wanted.isEmpty()) {
            return true;
        }
        return inTransaction("reserve " + wanted.size() + " proofs for " + opId, c -> {
            int free = 0;
            try (PreparedStatement ps = c.prepareStatement(
                    "select state from cashu_proof where secret = any (?) order by secret for update")) {
                ps.setArray(1, texts(c, wanted));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (from.name().equals(rs.getString(1))) {
                            free++;
                        }
                    }
                }
            }
            if (free != wanted.size()) {
                c.rollback(); // one is missing or taken: the locks go, nothing changed
                return false;
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "update cashu_proof set state = 'PENDING', op_id = ? where secret = any (?) and state = ?")) {
                ps.setString(1, opId);
                ps.setArray(2, texts(c, wanted));
                ps.setString(3, from.name());
                if (ps.executeUpdate() != wanted.size()) {
                    throw new IllegalStateException("locked proofs changed under reserve " + opId); // cannot happen
                }
            }
            return true;
        });
    }

    @Override
    public void setState(Collection<String> secrets, ProofState state, String opId) {
        Objects.requireNonNull(state, "state");
        if (secrets.isEmpty()) {
            return;
        }
        inTransaction("move " + secrets.size() + " proofs to " + state, c -> {
            moveProofs(c, secrets, state, opId);
            return null;
        });
    }

    @Override
    public void complete(Op op, Collection<String> inputs, ProofState inputsTo, Collection<StoredProof> outputs) {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(inputsTo, "inputsTo");
        inTransaction("complete op " + op.id(), c -> {
            if (!inputs.isEmpty()) {
                moveProofs(c, inputs, inputsTo, null);
            }
            if (!outputs.isEmpty()) {
                insertProofs(c, outputs);
            }
            upsertOp(c, op);
            return null;
        });
    }

    @Override
    public void saveOp(Op op) {
        Objects.requireNonNull(op, "op");
        inTransaction("save op " + op.id(), c -> {
            upsertOp(c, op);
            return null;
        });
    }

    @Override
    public Optional<Op> op(String id) {
        return first(selectOps("where id = ?", ps -> ps.setString(1, id)));
    }

    @Override
    public Optional<Op> opByKey(String kind, String key) {
        return first(selectOps("where kind = ? and key = ?", ps -> {
            ps.setString(1, kind);
            ps.setString(2, key);
        }));
    }

    @Override
    public List<Op> opsInStates(Collection<String> states) {
        if (states.isEmpty()) {
            return List.of();
        }
        return selectOps("where state = any (?) order by created_at, id",
                ps -> ps.setArray(1, texts(ps.getConnection(), states)));
    }

    @Override
    public long reserveCounters(String keysetId, int n) {
        Objects.requireNonNull(keysetId, "keysetId");
        if (n < 0) {
            throw new IllegalArgumentException("cannot reserve " + n + " counters");
        }
        // one statement: the row lock of the upsert orders concurrent reservations, none can overlap
        return read("reserve " + n + " counters of " + keysetId, c -> {
            try (PreparedStatement ps = c.prepareStatement("insert into cashu_counter as k (keyset_id, next) values (?, ?)"
                    + " on conflict (keyset_id) do update set next = k.next + excluded.next returning k.next - ?")) {
                ps.setString(1, keysetId);
                ps.setLong(2, n);
                ps.setLong(3, n);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    @Override
    public long counter(String keysetId) {
        return read("counter of " + keysetId, c -> {
            try (PreparedStatement ps = c.prepareStatement("select next from cashu_counter where keyset_id = ?")) {
                ps.setString(1, keysetId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0L;
                }
            }
        });
    }

    @Override
    public void advanceCounter(String keysetId, long next) {
        Objects.requireNonNull(keysetId, "keysetId");
        if (next < 0) {
            throw new IllegalArgumentException("a counter is not negative: " + next);
        }
        read("advance counter of " + keysetId, c -> {
            try (PreparedStatement ps = c.prepareStatement("insert into cashu_counter as k (keyset_id, next) values (?, ?)"
                    + " on conflict (keyset_id) do update set next = greatest(k.next, excluded.next)")) {
                ps.setString(1, keysetId);
                ps.setLong(2, next);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public void saveKeyset(KeysetRow k) {
        Objects.requireNonNull(k, "keyset");
        read("save keyset " + k.id(), c -> {
            try (PreparedStatement ps = c.prepareStatement("insert into cashu_keyset (mint, id, unit, active, input_fee_ppk, keys)"
                    + " values (?, ?, ?, ?, ?, ?) on conflict (mint, id) do update set unit = excluded.unit,"
                    + " active = excluded.active, input_fee_ppk = excluded.input_fee_ppk, keys = excluded.keys")) {
                ps.setString(1, k.mint());
                ps.setString(2, k.id());
                ps.setString(3, k.unit());
                ps.setBoolean(4, k.active());
                ps.setLong(5, k.inputFeePpk());
                ps.setString(6, k.keysJson());
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public List<KeysetRow> keysets(String mint) {
        return read("keysets of " + mint, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "select mint, id, unit, active, input_fee_ppk, keys from cashu_keyset where mint = ? order by id")) {
                ps.setString(1, mint);
                List<KeysetRow> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new KeysetRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
                                rs.getLong(5), rs.getString(6)));
                    }
                }
                return out;
            }
        });
    }

    // --- statements shared by several calls, run inside the caller's transaction

    private static void insertProofs(Connection c, Collection<StoredProof> proofs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into cashu_proof (" + PROOF_COLUMNS + ")"
                + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (secret) do nothing")) {
            for (StoredProof p : proofs) {
                ps.setString(1, p.mint());
                ps.setString(2, p.keysetId());
                ps.setLong(3, p.amount());
                ps.setString(4, p.secret());
                ps.setString(5, p.c());
                ps.setString(6, p.dleqJson());
                ps.setString(7, p.state().name());
                ps.setString(8, p.opId());
                ps.setString(9, p.lock());
                ps.setLong(10, p.createdAt());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static void moveProofs(Connection c, Collection<String> secrets, ProofState state, String opId)
            throws SQLException {
        TreeSet<String> sorted = new TreeSet<>(secrets);
        try (PreparedStatement ps = c.prepareStatement(
                "select 1 from cashu_proof where secret = any (?) order by secret for update")) {
            ps.setArray(1, texts(c, sorted));
            ps.executeQuery().close();
        }
        try (PreparedStatement ps = c.prepareStatement(
                "update cashu_proof set state = ?, op_id = coalesce(?, op_id) where secret = any (?)")) {
            ps.setString(1, state.name());
            if (opId == null) {
                ps.setNull(2, Types.VARCHAR);
            } else {
                ps.setString(2, opId);
            }
            ps.setArray(3, texts(c, sorted));
            ps.executeUpdate();
        }
    }

    private static void upsertOp(Connection c, Op op) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into cashu_op (" + OP_COLUMNS + ")"
                + " values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (id) do update set kind = excluded.kind, key = excluded.key,"
                + " mint = excluded.mint, state = excluded.state, payload = excluded.payload,"
                + " created_at = excluded.created_at, updated_at = excluded.updated_at")) {
            ps.setString(1, op.id());
            ps.setString(2, op.kind());
            ps.setString(3, op.key());
            ps.setString(4, op.mint());
            ps.setString(5, op.state());
            ps.setString(6, op.payload());
            ps.setLong(7, op.createdAt());
            ps.setLong(8, op.updatedAt());
            ps.executeUpdate();
        } catch (SQLException e) {
            if (UNIQUE_VIOLATION.equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains("cashu_op_kind_key_idx")) {
                throw new IllegalStateException("cashu op " + op.id() + ": another " + op.kind() + " op already has key "
                        + op.key(), e);
            }
            throw e;
        }
    }

    private static java.sql.Array texts(Connection c, Collection<String> values) throws SQLException {
        return c.createArrayOf("text", values.toArray());
    }

    // --- reading and transactions

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private List<StoredProof> selectProofs(String where, Binder b) {
        return read("read proofs", c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + PROOF_COLUMNS + " from cashu_proof " + where)) {
                b.bind(ps);
                List<StoredProof> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new StoredProof(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                                rs.getString(5), rs.getString(6), ProofState.valueOf(rs.getString(7)), rs.getString(8),
                                rs.getString(9), rs.getLong(10)));
                    }
                }
                return out;
            }
        });
    }

    private List<Op> selectOps(String where, Binder b) {
        return read("read ops", c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + OP_COLUMNS + " from cashu_op " + where)) {
                b.bind(ps);
                List<Op> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Op(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                rs.getString(5), rs.getString(6), rs.getLong(7), rs.getLong(8)));
                    }
                }
                return out;
            }
        });
    }

    private static <T> Optional<T> first(List<T> l) {
        return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
    }

    /** One statement in autocommit. */
    private <T> T read(String what, Work<T> work) {
        try (Connection c = ds.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cashu store: " + what + " failed: " + e.getMessage(), e);
        }
    }

    private <T> T inTransaction(String what, Work<T> work) {
        SQLException last = null;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
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
                last = e;
                if (attempt < MAX_ATTEMPTS && retryable(e)) {
                    LOG.infof("cashu store: %s: %s (SQLState %s), retrying", what, e.getMessage(), e.getSQLState());
                    continue;
                }
                break;
            }
        }
        throw new IllegalStateException("cashu store: " + what + " failed: " + (last == null ? "" : last.getMessage()), last);
    }

    /** Deadlock or serialization failure. */
    private static boolean retryable(SQLException e) {
        String s = e.getSQLState();
        return "40P01".equals(s) || "40001".equals(s);
    }

    private static void rollback(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException r) {
            cause.addSuppressed(r);
        }
    }
}
