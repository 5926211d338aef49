package org.fleetmesh.storage.postgres.delivery;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import javax.sql.DataSource;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.jboss.logging.Logger;

/**
 * {@link CustodyLedger} on the V5 schema ({@code db/fleetmesh/V5__delivery.sql}). A batch of appends is one
 * transaction: the trees' rows are locked ({@code for update}, in id order) so that concurrent appenders continue
 * the tree one after the other, the batch is checked against their counters, and leaves and receipts go in with
 * one set-based insert each. Reads are one statement each.
 */
public final class PgCustodyLedger implements CustodyLedger {
    private static final Logger LOG = Logger.getLogger(PgCustodyLedger.class);
    private static final int MAX_ATTEMPTS = 3;
    private static final String UNIQUE_VIOLATION = "23505";

    /** The database failed (not a broken contract, which is {@link IllegalStateException}). */
    public static final class LedgerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LedgerFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final DataSource ds;

    public PgCustodyLedger(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    static String side(Side s) {
        return s == Side.RECEIVED ? "received" : "sent";
    }

    private static final String RECEIPT_COLUMNS = "r.position, r.tree_size, r.seq, r.receipt_id, r.json, r.bytes,"
            + " r.events, r.consistency, r.compact_range";

    @Override
    public Optional<Receipt> head(Side side, String peer) {
        List<Receipt> out = new ArrayList<>(1);
        read("the head receipt of " + peer, "select " + RECEIPT_COLUMNS + " from custody_tree t"
                + " join custody_receipt r on r.tree = t.id and r.position = t.receipts - 1"
                + " where t.side = ? and t.peer = ?", ps -> {
                    ps.setString(1, side(side));
                    ps.setString(2, peer);
                }, rs -> out.add(receipt(rs)));
        return out.stream().findFirst();
    }

    @Override
    public List<Receipt> receipts(Side side, String peer, long fromPosition, int limit) {
        List<Receipt> out = new ArrayList<>();
        if (limit <= 0) {
            return out;
        }
        read("the receipts of " + peer, "select " + RECEIPT_COLUMNS + " from custody_tree t"
                + " join custody_receipt r on r.tree = t.id where t.side = ? and t.peer = ? and r.position >= ?"
                + " order by r.position limit ?", ps -> {
                    ps.setString(1, side(side));
                    ps.setString(2, peer);
                    ps.setLong(3, fromPosition);
                    ps.setInt(4, limit);
                }, rs -> out.add(receipt(rs)));
        return out;
    }

    @Override
    public Map<EventId, Long> indexOf(Side side, String peer, Collection<EventId> ids) {
        Map<EventId, Long> out = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return out;
        }
        read("leaf indexes of " + peer, "select l.event_id, l.idx from custody_tree t join custody_leaf l"
                + " on l.tree = t.id and l.event_id = any(?) where t.side = ? and t.peer = ?", (c, ps) -> {
                    ps.setArray(1, c.createArrayOf("bytea", bytes(ids)));
                    ps.setString(2, side(side));
                    ps.setString(3, peer);
                }, rs -> out.put(new EventId(rs.getBytes(1)), rs.getLong(2)));
        return out;
    }

    @Override
    public List<Leaf> leaves(Side side, String peer, long from, long to) {
        List<Leaf> out = new ArrayList<>();
        if (to <= from) {
            return out;
        }
        read("the leaves of " + peer, "select l.idx, l.event_id, l.bytes, l.hops from custody_tree t"
                + " join custody_leaf l on l.tree = t.id where t.side = ? and t.peer = ? and l.idx >= ? and l.idx < ?"
                + " order by l.idx", ps -> {
                    ps.setString(1, side(side));
                    ps.setString(2, peer);
                    ps.setLong(3, from);
                    ps.setLong(4, to);
                }, rs -> out.add(new Leaf(rs.getLong(1), new EventId(rs.getBytes(2)), rs.getInt(3), rs.getInt(4))));
        return out;
    }

    @Override
    public List<String> peers(Side side) {
        List<String> out = new ArrayList<>();
        read("the peers with a " + side(side) + " tree",
                "select peer from custody_tree where side = ? and receipts > 0 order by peer collate \"C\"",
                ps -> ps.setString(1, side(side)), rs -> out.add(rs.getString(1)));
        return out;
    }

    @Override
    public Map<EventId, Holders> holders(Collection<EventId> ids) {
        Map<EventId, Set<String>> peers = new LinkedHashMap<>();
        Map<EventId, Integer> hops = new HashMap<>();
        if (!ids.isEmpty()) {
            read("the holders of " + ids.size() + " events", "select l.event_id, t.side, t.peer, l.hops"
                    + " from custody_leaf l join custody_tree t on t.id = l.tree where l.event_id = any(?)", (c, ps) ->
                    ps.setArray(1, c.createArrayOf("bytea", bytes(ids))), rs -> {
                        EventId id = new EventId(rs.getBytes(1));
                        peers.computeIfAbsent(id, k -> new TreeSet<>()).add(rs.getString(3));
                        if (rs.getString(2).equals("received")) {
                            hops.merge(id, rs.getInt(4), Math::min);
                        }
                    });
        }
        Map<EventId, Holders> out = new LinkedHashMap<>();
        for (EventId id : ids) {
            Set<String> p = peers.get(id);
            if (p != null) {
                out.put(id, new Holders(Set.copyOf(p), hops.getOrDefault(id, -1)));
            }
        }
        return out;
    }

    @Override
    public Optional<String> archive(Side side, String peer) {
        Objects.requireNonNull(peer, "peer");
        try (Connection c = ds.getConnection()) {
            try {
                c.setAutoCommit(false);
                Optional<String> name = archiveInTransaction(c, side(side), peer);
                c.commit();
                return name;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new LedgerFailure("could not archive the " + side(side) + " tree of " + peer + ": " + e.getMessage(), e);
        }
    }

    /** A rename of the tree's row (its leaves and receipts follow its id): no migration, nothing copied. */
    private static Optional<String> archiveInTransaction(Connection c, String side, String peer) throws SQLException {
        Integer id = null;
        // locked like an append, so no append continues the tree while it is moved aside
        try (PreparedStatement ps = c.prepareStatement("select id from custody_tree where side = ? and peer = ? for update")) {
            ps.setString(1, side);
            ps.setString(2, peer);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    id = rs.getInt(1);
                }
            }
        }
        if (id == null) {
            return Optional.empty();
        }
        Set<String> taken = new java.util.HashSet<>();
        String prefix = CustodyLedger.archivedName(peer, 0);
        prefix = prefix.substring(0, prefix.length() - 1);
        try (PreparedStatement ps = c.prepareStatement("select peer from custody_tree where side = ? and starts_with(peer, ?)")) {
            ps.setString(1, side);
            ps.setString(2, prefix);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    taken.add(rs.getString(1));
                }
            }
        }
        int n = 1;
        while (taken.contains(CustodyLedger.archivedName(peer, n))) {
            n++;
        }
        String name = CustodyLedger.archivedName(peer, n);
        try (PreparedStatement ps = c.prepareStatement("update custody_tree set peer = ? where id = ?")) {
            ps.setString(1, name);
            ps.setInt(2, id);
            ps.executeUpdate();
        }
        return Optional.of(name);
    }

    @Override
    public Optional<Outbound> outbound(String peer) {
        List<Outbound> out = new ArrayList<>(1);
        read("the outbound state of " + peer, "select peer, acked_seq, next_frame_seq, filters, halted"
                + " from delivery_outbound where peer = ?", ps -> ps.setString(1, peer), rs -> out.add(outbound(rs)));
        return out.stream().findFirst();
    }

    @Override
    public List<Outbound> outbounds() {
        List<Outbound> out = new ArrayList<>();
        read("the outbound states", "select peer, acked_seq, next_frame_seq, filters, halted from delivery_outbound"
                + " order by peer collate \"C\"", ps -> {
                }, rs -> out.add(outbound(rs)));
        return out;
    }

    @Override
    public void saveOutbound(Outbound o) {
        Objects.requireNonNull(o.peer(), "peer");
        try (Connection c = ds.getConnection()) {
            upsertOutbound(c, List.of(o));
        } catch (SQLException e) {
            throw new LedgerFailure("could not write the outbound state of " + o.peer() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void append(List<Append> appends) {
        if (appends.isEmpty()) {
            return;
        }
        for (Append a : appends) {
            Objects.requireNonNull(a.side(), "side");
            Objects.requireNonNull(a.peer(), "peer");
            Objects.requireNonNull(a.receipt(), "receipt");
            Objects.requireNonNull(a.outbound(), "outbound");
            for (Leaf l : a.leaves()) {
                Objects.requireNonNull(l.eventId(), "leaf event id");
            }
        }
        SQLException last = null;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            try (Connection c = ds.getConnection()) {
                try {
                    c.setAutoCommit(false);
                    appendInTransaction(c, appends);
                    c.commit();
                    return;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            } catch (SQLException e) {
                if (UNIQUE_VIOLATION.equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains("custody_leaf_event_idx")) {
                    // the checks below ran against locked counters: only an id already a leaf of its tree gets here
                    throw new IllegalStateException("an event id is already a leaf of its tree: " + e.getMessage(), e);
                }
                last = e;
                if (attempt < MAX_ATTEMPTS && retryable(e)) {
                    LOG.infof("custody append of %d steps: %s (SQLState %s), retrying", appends.size(),
                            e.getMessage(), e.getSQLState());
                    continue;
                }
                break;
            }
        }
        throw new LedgerFailure("could not append " + appends.size() + " custody steps: "
                + (last == null ? "" : last.getMessage()), last);
    }

    /** Deadlock or serialization failure. */
    private static boolean retryable(SQLException e) {
        String s = e.getSQLState();
        return "40P01".equals(s) || "40001".equals(s);
    }

    private record TreeKey(String side, String peer) implements Comparable<TreeKey> {
        @Override
        public int compareTo(TreeKey o) {
            int c = side.compareTo(o.side);
            return c != 0 ? c : peer.compareTo(o.peer);
        }
    }

    /** A tree row as locked, with the counters the batch moves on. */
    private static final class TreeRow {
        final int id;
        long size;
        long receipts;

        TreeRow(int id, long size, long receipts) {
            this.id = id;
            this.size = size;
            this.receipts = receipts;
        }
    }

    private static void appendInTransaction(Connection c, List<Append> appends) throws SQLException {
        TreeMap<TreeKey, TreeRow> rows = new TreeMap<>();
        for (Append a : appends) {
            rows.put(new TreeKey(side(a.side()), a.peer()), null);
        }
        String[] sides = new String[rows.size()];
        String[] peers = new String[rows.size()];
        int k = 0;
        for (TreeKey key : rows.keySet()) {
            sides[k] = key.side();
            peers[k] = key.peer();
            k++;
        }
        // created in sorted order, then locked in id order: two appenders never wait on each other in a circle
        try (PreparedStatement ps = c.prepareStatement("insert into custody_tree (side, peer)"
                + " select * from unnest(?::text[], ?::text[]) on conflict (side, peer) do nothing")) {
            ps.setArray(1, c.createArrayOf("text", sides));
            ps.setArray(2, c.createArrayOf("text", peers));
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("select t.id, t.side, t.peer, t.size, t.receipts"
                + " from custody_tree t join unnest(?::text[], ?::text[]) as k(side, peer)"
                + " on t.side = k.side and t.peer = k.peer order by t.id for update of t")) {
            ps.setArray(1, c.createArrayOf("text", sides));
            ps.setArray(2, c.createArrayOf("text", peers));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(new TreeKey(rs.getString(2), rs.getString(3)),
                            new TreeRow(rs.getInt(1), rs.getLong(4), rs.getLong(5)));
                }
            }
        }
        List<Integer> lTree = new ArrayList<>();
        List<Long> lIdx = new ArrayList<>();
        List<byte[]> lId = new ArrayList<>();
        List<Integer> lBytes = new ArrayList<>();
        List<Integer> lHops = new ArrayList<>();
        List<Object[]> receipts = new ArrayList<>();
        Map<String, Outbound> outbound = new LinkedHashMap<>();
        for (Append a : appends) {
            TreeRow t = rows.get(new TreeKey(side(a.side()), a.peer()));
            for (Leaf leaf : a.leaves()) {
                if (leaf.index() != t.size) {
                    throw new IllegalStateException(a.side() + " tree of " + a.peer() + " has " + t.size
                            + " leaves; leaf index " + leaf.index() + " does not continue it");
                }
                lTree.add(t.id);
                lIdx.add(leaf.index());
                lId.add(leaf.eventId().unsafeBytes());
                lBytes.add(leaf.bytes());
                lHops.add(leaf.hops());
                t.size++;
            }
            Receipt r = a.receipt();
            if (r.position() != t.receipts) {
                throw new IllegalStateException(a.side() + " chain of " + a.peer() + " has " + t.receipts
                        + " receipts; position " + r.position() + " does not continue it");
            }
            if (r.treeSize() != t.size) {
                throw new IllegalStateException("receipt at position " + r.position() + " names tree size "
                        + r.treeSize() + " but the " + a.side() + " tree of " + a.peer() + " would have " + t.size
                        + " leaves");
            }
            t.receipts++;
            receipts.add(new Object[] { t.id, r });
            a.outbound().ifPresent(o -> {
                outbound.remove(o.peer()); // the last state of a peer wins, as if written in order
                outbound.put(o.peer(), o);
            });
        }
        if (!lTree.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement("insert into custody_leaf (tree, idx, event_id, bytes, hops)"
                    + " select * from unnest(?::int4[], ?::int8[], ?::bytea[], ?::int4[], ?::int4[])")) {
                ps.setArray(1, c.createArrayOf("int4", lTree.toArray()));
                ps.setArray(2, c.createArrayOf("int8", lIdx.toArray()));
                ps.setArray(3, c.createArrayOf("bytea", lId.toArray(new byte[0][])));
                ps.setArray(4, c.createArrayOf("int4", lBytes.toArray()));
                ps.setArray(5, c.createArrayOf("int4", lHops.toArray()));
                ps.executeUpdate();
            }
        }
        int n = receipts.size();
        Object[] rTree = new Object[n];
        Object[] rPos = new Object[n];
        Object[] rSize = new Object[n];
        Object[] rSeq = new Object[n];
        byte[][] rId = new byte[n][];
        Object[] rJson = new Object[n];
        Object[] rBytes = new Object[n];
        Object[] rEvents = new Object[n];
        byte[][] rCons = new byte[n][];
        byte[][] rRange = new byte[n][];
        for (int i = 0; i < n; i++) {
            Receipt r = (Receipt) receipts.get(i)[1];
            rTree[i] = receipts.get(i)[0];
            rPos[i] = r.position();
            rSize[i] = r.treeSize();
            rSeq[i] = r.seq();
            rId[i] = r.receiptId().unsafeBytes();
            rJson[i] = r.json();
            rBytes[i] = r.bytes();
            rEvents[i] = r.events();
            rCons[i] = concat(r.consistency());
            rRange[i] = concat(r.compactRange());
        }
        try (PreparedStatement ps = c.prepareStatement("insert into custody_receipt (tree, position, tree_size, seq,"
                + " receipt_id, json, bytes, events, consistency, compact_range) select * from unnest(?::int4[],"
                + " ?::int8[], ?::int8[], ?::int8[], ?::bytea[], ?::text[], ?::int8[], ?::int8[], ?::bytea[], ?::bytea[])")) {
            ps.setArray(1, c.createArrayOf("int4", rTree));
            ps.setArray(2, c.createArrayOf("int8", rPos));
            ps.setArray(3, c.createArrayOf("int8", rSize));
            ps.setArray(4, c.createArrayOf("int8", rSeq));
            ps.setArray(5, c.createArrayOf("bytea", rId));
            ps.setArray(6, c.createArrayOf("text", rJson));
            ps.setArray(7, c.createArrayOf("int8", rBytes));
            ps.setArray(8, c.createArrayOf("int8", rEvents));
            ps.setArray(9, c.createArrayOf("bytea", rCons));
            ps.setArray(10, c.createArrayOf("bytea", rRange));
            ps.executeUpdate();
        }
        Object[] tId = new Object[rows.size()];
        Object[] tSize = new Object[rows.size()];
        Object[] tReceipts = new Object[rows.size()];
        int i = 0;
        for (TreeRow t : rows.values()) {
            tId[i] = t.id;
            tSize[i] = t.size;
            tReceipts[i] = t.receipts;
            i++;
        }
        try (PreparedStatement ps = c.prepareStatement("update custody_tree t set size = u.size, receipts = u.receipts"
                + " from unnest(?::int4[], ?::int8[], ?::int8[]) as u(id, size, receipts) where t.id = u.id")) {
            ps.setArray(1, c.createArrayOf("int4", tId));
            ps.setArray(2, c.createArrayOf("int8", tSize));
            ps.setArray(3, c.createArrayOf("int8", tReceipts));
            ps.executeUpdate();
        }
        if (!outbound.isEmpty()) {
            upsertOutbound(c, new ArrayList<>(outbound.values()));
        }
    }

    private static void upsertOutbound(Connection c, List<Outbound> list) throws SQLException {
        int n = list.size();
        Object[] peer = new Object[n];
        Object[] acked = new Object[n];
        Object[] next = new Object[n];
        Object[] filters = new Object[n];
        Object[] halted = new Object[n];
        for (int i = 0; i < n; i++) {
            Outbound o = list.get(i);
            peer[i] = o.peer();
            acked[i] = o.ackedSeq();
            next[i] = o.nextFrameSeq();
            filters[i] = Objects.requireNonNull(o.filters(), "filters");
            halted[i] = Objects.requireNonNull(o.halted(), "halted");
        }
        try (PreparedStatement ps = c.prepareStatement("insert into delivery_outbound (peer, acked_seq, next_frame_seq,"
                + " filters, halted) select * from unnest(?::text[], ?::int8[], ?::int8[], ?::text[], ?::text[])"
                + " on conflict (peer) do update set acked_seq = excluded.acked_seq,"
                + " next_frame_seq = excluded.next_frame_seq, filters = excluded.filters, halted = excluded.halted")) {
            ps.setArray(1, c.createArrayOf("text", peer));
            ps.setArray(2, c.createArrayOf("int8", acked));
            ps.setArray(3, c.createArrayOf("int8", next));
            ps.setArray(4, c.createArrayOf("text", filters));
            ps.setArray(5, c.createArrayOf("text", halted));
            ps.executeUpdate();
        }
    }

    private static Receipt receipt(ResultSet rs) throws SQLException {
        return new Receipt(rs.getLong(1), rs.getLong(2), rs.getLong(3), new EventId(rs.getBytes(4)), rs.getString(5),
                rs.getLong(6), rs.getLong(7), split(rs.getBytes(8)), split(rs.getBytes(9)));
    }

    private static Outbound outbound(ResultSet rs) throws SQLException {
        return new Outbound(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getString(4), rs.getString(5));
    }

    static byte[] concat(List<byte[]> hashes) {
        byte[] out = new byte[hashes.size() * 32];
        for (int i = 0; i < hashes.size(); i++) {
            byte[] h = hashes.get(i);
            if (h.length != 32) {
                throw new IllegalArgumentException("a hash is 32 bytes, got " + h.length);
            }
            System.arraycopy(h, 0, out, i * 32, 32);
        }
        return out;
    }

    static List<byte[]> split(byte[] b) {
        List<byte[]> out = new ArrayList<>(b.length / 32);
        for (int i = 0; i + 32 <= b.length; i += 32) {
            out.add(java.util.Arrays.copyOfRange(b, i, i + 32));
        }
        return java.util.Collections.unmodifiableList(out);
    }

    private static byte[][] bytes(Collection<EventId> ids) {
        byte[][] out = new byte[ids.size()][];
        int i = 0;
        for (EventId id : ids) {
            out[i++] = id.unsafeBytes();
        }
        return out;
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            LOG.debug("rollback failed", e);
        }
    }

    @FunctionalInterface
    private interface Bind {
        void bind(Connection c, PreparedStatement ps) throws SQLException;
    }

    @FunctionalInterface
    private interface SimpleBind {
        void bind(PreparedStatement ps) throws SQLException;
    }

    @FunctionalInterface
    private interface Row {
        void read(ResultSet rs) throws SQLException;
    }

    private void read(String what, String sql, SimpleBind bind, Row row) {
        read(what, sql, (c, ps) -> bind.bind(ps), row);
    }

    private void read(String what, String sql, Bind bind, Row row) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind.bind(c, ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    row.read(rs);
                }
            }
        } catch (SQLException e) {
            throw new LedgerFailure("could not read " + what + ": " + e.getMessage(), e);
        }
    }
}
