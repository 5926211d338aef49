package org.fleetmesh.storage.postgres;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.EventStore.StoredItem;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.jboss.logging.Logger;

/**
 * The write side: a batch is one transaction. Regular events go in with one set-based statement
 * per run ({@code INSERT ... SELECT FROM unnest(...) ON CONFLICT DO NOTHING}, tombstone check and
 * tag rows in the same statement). Replaceable and addressable events are serialised per address
 * with {@code pg_advisory_xact_lock} (taken for the whole batch up front, in sorted order, so two
 * nodes sharing the database never deadlock on them), resolved in memory in batch order, and
 * written as "delete the old head, insert the winner". Deletions (kind 5) apply in batch order too.
 */
final class EventWriter {
    private static final Logger LOG = Logger.getLogger(EventWriter.class);
    private static final int MAX_ATTEMPTS = 3;

    /** What a commit did, told on the committing connection after the commit (for NOTIFY and the change feed). */
    @FunctionalInterface
    interface AfterCommit {
        void committed(Connection c, List<EventId> stored, List<Event> added, List<StoredItem> removed);
    }

    private final DataSource ds;
    private final AfterCommit afterCommit;
    /** Batches retried after a deadlock/serialization failure/unique violation (for tests and metrics). */
    final AtomicLong retries = new AtomicLong();

    EventWriter(DataSource ds, AfterCommit afterCommit) {
        this.ds = ds;
        this.afterCommit = afterCommit;
    }

    /** One event of a batch, with everything derived from it computed once. */
    private static final class Item {
        final int index;
        final Event e;
        final byte[] id;
        final byte[] pubkey;
        final EventClass cls;
        /** Key of the address (replaceable/addressable), else null. */
        final String dKey;
        final Long expiresAt;
        /** Distinct (name, value key) of its single-letter tags. */
        final List<String[]> tags;
        /** Kind 5 only: e-tag targets and own a-tag targets. */
        final List<byte[]> eTargets;
        final List<Address> aTargets;
        int duplicateOf = -1;
        /** A row for this event was inserted by the current attempt (an addressable event that lost to a later one in its batch is STORED but never inserted). */
        boolean inserted;

        Item(int index, Event e) {
            this.index = index;
            this.e = e;
            this.id = e.id().unsafeBytes();
            this.pubkey = e.pubkey().unsafeBytes();
            this.cls = e.eventClass();
            this.dKey = switch (cls) {
                case REPLACEABLE -> "";
                case ADDRESSABLE -> TextKeys.key(e.dTag());
                default -> null;
            };
            this.expiresAt = e.expiration();
            this.tags = indexedTags(e);
            if (e.kind() == 5) {
                eTargets = new ArrayList<>();
                aTargets = new ArrayList<>();
                deletionTargets(e, eTargets, aTargets);
            } else {
                eTargets = List.of();
                aTargets = List.of();
            }
        }

        Address address() {
            return new Address(e.pubkey(), e.kind(), dKey);
        }
    }

    /** A replaceable/addressable address: pubkey, kind, d key ('' for replaceable kinds). */
    record Address(PubKey pubkey, int kind, String dKey) {
        long lockKey() {
            byte[] d = dKey.getBytes(StandardCharsets.UTF_8);
            ByteBuffer b = ByteBuffer.allocate(32 + 4 + d.length);
            b.put(pubkey.unsafeBytes()).putInt(kind).put(d);
            return ByteBuffer.wrap(TextKeys.sha256(b.array())).getLong();
        }
    }

    private record Head(byte[] id, long createdAt) {
    }

    /** The length of {@code ,"sig":"<128 hex>"}} that ends every {@code Event.json()}. */
    private static final int SIG_TAIL = 8 + 128 + 2;
    private static final String TAGS_KEY = ",\"tags\":";

    /**
     * What a row keeps of {@code Event.json()} (V11): the tags array, {@code ,"content":} and the content string; the
     * rest is rebuilt from the columns by {@link StoredJson}.
     */
    static String body(Event e) {
        String j = e.json();
        int from = j.indexOf(TAGS_KEY);
        if (from < 0 || !j.startsWith(",\"sig\":\"", j.length() - SIG_TAIL)) {
            throw new IllegalStateException("not an Event.json() form: " + j);
        }
        return j.substring(from + TAGS_KEY.length(), j.length() - SIG_TAIL);
    }

    static List<String[]> indexedTags(Event e) {
        List<List<String>> tags = e.tags();
        if (tags.isEmpty()) {
            return List.of();
        }
        List<String[]> out = new ArrayList<>(tags.size());
        Set<String> seen = tags.size() > 4 ? new HashSet<>() : null;
        for (List<String> t : tags) {
            if (t.size() < 2) {
                continue;
            }
            String name = t.get(0);
            if (name.length() != 1) {
                continue;
            }
            String value = TextKeys.key(t.get(1));
            if (seen != null) {
                if (!seen.add(name + '\u0000' + value)) {
                    continue;
                }
            } else {
                boolean dup = false;
                for (String[] o : out) {
                    if (o[0].equals(name) && o[1].equals(value)) {
                        dup = true;
                        break;
                    }
                }
                if (dup) {
                    continue;
                }
            }
            out.add(new String[] { name, value });
        }
        return out;
    }

    private static void deletionTargets(Event d, List<byte[]> eTargets, List<Address> aTargets) {
        Set<EventId> seenIds = new HashSet<>();
        Set<Address> seenAddr = new HashSet<>();
        for (List<String> t : d.tags()) {
            if (t.size() < 2) {
                continue;
            }
            String v = t.get(1);
            if (t.get(0).equals("e")) {
                if (Hex.isLowerHex(v, 64)) {
                    EventId id = EventId.ofHex(v);
                    if (seenIds.add(id)) {
                        eTargets.add(id.unsafeBytes());
                    }
                }
            } else if (t.get(0).equals("a")) {
                String[] parts = v.split(":", 3);
                if (parts.length < 2 || !Hex.isLowerHex(parts[1], 64)) {
                    continue;
                }
                int kind;
                try {
                    kind = Integer.parseInt(parts[0]);
                } catch (NumberFormatException ex) {
                    continue;
                }
                PubKey pk = PubKey.ofHex(parts[1]);
                if (!pk.equals(d.pubkey())) {
                    continue; // NIP-09: only the author's own events
                }
                EventClass c = EventClass.of(kind);
                String dKey;
                if (c == EventClass.REPLACEABLE) {
                    dKey = "";
                } else if (c == EventClass.ADDRESSABLE) {
                    dKey = TextKeys.key(parts.length == 3 ? parts[2] : "");
                } else {
                    continue;
                }
                Address a = new Address(pk, kind, dKey);
                if (seenAddr.add(a)) {
                    aTargets.add(a);
                }
            }
        }
    }


    /** Saves one batch in one transaction (retried on deadlock/serialization/unique conflicts). */
    List<SaveOutcome> save(List<Event> batch) {
        if (batch.isEmpty()) {
            return List.of();
        }
        List<Item> items = new ArrayList<>(batch.size());
        Map<EventId, Integer> first = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i);
            if (e.eventClass() == EventClass.EPHEMERAL && e.expiration() == null) {
                // stored only until a (near) NIP-40 expiration: the relay decides which; one without never
                throw new IllegalArgumentException("ephemeral events without an expiration are not stored: kind " + e.kind()
                        + ", id " + e.id());
            }
            Item it = new Item(i, e);
            Integer f = first.putIfAbsent(e.id(), i);
            if (f != null) {
                it.duplicateOf = f;
            }
            items.add(it);
        }
        SQLException last = null;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            SaveOutcome[] out = new SaveOutcome[items.size()];
            List<StoredItem> removed = new ArrayList<>();
            for (Item it : items) {
                it.inserted = false; // a retried attempt starts over
            }
            try (Connection c = ds.getConnection()) {
                try {
                    c.setAutoCommit(false);
                    saveInTransaction(c, items, out, removed);
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                } finally {
                    resetAutoCommit(c);
                }
                for (Item it : items) {
                    if (it.duplicateOf >= 0) {
                        SaveOutcome o = out[it.duplicateOf];
                        out[it.index] = o == SaveOutcome.STORED ? SaveOutcome.DUPLICATE : o;
                    }
                }
                List<EventId> stored = new ArrayList<>();
                List<Event> added = new ArrayList<>();
                for (Item it : items) {
                    if (out[it.index] == SaveOutcome.STORED && it.duplicateOf < 0) {
                        stored.add(it.e.id());
                    }
                    if (it.inserted) {
                        added.add(it.e);
                    }
                }
                afterCommit.committed(c, stored, added, removed);
                return Arrays.asList(out);
            } catch (SQLException e) {
                last = e;
                if (attempt < MAX_ATTEMPTS && retryable(e)) {
                    retries.incrementAndGet();
                    LOG.infof("save of %d events: %s (SQLState %s), retrying", items.size(), e.getMessage(), e.getSQLState());
                    continue;
                }
                break;
            } catch (RuntimeException e) {
                LOG.errorf(e, "save of %d events failed (first id %s); nothing was committed", items.size(),
                        items.get(0).e.id());
                return failed(items.size());
            }
        }
        LOG.errorf(last, "save of %d events failed (first id %s, SQLState %s); nothing was committed", items.size(),
                items.get(0).e.id(), last == null ? null : last.getSQLState());
        return failed(items.size());
    }


    private static List<SaveOutcome> failed(int n) {
        SaveOutcome[] out = new SaveOutcome[n];
        Arrays.fill(out, SaveOutcome.FAILED);
        return Arrays.asList(out);
    }

    /** Deadlock, serialization failure, unique violation from a concurrent writer. */
    private static boolean retryable(SQLException e) {
        String s = e.getSQLState();
        return "40P01".equals(s) || "40001".equals(s) || "23505".equals(s);
    }

    private void saveInTransaction(Connection c, List<Item> items, SaveOutcome[] out, List<StoredItem> removed)
            throws SQLException {
        lockSequence(c);
        lockAddresses(c, items);
        List<Item> segment = new ArrayList<>();
        for (Item it : items) {
            if (it.duplicateOf >= 0) {
                continue;
            }
            if (it.e.kind() == 5) {
                flush(c, segment, out, removed);
                segment.clear();
                applyDeletion(c, it, out, removed);
            } else {
                segment.add(it);
            }
        }
        flush(c, segment, out, removed);
    }

    /**
     * Serialises every writer of this database from before its first insert to its commit, so event.seq numbers
     * become visible in increasing order (V5__delivery.sql): without it a process committing seq 11 before another
     * commits seq 10 would let a reader at 11 skip 10 for good. Taken first by every writer: no deadlock with the
     * address locks. The two-int key space never meets the one-bigint keys of the address locks.
     */
    static void lockSequence(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select pg_advisory_xact_lock(1718379877, 5)")) {
            ps.executeQuery().close();
        }
    }

    /** Serialises writers of the same addresses across transactions and nodes; sorted: no deadlock. */
    private static void lockAddresses(Connection c, List<Item> items) throws SQLException {
        Set<Long> keys = new HashSet<>();
        for (Item it : items) {
            if (it.duplicateOf >= 0) {
                continue;
            }
            if (it.dKey != null) {
                keys.add(it.address().lockKey());
            }
            for (Address a : it.aTargets) {
                keys.add(a.lockKey());
            }
        }
        if (keys.isEmpty()) {
            return;
        }
        Long[] sorted = keys.toArray(new Long[0]);
        Arrays.sort(sorted);
        try (PreparedStatement ps = c.prepareStatement("select pg_advisory_xact_lock(k) from unnest(?::int8[]) as k")) {
            ps.setArray(1, c.createArrayOf("int8", sorted));
            ps.executeQuery().close();
        }
    }

    /** Writes a run of non-deletion events. */
    private void flush(Connection c, List<Item> segment, SaveOutcome[] out, List<StoredItem> removed) throws SQLException {
        if (segment.isEmpty()) {
            return;
        }
        List<Item> toInsert = new ArrayList<>(segment.size());
        List<Item> addressed = new ArrayList<>();
        for (Item it : segment) {
            if (it.dKey == null) {
                toInsert.add(it);
            } else {
                addressed.add(it);
            }
        }
        if (!addressed.isEmpty()) {
            resolveAddressed(c, addressed, out, toInsert, removed);
        }
        if (toInsert.isEmpty()) {
            return;
        }
        InsertResult r = insert(c, toInsert);
        for (Item it : toInsert) {
            EventId id = it.e.id();
            it.inserted = r.inserted.contains(id);
            if (it.dKey != null) {
                // replaceable winner: its outcome is already STORED
                if (!r.inserted.contains(id)) {
                    out[it.index] = r.blocked.contains(id) ? SaveOutcome.DELETED : SaveOutcome.DUPLICATE;
                }
            } else if (r.inserted.contains(id)) {
                out[it.index] = SaveOutcome.STORED;
            } else if (r.blocked.contains(id)) {
                out[it.index] = SaveOutcome.DELETED;
            } else {
                out[it.index] = SaveOutcome.DUPLICATE;
            }
        }
    }

    /**
     * Decides replaceable/addressable events in batch order against the current heads (stable:
     * this transaction holds the addresses' advisory locks), deletes superseded heads and adds the
     * final winners to {@code toInsert}.
     */
    private static void resolveAddressed(Connection c, List<Item> addressed, SaveOutcome[] out, List<Item> toInsert,
            List<StoredItem> removed)
            throws SQLException {
        LinkedHashSet<Address> addrs = new LinkedHashSet<>();
        for (Item it : addressed) {
            addrs.add(it.address());
        }
        byte[][] pks = new byte[addrs.size()][];
        Integer[] kinds = new Integer[addrs.size()];
        String[] ds = new String[addrs.size()];
        int i = 0;
        for (Address a : addrs) {
            pks[i] = a.pubkey().unsafeBytes();
            kinds[i] = a.kind();
            ds[i] = a.dKey();
            i++;
        }
        byte[][] ids = new byte[addressed.size()][];
        for (int j = 0; j < addressed.size(); j++) {
            ids[j] = addressed.get(j).id;
        }
        Map<Address, Head> heads = new HashMap<>();
        Map<Address, Long> deletedUntil = new HashMap<>();
        Set<String> tombstones = new HashSet<>(); // hex(id) + hex(pubkey)
        String sql = "with k as (select * from unnest(?::bytea[], ?::int4[], ?::text[]) as k(pubkey, kind, d_tag))"
                + " select 0, e.pubkey, e.kind, e.d_tag, e.id, e.created_at from event e"
                + "   join k on e.pubkey = k.pubkey and e.kind = k.kind and e.d_tag = k.d_tag"
                + " union all"
                + " select 1, a.pubkey, a.kind, a.d_tag, null, a.until_created_at from deleted_address a"
                + "   join k on a.pubkey = k.pubkey and a.kind = k.kind and a.d_tag = k.d_tag"
                + " union all"
                + " select 2, t.pubkey, null, null, t.id, null from deleted_event t where t.id = any(?)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("bytea", pks));
            ps.setArray(2, c.createArrayOf("int4", kinds));
            ps.setArray(3, c.createArrayOf("text", ds));
            ps.setArray(4, c.createArrayOf("bytea", ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int type = rs.getInt(1);
                    if (type == 2) {
                        tombstones.add(Hex.encode(rs.getBytes(5)) + Hex.encode(rs.getBytes(2)));
                        continue;
                    }
                    Address a = new Address(new PubKey(rs.getBytes(2)), rs.getInt(3), rs.getString(4));
                    if (type == 0) {
                        heads.put(a, new Head(rs.getBytes(5), rs.getLong(6)));
                    } else {
                        deletedUntil.put(a, rs.getLong(6));
                    }
                }
            }
        }
        Map<Address, Head> original = new HashMap<>(heads);
        Map<Address, Item> winners = new HashMap<>();
        for (Item it : addressed) {
            Address a = it.address();
            if (tombstones.contains(Hex.encode(it.id) + Hex.encode(it.pubkey))) {
                out[it.index] = SaveOutcome.DELETED;
                continue;
            }
            Long until = deletedUntil.get(a);
            if (until != null && it.e.createdAt() <= until) {
                out[it.index] = SaveOutcome.DELETED;
                continue;
            }
            Head h = heads.get(a);
            if (h != null) {
                if (Arrays.equals(h.id(), it.id)) {
                    out[it.index] = SaveOutcome.DUPLICATE;
                    continue;
                }
                if (h.createdAt() > it.e.createdAt()
                        || (h.createdAt() == it.e.createdAt() && Arrays.compareUnsigned(h.id(), it.id) < 0)) {
                    out[it.index] = SaveOutcome.SUPERSEDED;
                    continue;
                }
            }
            out[it.index] = SaveOutcome.STORED;
            heads.put(a, new Head(it.id, it.e.createdAt()));
            winners.put(a, it);
        }
        List<byte[]> replaced = new ArrayList<>();
        for (Map.Entry<Address, Item> w : winners.entrySet()) {
            Head old = original.get(w.getKey());
            if (old != null) {
                replaced.add(old.id());
            }
        }
        if (!replaced.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement("with d as (delete from event where id = any(?)"
                    + " returning id, created_at, seq), t as (delete from tag where event_seq in (select seq from d))"
                    + " select id, created_at from d")) {
                ps.setArray(1, c.createArrayOf("bytea", replaced.toArray(new byte[0][])));
                readRemoved(ps, removed);
            }
        }
        for (Item it : addressed) {
            if (winners.get(it.address()) == it) {
                toInsert.add(it);
            }
        }
    }

    private record InsertResult(Set<EventId> inserted, Set<EventId> blocked) {
    }

    /** NIP-59 gift wraps: signed by a random key, deletable by their recipient. */
    private static final int GIFT_WRAP = 1059;
    /** An indexed 64-hex tag value is stored as this byte and the 32 bytes (TextKeys.valueBytes). */
    private static final String HEX32_PREFIX = "'\\x0" + TextKeys.HEX32 + "'::bytea";

    private static final String INSERT_SQL = "with input as ("
            + " select * from unnest(?::bytea[], ?::bytea[], ?::int8[], ?::int4[], ?::text[], ?::int8[], ?::text[],"
            + "   ?::bytea[]) as u(id, pubkey, created_at, kind, d_tag, expires_at, body, sig)"
            + "), tin as ("
            + " select * from unnest(?::bytea[], ?::text[], ?::bytea[], ?::int4[], ?::int8[]) as t(event_id, name, value, kind, created_at)"
            + "), blocked as ("
            + " select i.id from input i where i.kind <> 5"
            + "   and (exists (select 1 from deleted_event d where d.id = i.id and d.pubkey = i.pubkey)"
            // NIP-59: a gift wrap deleted by its recipient (its p tag) does not come back either
            + "   or (i.kind = " + GIFT_WRAP + " and exists (select 1 from deleted_event d join tin"
            + "     on tin.event_id = i.id and tin.name = 'p' and tin.value = " + HEX32_PREFIX + " || d.pubkey"
            + "     where d.id = i.id)))"
            + "), ins as ("
            + " insert into event (id, pubkey, created_at, kind, d_tag, expires_at, body, sig)"
            + " select i.id, i.pubkey, i.created_at, i.kind, i.d_tag, i.expires_at, i.body, i.sig from input i"
            + "   where not exists (select 1 from blocked b where b.id = i.id)"
            + "   order by i.id"
            + " on conflict do nothing"
            + " returning id, seq"
            + "), tg as ("
            + " insert into tag (event_seq, name, value, kind, created_at)"
            + " select ins.seq, t.name, t.value, t.kind, t.created_at"
            + "   from tin t join ins on ins.id = t.event_id"
            + ")"
            + " select id, true from ins union all select id, false from blocked";

    /** One statement: tombstone check, event rows, tag rows of the events actually inserted. */
    private static InsertResult insert(Connection c, List<Item> items) throws SQLException {
        int n = items.size();
        byte[][] ids = new byte[n][];
        byte[][] pks = new byte[n][];
        Long[] created = new Long[n];
        Integer[] kinds = new Integer[n];
        String[] ds = new String[n];
        Long[] expires = new Long[n];
        String[] body = new String[n];
        byte[][] sigs = new byte[n][];
        int tagCount = 0;
        for (Item it : items) {
            tagCount += it.tags.size();
        }
        byte[][] tIds = new byte[tagCount][];
        String[] tNames = new String[tagCount];
        byte[][] tValues = new byte[tagCount][];
        Integer[] tKinds = new Integer[tagCount];
        Long[] tCreated = new Long[tagCount];
        int i = 0;
        int t = 0;
        for (Item it : items) {
            ids[i] = it.id;
            pks[i] = it.pubkey;
            created[i] = it.e.createdAt();
            kinds[i] = it.e.kind();
            ds[i] = it.dKey;
            expires[i] = it.expiresAt;
            body[i] = body(it.e);
            sigs[i] = it.e.sig().unsafeBytes();
            i++;
            for (String[] tag : it.tags) {
                tIds[t] = it.id;
                tNames[t] = tag[0];
                tValues[t] = TextKeys.valueBytes(tag[1]);
                tKinds[t] = it.e.kind();
                tCreated[t] = it.e.createdAt();
                t++;
            }
        }
        Set<EventId> inserted = new HashSet<>();
        Set<EventId> blocked = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(INSERT_SQL)) {
            ps.setArray(1, c.createArrayOf("bytea", ids));
            ps.setArray(2, c.createArrayOf("bytea", pks));
            ps.setArray(3, c.createArrayOf("int8", created));
            ps.setArray(4, c.createArrayOf("int4", kinds));
            ps.setArray(5, c.createArrayOf("text", ds));
            ps.setArray(6, c.createArrayOf("int8", expires));
            ps.setArray(7, c.createArrayOf("text", body));
            ps.setArray(8, c.createArrayOf("bytea", sigs));
            ps.setArray(9, c.createArrayOf("bytea", tIds));
            ps.setArray(10, c.createArrayOf("text", tNames));
            ps.setArray(11, c.createArrayOf("bytea", tValues));
            ps.setArray(12, c.createArrayOf("int4", tKinds));
            ps.setArray(13, c.createArrayOf("int8", tCreated));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    EventId id = new EventId(rs.getBytes(1));
                    (rs.getBoolean(2) ? inserted : blocked).add(id);
                }
            }
        }
        return new InsertResult(inserted, blocked);
    }

    /**
     * NIP-09: stores the deletion, deletes the author's targets and (NIP-59: "relays SHOULD delete kind:1059 events
     * whose p-tag matches the signer of NIP-09 deletions") the gift wraps addressed to the deleter, records tombstones.
     */
    private static void applyDeletion(Connection c, Item d, SaveOutcome[] out, List<StoredItem> removed) throws SQLException {
        InsertResult r = insert(c, List.of(d));
        d.inserted = r.inserted.contains(d.e.id());
        if (!d.inserted) {
            out[d.index] = SaveOutcome.DUPLICATE; // already applied when first stored
            return;
        }
        out[d.index] = SaveOutcome.STORED;
        if (!d.eTargets.isEmpty()) {
            byte[][] sorted = d.eTargets.toArray(new byte[0][]);
            Arrays.sort(sorted, Arrays::compareUnsigned);
            try (PreparedStatement ps = c.prepareStatement("with del as ("
                    + " delete from event e where e.id = any(?) and e.kind <> 5 and (e.pubkey = ? or (e.kind = " + GIFT_WRAP
                    + "   and exists (select 1 from tag g where g.event_seq = e.seq and g.name = 'p'"
                    + "     and g.value = " + HEX32_PREFIX + " || ?)))"
                    + " returning e.id, e.created_at, e.seq"
                    + "), deltags as (delete from tag where event_seq in (select seq from del)"
                    + "), tomb as (insert into deleted_event (id, pubkey) select x, ? from unnest(?::bytea[]) as x"
                    + " on conflict do nothing) select id, created_at from del")) {
                ps.setArray(1, c.createArrayOf("bytea", sorted));
                ps.setBytes(2, d.pubkey);
                ps.setBytes(3, d.pubkey);
                ps.setBytes(4, d.pubkey);
                ps.setArray(5, c.createArrayOf("bytea", sorted));
                readRemoved(ps, removed);
            }
        }
        if (!d.aTargets.isEmpty()) {
            Integer[] kinds = new Integer[d.aTargets.size()];
            String[] dTags = new String[d.aTargets.size()];
            for (int i = 0; i < kinds.length; i++) {
                kinds[i] = d.aTargets.get(i).kind();
                dTags[i] = d.aTargets.get(i).dKey();
            }
            try (PreparedStatement ps = c.prepareStatement("with k as ("
                    + " select * from unnest(?::int4[], ?::text[]) as k(kind, d_tag)"
                    + "), del as ("
                    + " delete from event e using k where e.pubkey = ? and e.kind = k.kind and e.d_tag = k.d_tag"
                    + "   and e.created_at <= ? returning e.id, e.created_at, e.seq"
                    + "), deltags as (delete from tag where event_seq in (select seq from del)"
                    + "), tomb as (insert into deleted_address (pubkey, kind, d_tag, until_created_at)"
                    + " select ?, k.kind, k.d_tag, ? from k"
                    + " on conflict (pubkey, kind, d_tag) do update"
                    + " set until_created_at = greatest(deleted_address.until_created_at, excluded.until_created_at))"
                    + " select id, created_at from del")) {
                ps.setArray(1, c.createArrayOf("int4", kinds));
                ps.setArray(2, c.createArrayOf("text", dTags));
                ps.setBytes(3, d.pubkey);
                ps.setLong(4, d.e.createdAt());
                ps.setBytes(5, d.pubkey);
                ps.setLong(6, d.e.createdAt());
                readRemoved(ps, removed);
            }
        }
    }

    static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            LOG.debug("rollback failed", e);
        }
    }

    static void resetAutoCommit(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            LOG.debug("could not restore autocommit", e);
        }
    }

    static void readRemoved(PreparedStatement ps, List<StoredItem> removed) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                removed.add(new StoredItem(rs.getLong(2), new EventId(rs.getBytes(1))));
            }
        }
    }
}
