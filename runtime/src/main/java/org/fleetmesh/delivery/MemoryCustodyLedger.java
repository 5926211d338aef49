package org.fleetmesh.delivery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.spi.delivery.CustodyLedger;

/**
 * A {@link CustodyLedger} in memory, for tests and nodes without a database: same contract (a batch of appends is
 * checked whole before any of it is written), no durability. One lock guards everything: the ledger is written once
 * per coalesced batch of receipts, so contention is not the cost that matters here.
 */
public final class MemoryCustodyLedger implements CustodyLedger {

    private static final class Tree {
        final List<Leaf> leaves = new ArrayList<>();
        final Map<EventId, Long> index = new HashMap<>();
        final List<Receipt> receipts = new ArrayList<>();
    }

    private final Map<Side, Map<String, Tree>> trees = new EnumMap<>(Side.class);
    private final Map<String, Outbound> outbound = new TreeMap<>();

    public MemoryCustodyLedger() {
        for (Side s : Side.values()) {
            trees.put(s, new TreeMap<>());
        }
    }

    @Override
    public synchronized Optional<Receipt> head(Side side, String peer) {
        Tree t = tree(side, peer);
        return t == null || t.receipts.isEmpty() ? Optional.empty()
                : Optional.of(copy(t.receipts.get(t.receipts.size() - 1)));
    }

    @Override
    public synchronized void append(List<Append> appends) {
        // Check the whole batch against the stored state plus the steps before it, then write: all or nothing.
        Map<List<Object>, Long> size = new HashMap<>();
        Map<List<Object>, Long> positions = new HashMap<>();
        Map<List<Object>, Set<EventId>> added = new HashMap<>();
        for (Append a : appends) {
            Objects.requireNonNull(a.side(), "side");
            Objects.requireNonNull(a.peer(), "peer");
            Objects.requireNonNull(a.receipt(), "receipt");
            Objects.requireNonNull(a.outbound(), "outbound");
            List<Object> key = List.of(a.side(), a.peer());
            Tree t = tree(a.side(), a.peer());
            long n = size.computeIfAbsent(key, k -> t == null ? 0L : (long) t.leaves.size());
            Set<EventId> fresh = added.computeIfAbsent(key, k -> new HashSet<>());
            for (Leaf leaf : a.leaves()) {
                Objects.requireNonNull(leaf.eventId(), "leaf event id");
                if (leaf.index() != n) {
                    throw new IllegalStateException(a.side() + " tree of " + a.peer() + " has " + n
                            + " leaves; leaf index " + leaf.index() + " does not continue it");
                }
                if ((t != null && t.index.containsKey(leaf.eventId())) || !fresh.add(leaf.eventId())) {
                    throw new IllegalStateException(leaf.eventId().hex() + " is already a leaf of the " + a.side()
                            + " tree of " + a.peer());
                }
                n++;
            }
            size.put(key, n);
            long position = positions.computeIfAbsent(key, k -> t == null ? 0L : (long) t.receipts.size());
            Receipt r = a.receipt();
            if (r.position() != position) {
                throw new IllegalStateException(a.side() + " chain of " + a.peer() + " has " + position
                        + " receipts; position " + r.position() + " does not continue it");
            }
            if (r.treeSize() != n) {
                throw new IllegalStateException("receipt at position " + r.position() + " names tree size "
                        + r.treeSize() + " but the " + a.side() + " tree of " + a.peer() + " would have " + n
                        + " leaves");
            }
            positions.put(key, position + 1);
        }
        for (Append a : appends) {
            Tree t = trees.get(a.side()).computeIfAbsent(a.peer(), p -> new Tree());
            for (Leaf leaf : a.leaves()) {
                t.leaves.add(leaf);
                t.index.put(leaf.eventId(), leaf.index());
            }
            t.receipts.add(copy(a.receipt()));
            a.outbound().ifPresent(o -> outbound.put(o.peer(), o));
        }
    }

    @Override
    public synchronized Map<EventId, Long> indexOf(Side side, String peer, Collection<EventId> ids) {
        Tree t = tree(side, peer);
        Map<EventId, Long> out = new LinkedHashMap<>();
        if (t != null) {
            for (EventId id : ids) {
                Long i = t.index.get(id);
                if (i != null) {
                    out.put(id, i);
                }
            }
        }
        return out;
    }

    @Override
    public synchronized List<Leaf> leaves(Side side, String peer, long from, long to) {
        Tree t = tree(side, peer);
        if (t == null) {
            return List.of();
        }
        int lo = (int) Math.max(0, Math.min(from, t.leaves.size()));
        int hi = (int) Math.max(lo, Math.min(to, t.leaves.size()));
        return List.copyOf(t.leaves.subList(lo, hi));
    }

    @Override
    public synchronized List<Receipt> receipts(Side side, String peer, long fromPosition, int limit) {
        Tree t = tree(side, peer);
        if (t == null || limit <= 0) {
            return List.of();
        }
        int lo = (int) Math.max(0, Math.min(fromPosition, t.receipts.size()));
        int hi = (int) Math.min(t.receipts.size(), (long) lo + limit);
        List<Receipt> out = new ArrayList<>(hi - lo);
        for (Receipt r : t.receipts.subList(lo, hi)) {
            out.add(copy(r));
        }
        return out;
    }

    @Override
    public synchronized List<String> peers(Side side) {
        return List.copyOf(trees.get(side).keySet());
    }

    @Override
    public synchronized Map<EventId, Holders> holders(Collection<EventId> ids) {
        Map<EventId, Holders> out = new LinkedHashMap<>();
        for (EventId id : ids) {
            Set<String> peers = new java.util.TreeSet<>();
            int hops = -1;
            for (Map.Entry<String, Tree> e : trees.get(Side.RECEIVED).entrySet()) {
                Long i = e.getValue().index.get(id);
                if (i != null) {
                    peers.add(e.getKey());
                    int h = e.getValue().leaves.get(i.intValue()).hops();
                    hops = hops < 0 ? h : Math.min(hops, h);
                }
            }
            for (Map.Entry<String, Tree> e : trees.get(Side.SENT).entrySet()) {
                if (e.getValue().index.containsKey(id)) {
                    peers.add(e.getKey());
                }
            }
            if (!peers.isEmpty()) {
                out.put(id, new Holders(Set.copyOf(peers), hops));
            }
        }
        return out;
    }

    @Override
    public synchronized Optional<String> archive(Side side, String peer) {
        Map<String, Tree> m = trees.get(side);
        Tree t = m.remove(peer);
        if (t == null) {
            return Optional.empty();
        }
        int n = 1;
        while (m.containsKey(CustodyLedger.archivedName(peer, n))) {
            n++;
        }
        String name = CustodyLedger.archivedName(peer, n);
        m.put(name, t);
        return Optional.of(name);
    }

    @Override
    public synchronized Optional<Outbound> outbound(String peer) {
        return Optional.ofNullable(outbound.get(peer));
    }

    @Override
    public synchronized void saveOutbound(Outbound o) {
        Objects.requireNonNull(o.peer(), "peer");
        outbound.put(o.peer(), o);
    }

    @Override
    public synchronized List<Outbound> outbounds() {
        return List.copyOf(outbound.values());
    }

    private Tree tree(Side side, String peer) {
        return trees.get(side).get(peer);
    }

    // Hashes are byte arrays: copy them in and out so no caller can change the ledger's history behind its back.
    private static Receipt copy(Receipt r) {
        return new Receipt(r.position(), r.treeSize(), r.seq(), r.receiptId(), r.json(), r.bytes(), r.events(),
                copy(r.consistency()), copy(r.compactRange()));
    }

    private static List<byte[]> copy(List<byte[]> hashes) {
        List<byte[]> out = new ArrayList<>(hashes.size());
        for (byte[] h : hashes) {
            out.add(h.clone());
        }
        return java.util.Collections.unmodifiableList(out);
    }
}
