package org.fleetmesh.negentropy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Items kept sorted as {@link SortedVector} sorts them (timestamp, then id) in a persistent,
 * order-statistic B+tree: every inner node holds, for each child, the running item count and the
 * running sum mod 2^256 of the ids below it, so that {@code item(i)}, {@code findLowerBound} and
 * {@code fingerprint} are O(log n) and {@code iterate} is O(log n + k).
 *
 * <p>One writer changes the tree with {@link #insert(Item)}, {@link #insertAll} and {@link #remove(Item)}. A node
 * that a snapshot may see is never modified: a write copies it, and the path above it. {@link #snapshot()} is O(1)
 * and returns a {@link Storage} over the root of that moment, which later writes never change, so any number of
 * reconciliations can read snapshots without locks while the writer goes on. Nodes that {@link #insertAll} built
 * since the last snapshot belong to the tree alone (their {@code owner} is the tree's current one, which every
 * snapshot replaces), and later batches change those in place instead of copying them: an index kept in step with a
 * store, which takes events at scattered times (an import, a sync) and is rarely snapshotted, then allocates a leaf now
 * and then instead of one per event (docs/spec/negentropy.md). Writers, snapshots and the tree's own readers
 * ({@link #size()}, {@link #contains}) are serialized on this object.
 *
 * <p>A leaf holds its items packed in one {@code long[]} (each item as its timestamp and its id as
 * four little-endian 64-bit limbs, with a running id sum before every {@link #GROUP} items), so
 * sums, searches and the ids written into messages read contiguous memory and no per-item objects
 * are kept: {@link Item}s are built only when {@link Snapshot#item(int)} or
 * {@link Snapshot#iterate} hand them out. A snapshot remembers the root-to-leaf path it used last
 * (its finger), so the nearby positions Negentropy asks for next climb only part of the way.
 */
public final class FingerprintTree {
    /** Most items in a leaf; a leaf that outgrows it splits in two. */
    static final int LEAF_MAX = 64;
    /** A leaf (other than the root) below this many items merges with a sibling. */
    static final int LEAF_MIN = LEAF_MAX / 4;
    /** Most children of an inner node. */
    static final int INNER_MAX = 32;
    /** An inner node (other than the root) below this many children merges with a sibling. */
    static final int INNER_MIN = INNER_MAX / 4;
    /** A leaf keeps the running id sum at every GROUP-th item, so a prefix sum adds at most GROUP/2 ids. */
    static final int GROUP = 4;

    private static final VarHandle LIMB = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle BIG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final Leaf EMPTY = new Leaf(new long[0], new long[0]);

    private Node root; // guarded by this
    /** Nodes whose {@code owner} is this belong to the tree alone: no snapshot sees them (guarded by this). */
    private Object owner = new Object();
    /** {@link #insertAll}'s merge buffers (guarded by this). */
    private Scratch scratch = new Scratch();

    /** An empty tree. */
    public FingerprintTree() {
        this.root = EMPTY;
    }

    private FingerprintTree(Node root) {
        this.root = root;
    }

    /**
     * A tree of {@code items}, which must be in ascending order without duplicates, built bottom-up
     * in O(n) with nodes filled evenly.
     */
    public static FingerprintTree fromSorted(List<Item> items) {
        int n = items.size();
        Item[] all = items.toArray(new Item[0]);
        for (int i = 1; i < n; i++) {
            if (all[i - 1].compareTo(all[i]) >= 0) {
                throw new NegentropyException("items not in ascending order or duplicate at " + i + ": " + all[i]);
            }
        }
        if (n == 0) {
            return new FingerprintTree();
        }
        int leaves = (n + LEAF_MAX - 1) / LEAF_MAX;
        Node[] level = new Node[leaves];
        for (int i = 0; i < leaves; i++) {
            int from = (int) ((long) i * n / leaves);
            int to = (int) ((long) (i + 1) * n / leaves);
            long[] ts = new long[to - from];
            long[] ids = new long[4 * (to - from)];
            for (int j = from; j < to; j++) {
                ts[j - from] = all[j].timestamp();
                putId(ids, 4 * (j - from), all[j].id().raw());
            }
            level[i] = new Leaf(ts, ids);
        }
        while (level.length > 1) {
            level = group(level, INNER_MAX, null);
        }
        return new FingerprintTree(level[0]);
    }

    /** The number of items now. */
    public synchronized int size() {
        return root.size();
    }

    /** Whether the tree holds {@code item} now. */
    public synchronized boolean contains(Item item) {
        Key k = Key.of(item);
        Node n = root;
        while (n instanceof Inner in) {
            int c = in.childFor(k);
            if (c < 0) {
                return false;
            }
            n = in.children[c];
        }
        return ((Leaf) n).search(k) >= 0;
    }

    /** The items as they are now; later writes never change the returned storage. O(1). */
    public synchronized Snapshot snapshot() {
        owner = new Object(); // what the tree owned is the snapshot's too from now on: copied before any change
        return new Snapshot(root);
    }

    /** Adds {@code item}; returns false, changing nothing, when it is already there. */
    public synchronized boolean insert(Item item) {
        Node current = root;
        Node[] result = insert(current, Key.of(item));
        if (result == null) {
            return false;
        }
        root = result.length == 1 ? result[0] : new Inner(result);
        return true;
    }

    /** Removes {@code item}; returns false, changing nothing, when it is not there. */
    public synchronized boolean remove(Item item) {
        Node current = root;
        Node result = remove(current, Key.of(item));
        if (result == null) {
            return false;
        }
        while (result instanceof Inner in && in.k == 1) {
            result = in.children[0];
        }
        root = result;
        return true;
    }

    // Keys: a timestamp and an id as four big-endian limbs, so that unsigned limb order is byte order.

    /** The place of an item or bound in the order: compared against packed items without building them. */
    private record Key(long ts, long k0, long k1, long k2, long k3, byte[] id) {
        static Key of(Item item) {
            byte[] id = item.id().raw();
            return new Key(item.timestamp(), (long) BIG.get(id, 0), (long) BIG.get(id, 8), (long) BIG.get(id, 16),
                    (long) BIG.get(id, 24), id);
        }

        static Key of(Bound bound) {
            byte[] p = bound.rawIdPrefix();
            byte[] id = p.length == Id.SIZE ? p : Arrays.copyOf(p, Id.SIZE);
            return new Key(bound.timestamp(), (long) BIG.get(id, 0), (long) BIG.get(id, 8), (long) BIG.get(id, 16),
                    (long) BIG.get(id, 24), id);
        }

        /** Compares this key with the first item below {@code n} (not the empty leaf). */
        int compareToFirst(Node n) {
            if (ts != n.firstTs()) {
                return Long.compareUnsigned(ts, n.firstTs());
            }
            long[] first = {n.firstId(0), n.firstId(1), n.firstId(2), n.firstId(3)};
            return compareTo(ts, first, 0);
        }

        /** Compares this key with the packed item (timestamp {@code t}, limbs {@code ids[off .. off+3]}). */
        int compareTo(long t, long[] ids, int off) {
            if (ts != t) {
                return Long.compareUnsigned(ts, t);
            }
            long x = Long.reverseBytes(ids[off]);
            if (k0 != x) {
                return Long.compareUnsigned(k0, x);
            }
            x = Long.reverseBytes(ids[off + 1]);
            if (k1 != x) {
                return Long.compareUnsigned(k1, x);
            }
            x = Long.reverseBytes(ids[off + 2]);
            if (k2 != x) {
                return Long.compareUnsigned(k2, x);
            }
            x = Long.reverseBytes(ids[off + 3]);
            return k3 == x ? 0 : Long.compareUnsigned(k3, x);
        }
    }

    /** Compares the packed items a (at {@code ia}) and b (at {@code ib}). */
    private static int compare(long[] tsA, long[] idsA, int ia, long[] tsB, long[] idsB, int ib) {
        if (tsA[ia] != tsB[ib]) {
            return Long.compareUnsigned(tsA[ia], tsB[ib]);
        }
        for (int l = 0; l < 4; l++) {
            long x = Long.reverseBytes(idsA[4 * ia + l]);
            long y = Long.reverseBytes(idsB[4 * ib + l]);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        return 0;
    }

    private static void putId(long[] ids, int off, byte[] id) {
        ids[off] = (long) LIMB.get(id, 0);
        ids[off + 1] = (long) LIMB.get(id, 8);
        ids[off + 2] = (long) LIMB.get(id, 16);
        ids[off + 3] = (long) LIMB.get(id, 24);
    }

    /** A fresh 32-byte id from the limbs at {@code ids[off .. off+3]}. */
    private static byte[] idBytes(long[] ids, int off) {
        byte[] b = new byte[Id.SIZE];
        LIMB.set(b, 0, ids[off]);
        LIMB.set(b, 8, ids[off + 1]);
        LIMB.set(b, 16, ids[off + 2]);
        LIMB.set(b, 24, ids[off + 3]);
        return b;
    }

    // Writing: every call builds new nodes along the path and shares the rest.

    /**
     * Adds every item of {@code items} (any order; duplicates and items already there are skipped) and returns how many
     * were added. One batch copies each node on the paths to its items once, where {@link #insert} one at a time copies
     * a leaf and every inner node above it per item: a commit of a thousand events into a tree of a million makes a
     * few hundred leaf copies and a few inner ones instead of a thousand of each and three thousand inner ones.
     */
    public synchronized int insertAll(java.util.Collection<Item> items) {
        if (items.isEmpty()) {
            return 0;
        }
        Item[] sorted = items.toArray(new Item[0]);
        Arrays.sort(sorted); // the tree's order (fromSorted checks the same)
        Key[] keys = new Key[sorted.length];
        for (int k = 0; k < sorted.length; k++) {
            keys[k] = Key.of(sorted[k]);
        }
        Node current = root;
        int before = current.size();
        Node[] result = insertAll(current, keys, 0, keys.length, scratch, owner);
        if (scratch.ts.length > 4 * LEAF_MAX) {
            scratch = new Scratch(); // kept between batches only while small (one leaf and a commit's few items)
        }
        if (result == null) {
            return 0;
        }
        if (result != IN_PLACE) {
            while (result.length > 1) {
                result = group(result, INNER_MAX, owner);
            }
            root = result[0];
        }
        return root.size() - before;
    }

    /** One batch's merge buffers, reused leaf after leaf: a leaf's items with the batch's keys that fall in it. */
    private static final class Scratch {
        long[] ts = new long[0];
        long[] ids = new long[0];

        void fit(int items) {
            if (ts.length < items) {
                int cap = Math.max(items, 2 * ts.length); // a one-event commit into a small leaf needs a few items
                ts = new long[cap];
                ids = new long[4 * cap];
            }
        }
    }

    /** What {@link #insertAll(Node, Key[], int, int, Scratch, Object)} answers for a node it changed in place. */
    private static final Node[] IN_PLACE = new Node[0];

    /**
     * {@code nodes} as evenly filled inner nodes of at most {@code max} children each, belonging to {@code owner}
     * (null: shared from the start, as a bulk build's).
     */
    private static Node[] group(Node[] nodes, int max, Object owner) {
        int m = nodes.length;
        int groups = (m + max - 1) / max;
        Node[] up = new Node[groups];
        for (int i = 0; i < groups; i++) {
            int from = (int) ((long) i * m / groups);
            int to = (int) ((long) (i + 1) * m / groups);
            up[i] = owner == null ? new Inner(Arrays.copyOfRange(nodes, from, to)) : Inner.owned(nodes, from, to, owner);
        }
        return up;
    }

    /**
     * The replacement of {@code n} with {@code keys[from, to)} (sorted) added: one node, or several evenly filled ones
     * of n's height when they do not fit in one; {@link #IN_PLACE} when n belongs to {@code owner} and took the keys
     * itself; null when every key was there already. Every node it makes belongs to {@code owner}.
     */
    private static Node[] insertAll(Node n, Key[] keys, int from, int to, Scratch scratch, Object owner) {
        if (n instanceof Leaf leaf) {
            // merged into the batch's scratch arrays straight from the leaf's packed items; only the new leaves are
            // allocated (a leaf's items unpacked into fresh arrays and merged into more fresh arrays cost three
            // times its size per leaf touched)
            int size = leaf.n;
            long[] old = leaf.data;
            scratch.fit(size + (to - from));
            long[] ts = scratch.ts;
            long[] ids = scratch.ids;
            int i = 0;
            int j = from;
            int out = 0;
            while (i < size || j < to) {
                int c = j >= to ? 1 : i >= size ? -1 : keys[j].compareTo(old[Leaf.off(i)], old, Leaf.off(i) + 1);
                if (c < 0) {
                    Key key = keys[j++];
                    if (out > 0 && key.compareTo(ts[out - 1], ids, 4 * (out - 1)) == 0) {
                        continue; // the same key twice in the batch
                    }
                    ts[out] = key.ts();
                    putId(ids, 4 * out, key.id());
                    out++;
                } else {
                    if (c == 0) {
                        j++; // already there
                    }
                    int o = Leaf.off(i);
                    ts[out] = old[o];
                    System.arraycopy(old, o + 1, ids, 4 * out, 4);
                    out++;
                    i++;
                }
            }
            if (out == size) {
                return null;
            }
            if (out <= LEAF_MAX) {
                if (leaf.owner == owner) {
                    leaf.refill(ts, ids, out);
                    return IN_PLACE;
                }
                return new Node[] {Leaf.owned(ts, ids, 0, out, owner)};
            }
            int parts = (out + LEAF_MAX - 1) / LEAF_MAX;
            Node[] leaves = new Node[parts];
            for (int p = 0; p < parts; p++) {
                leaves[p] = Leaf.owned(ts, ids, (int) ((long) p * out / parts), (int) ((long) (p + 1) * out / parts), owner);
            }
            return leaves;
        }
        Inner in = (Inner) n;
        Node[] kids = in.children;
        int k = in.k;
        List<Node> next = null; // made at the first child that is replaced
        boolean changed = false;
        int j = from;
        for (int c = 0; c < k; c++) {
            int end = to;
            if (c + 1 < k) {
                end = j;
                while (end < to && keys[end].compareToFirst(kids[c + 1]) < 0) {
                    end++;
                }
            }
            Node[] replaced = end > j ? insertAll(kids[c], keys, j, end, scratch, owner) : null;
            if (replaced == IN_PLACE) {
                changed = true;
                replaced = null; // the same child, changed
            } else if (replaced != null) {
                changed = true;
                if (next == null) {
                    next = new ArrayList<>(k + replaced.length);
                    next.addAll(Arrays.asList(kids).subList(0, c));
                }
            }
            if (next != null) {
                if (replaced != null) {
                    next.addAll(Arrays.asList(replaced));
                } else {
                    next.add(kids[c]);
                }
            }
            j = end;
        }
        if (!changed) {
            return null;
        }
        if (next == null && in.owner == owner) {
            in.recompute(); // only children changed in place: their counts, sums and first items
            return IN_PLACE;
        }
        Node[] all = next == null ? Arrays.copyOf(kids, k) : next.toArray(new Node[0]);
        if (all.length > INNER_MAX) {
            return group(all, INNER_MAX, owner);
        }
        if (in.owner == owner) {
            in.set(all);
            return IN_PLACE;
        }
        return new Node[] {Inner.owned(all, 0, all.length, owner)};
    }

    /** The replacement of {@code n} (one node, or two after a split), or null when item is there. */
    private static Node[] insert(Node n, Key key) {
        if (n instanceof Leaf leaf) {
            int pos = leaf.search(key);
            if (pos >= 0) {
                return null;
            }
            pos = -pos - 1;
            int size = leaf.n;
            long[] oldTs = leaf.timestamps();
            long[] oldIds = leaf.ids();
            long[] ts = new long[size + 1];
            long[] ids = new long[4 * (size + 1)];
            System.arraycopy(oldTs, 0, ts, 0, pos);
            System.arraycopy(oldIds, 0, ids, 0, 4 * pos);
            ts[pos] = key.ts();
            putId(ids, 4 * pos, key.id());
            System.arraycopy(oldTs, pos, ts, pos + 1, size - pos);
            System.arraycopy(oldIds, 4 * pos, ids, 4 * (pos + 1), 4 * (size - pos));
            if (ts.length > LEAF_MAX) {
                int half = ts.length / 2;
                return new Node[] {Leaf.slice(ts, ids, 0, half), Leaf.slice(ts, ids, half, ts.length)};
            }
            return new Node[] {new Leaf(ts, ids)};
        }
        Inner in = (Inner) n;
        int c = Math.max(0, in.childFor(key));
        Node[] replaced = insert(in.children[c], key);
        if (replaced == null) {
            return null;
        }
        Node[] kids = in.kids();
        Node[] next = new Node[kids.length + replaced.length - 1];
        System.arraycopy(kids, 0, next, 0, c);
        System.arraycopy(replaced, 0, next, c, replaced.length);
        System.arraycopy(kids, c + 1, next, c + replaced.length, kids.length - c - 1);
        if (next.length > INNER_MAX) {
            int half = next.length / 2;
            return new Node[] {new Inner(Arrays.copyOf(next, half)), new Inner(Arrays.copyOfRange(next, half, next.length))};
        }
        return new Node[] {new Inner(next)};
    }

    /** The replacement of {@code n}, possibly under-full, or null when item is not there. */
    private static Node remove(Node n, Key key) {
        if (n instanceof Leaf leaf) {
            int pos = leaf.search(key);
            if (pos < 0) {
                return null;
            }
            int size = leaf.n;
            long[] oldTs = leaf.timestamps();
            long[] oldIds = leaf.ids();
            long[] ts = new long[size - 1];
            long[] ids = new long[4 * (size - 1)];
            System.arraycopy(oldTs, 0, ts, 0, pos);
            System.arraycopy(oldIds, 0, ids, 0, 4 * pos);
            System.arraycopy(oldTs, pos + 1, ts, pos, size - pos - 1);
            System.arraycopy(oldIds, 4 * (pos + 1), ids, 4 * pos, 4 * (size - pos - 1));
            return new Leaf(ts, ids);
        }
        Inner in = (Inner) n;
        int c = in.childFor(key);
        if (c < 0) {
            return null;
        }
        Node replaced = remove(in.children[c], key);
        if (replaced == null) {
            return null;
        }
        Node[] kids = in.kids().clone();
        kids[c] = replaced;
        if (kids.length > 1 && replaced.underfull()) {
            int left = c > 0 ? c - 1 : c;
            Node[] merged = merge(kids[left], kids[left + 1]);
            Node[] next = new Node[kids.length - 2 + merged.length];
            System.arraycopy(kids, 0, next, 0, left);
            System.arraycopy(merged, 0, next, left, merged.length);
            System.arraycopy(kids, left + 2, next, left + merged.length, kids.length - left - 2);
            kids = next;
        }
        return new Inner(kids);
    }

    /** Two neighbours of one height as one node, or as two evenly filled ones if one would overflow. */
    private static Node[] merge(Node a, Node b) {
        if (a instanceof Leaf la) {
            Leaf lb = (Leaf) b;
            long[] ts = concat(la.timestamps(), lb.timestamps());
            long[] ids = concat(la.ids(), lb.ids());
            if (ts.length > LEAF_MAX) {
                int half = ts.length / 2;
                return new Node[] {Leaf.slice(ts, ids, 0, half), Leaf.slice(ts, ids, half, ts.length)};
            }
            return new Node[] {new Leaf(ts, ids)};
        }
        Node[] all = concat(((Inner) a).kids(), ((Inner) b).kids());
        if (all.length > INNER_MAX) {
            int half = all.length / 2;
            return new Node[] {new Inner(Arrays.copyOf(all, half)), new Inner(Arrays.copyOfRange(all, half, all.length))};
        }
        return new Node[] {new Inner(all)};
    }

    private static <T> T[] concat(T[] a, T[] b) {
        T[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    // Nodes: shared ones (owner null) are immutable; an owned one changes only under its tree's lock, while no snapshot holds it.

    private abstract static sealed class Node permits Leaf, Inner {
        /** The tree that may change this node in place, or null (shared: never changed). */
        final Object owner;

        Node(Object owner) {
            this.owner = owner;
        }

        abstract int size();

        /** The timestamp of the smallest item below (not for the empty leaf). */
        abstract long firstTs();

        /** Limb {@code l} of the id of the smallest item below (not for the empty leaf). */
        abstract long firstId(int l);

        /** Limb {@code l} (0 = least significant) of the sum of the ids below. */
        abstract long total(int l);

        abstract boolean underfull();
    }

    private static final class Leaf extends Node {
        /** The number of items. */
        int n;
        /**
         * Items and running sums interleaved, so that a prefix sum and the items next to it share
         * cache lines: for each group g of GROUP items, the sum of the ids [0, GROUP * g) as four
         * little-endian limbs, then each item of the group as its timestamp and its id as four
         * little-endian limbs (the id bytes read 8 at a time); after the last group, the sum of
         * all the ids. Item i is at {@link #off(int)}, the sum before group g at {@link #cumOff(int)}, the total at
         * {@link #totalOff()}. An owned leaf's array may be longer than its items need (room to take more in place).
         */
        long[] data;

        Leaf(long[] ts, long[] ids) {
            this(ts, ids, 0, ts.length, null, ts.length);
        }

        /**
         * A leaf of items {@code [from, to)} of {@code ts} and {@code ids} (four limbs per item), copied, with room
         * for {@code capacity} items.
         */
        private Leaf(long[] ts, long[] ids, int from, int to, Object owner, int capacity) {
            super(owner);
            this.data = new long[dataLength(capacity)];
            fill(ts, ids, from, to);
        }

        /** A leaf that {@code owner} may change in place, with room for a quarter more items (at most LEAF_MAX). */
        static Leaf owned(long[] ts, long[] ids, int from, int to, Object owner) {
            return new Leaf(ts, ids, from, to, owner, roomFor(to - from));
        }

        static Leaf slice(long[] ts, long[] ids, int from, int to) {
            return new Leaf(ts, ids, from, to, null, to - from);
        }

        /** The length of a data array for {@code items} items. */
        static int dataLength(int items) {
            return 4 * ((items + GROUP - 1) / GROUP + 1) + 5 * items;
        }

        private static int roomFor(int items) {
            return Math.min(LEAF_MAX, items + Math.max(GROUP, items / 4));
        }

        /** This owned leaf's items replaced by {@code ts} and {@code ids [0, count)}: in its array when they fit. */
        void refill(long[] ts, long[] ids, int count) {
            if (dataLength(count) > data.length) {
                data = new long[dataLength(roomFor(count))];
            }
            fill(ts, ids, 0, count);
        }

        private void fill(long[] ts, long[] ids, int from, int to) {
            long[] d = data;
            int count = to - from;
            int total = dataLength(count) - 4; // the running sum is kept where the total ends up
            Arrays.fill(d, total, total + 4, 0L);
            for (int i = 0; i < count; i++) {
                int o = off(i);
                if (i % GROUP == 0) {
                    System.arraycopy(d, total, d, o - 4, 4); // the sum before this group: cumOff(i / GROUP)
                }
                d[o] = ts[from + i];
                System.arraycopy(ids, 4 * (from + i), d, o + 1, 4);
                add(d, total, ids, 4 * (from + i));
            }
            this.n = count;
        }

        /** Where the sum of all the ids is. */
        int totalOff() {
            return dataLength(n) - 4;
        }

        /** Where item i's timestamp is; its id limbs follow. */
        static int off(int i) {
            return 4 * (i / GROUP + 1) + 5 * i;
        }

        /** Where the sum of the ids before group g is, for g up to the number of groups (the total). */
        int cumOff(int g) {
            return 4 * g + 5 * Math.min(g * GROUP, n);
        }

        long[] timestamps() {
            long[] ts = new long[n];
            for (int i = 0; i < n; i++) {
                ts[i] = data[off(i)];
            }
            return ts;
        }

        long[] ids() {
            long[] ids = new long[4 * n];
            for (int i = 0; i < n; i++) {
                System.arraycopy(data, off(i) + 1, ids, 4 * i, 4);
            }
            return ids;
        }

        /** The position of {@code key}, or -(insertion point) - 1 when it is not here. */
        int search(Key key) {
            int lo = 0;
            int hi = n - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int o = off(mid);
                int c = key.compareTo(data[o], data, o + 1);
                if (c > 0) {
                    lo = mid + 1;
                } else if (c < 0) {
                    hi = mid - 1;
                } else {
                    return mid;
                }
            }
            return -(lo + 1);
        }

        /** The number of items below {@code bound}. */
        int lowerBound(Key bound) {
            int lo = 0;
            int hi = n;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                int o = off(mid);
                if (bound.compareTo(data[o], data, o + 1) > 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        Item item(int i) {
            int o = off(i);
            return new Item(data[o], Id.wrap(idBytes(data, o + 1)));
        }

        @Override
        int size() {
            return n;
        }

        @Override
        long firstTs() {
            return data[4];
        }

        @Override
        long firstId(int l) {
            return data[5 + l];
        }

        @Override
        long total(int l) {
            return data[totalOff() + l];
        }

        @Override
        boolean underfull() {
            return n < LEAF_MIN;
        }
    }

    private static final class Inner extends Node {
        /** The children are {@code children[0, k)}; an owned node's arrays have room for INNER_MAX. */
        Node[] children;
        int k;
        /** keyTs[c] and keyId[4c .. 4c+3]: the smallest item of child c, packed as in a leaf. */
        final long[] keyTs;
        final long[] keyId;
        /** cumCount[c] = items in children [0, c); cumCount[k] = size. */
        final int[] cumCount;
        /** cumSum[4c .. 4c+3] = sum of the ids in children [0, c), as four little-endian limbs. */
        final long[] cumSum;

        /** A shared node over {@code children} (the array is kept). */
        Inner(Node[] children) {
            this(children, children.length, null);
        }

        private Inner(Node[] children, int k, Object owner) {
            super(owner);
            int cap = children.length;
            this.children = children;
            this.k = k;
            this.keyTs = new long[cap];
            this.keyId = new long[4 * cap];
            this.cumCount = new int[cap + 1];
            this.cumSum = new long[4 * (cap + 1)];
            recompute();
        }

        /** A node that {@code owner} may change in place, over {@code nodes[from, to)}, with room for INNER_MAX. */
        static Inner owned(Node[] nodes, int from, int to, Object owner) {
            Node[] kids = new Node[INNER_MAX];
            System.arraycopy(nodes, from, kids, 0, to - from);
            return new Inner(kids, to - from, owner);
        }

        /** This owned node's children replaced by {@code all} (at most INNER_MAX). */
        void set(Node[] all) {
            System.arraycopy(all, 0, children, 0, all.length);
            if (all.length < k) {
                Arrays.fill(children, all.length, k, null); // no longer children: not kept reachable
            }
            k = all.length;
            recompute();
        }

        /** The children, exactly. */
        Node[] kids() {
            return k == children.length ? children : Arrays.copyOf(children, k);
        }

        /** The first items, running counts and sums, from the children. */
        void recompute() {
            for (int c = 0; c < k; c++) {
                Node child = children[c];
                keyTs[c] = child.firstTs();
                for (int l = 0; l < 4; l++) {
                    keyId[4 * c + l] = child.firstId(l);
                }
                cumCount[c + 1] = cumCount[c] + child.size();
                long carry = 0;
                for (int l = 0; l < 4; l++) {
                    long a = cumSum[4 * c + l];
                    long b = child.total(l);
                    long s = a + b + carry;
                    carry = ((a & b) | ((a | b) & ~s)) >>> 63;
                    cumSum[4 * (c + 1) + l] = s;
                }
            }
        }

        @Override
        int size() {
            return cumCount[k];
        }

        @Override
        long firstTs() {
            return keyTs[0];
        }

        @Override
        long firstId(int l) {
            return keyId[l];
        }

        @Override
        long total(int l) {
            return cumSum[4 * k + l];
        }

        @Override
        boolean underfull() {
            return k < INNER_MIN;
        }

        /** The child holding position {@code index}, 0 &lt;= index &lt; size. */
        int childAt(int index) {
            // children hold similar counts, so start from the proportional guess and step from there
            int k = this.k;
            int c = (int) ((long) index * k / cumCount[k]);
            while (cumCount[c] > index) {
                c--;
            }
            while (cumCount[c + 1] <= index) {
                c++;
            }
            return c;
        }

        /** The last child whose first item is at or below {@code key}, or -1 if none is. */
        int childFor(Key key) {
            int lo = 0;
            int hi = k;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (key.compareTo(keyTs[mid], keyId, 4 * mid) >= 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo - 1;
        }

        /** The number of leading children whose first item is below {@code bound}. */
        int childrenBelow(Key bound) {
            int lo = 0;
            int hi = k;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (bound.compareTo(keyTs[mid], keyId, 4 * mid) > 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    /** Receives ids packed as four little-endian limbs at {@code ids[off .. off+3]}. */
    @FunctionalInterface
    interface PackedIdVisitor {
        void visit(long[] ids, int off);
    }

    /** An immutable view of the tree at one moment. */
    public static final class Snapshot implements Storage {
        private final Node root;
        /**
         * The prefix sum at the end of the range fingerprinted last: Negentropy fingerprints buckets
         * that follow each other, so the next begin is usually this end. Sessions on other threads
         * may race on the field, which is harmless: a Prefix is immutable, and a miss recomputes.
         */
        private Prefix lastEnd;

        /**
         * The leaf located last, so that nearby calls (consecutive buckets, a fingerprint after the
         * lower bound that ended it) skip most of the descent. Volatile, as a Finger's arrays are
         * filled after it is constructed; sessions on other threads may still race on it, which
         * is harmless: a published Finger is never changed, and any Finger is a valid start.
         */
        private volatile Finger finger;
        /** Nodes on a path from the root to a leaf, the root and the leaf included. */
        private final int levels;
        /** Whether one thread alone reads this view, so that the finger may move in place. */
        private final boolean confined;

        /**
         * A view of the same items for one thread (one reconciliation session), which moves its
         * finger in place instead of copying it on every move.
         */
        Snapshot confined() {
            return new Snapshot(root, true);
        }

        private record Prefix(int index, long[] limbs) {
        }

        /**
         * The path from the root to one leaf: for each level k (0 = root) the node, its index in
         * its parent, the position of its first item and the sum of the ids before it. Immutable.
         */
        private static final class Finger {
            final Node[] nodes;
            final int[] child;
            final int[] starts;
            /** sums[4k .. 4k+3] = sum of the ids before nodes[k]. */
            final long[] sums;

            Finger(int levels) {
                nodes = new Node[levels];
                child = new int[levels];
                starts = new int[levels];
                sums = new long[4 * levels];
            }

            /** A copy of levels [0, k] of {@code f}, deeper levels left to fill. */
            Finger(Finger f, int k) {
                this(f.nodes.length);
                System.arraycopy(f.nodes, 0, nodes, 0, k + 1);
                System.arraycopy(f.child, 0, child, 0, k + 1);
                System.arraycopy(f.starts, 0, starts, 0, k + 1);
                System.arraycopy(f.sums, 0, sums, 0, 4 * (k + 1));
            }

            int depth() {
                return nodes.length - 1;
            }

            Leaf leaf() {
                return (Leaf) nodes[nodes.length - 1];
            }

            int start() {
                return starts[nodes.length - 1];
            }

            int beforeOffset() {
                return 4 * (nodes.length - 1);
            }

            boolean holds(int index) {
                return index >= start() && index < start() + leaf().n;
            }

            /** Fills levels (k, depth] toward position {@code index}, which lies below nodes[k]. */
            Finger descend(int k, int index) {
                for (int j = k; j < nodes.length - 1; j++) {
                    Inner in = (Inner) nodes[j];
                    int c = in.childAt(index - starts[j]);
                    step(j, in, c);
                }
                return this;
            }

            /** Fills levels (k, depth] toward the last item below {@code key}, which lies below nodes[k]. */
            Finger descend(int k, Key key) {
                for (int j = k; j < nodes.length - 1; j++) {
                    Inner in = (Inner) nodes[j];
                    int c = Math.max(in.childrenBelow(key) - 1, 0);
                    step(j, in, c);
                }
                return this;
            }

            private void step(int j, Inner in, int c) {
                nodes[j + 1] = in.children[c];
                child[j + 1] = c;
                starts[j + 1] = starts[j] + in.cumCount[c];
                System.arraycopy(sums, 4 * j, sums, 4 * (j + 1), 4);
                add(sums, 4 * (j + 1), in.cumSum, 4 * c);
            }
        }

        private Snapshot(Node root) {
            this(root, false);
        }

        private Snapshot(Node root, boolean confined) {
            this.root = root;
            this.confined = confined;
            int levels = 1;
            for (Node n = root; n instanceof Inner in; n = in.children[0]) {
                levels++;
            }
            this.levels = levels;
        }

        @Override
        public int size() {
            return root.size();
        }

        @Override
        public Item item(int index) {
            if (index < 0 || index >= root.size()) {
                throw new NegentropyException("item index out of range: " + index);
            }
            Node n = root;
            while (n instanceof Inner in) {
                int c = in.childAt(index);
                index -= in.cumCount[c];
                n = in.children[c];
            }
            return ((Leaf) n).item(index);
        }

        /** The leaf holding position {@code index} (0 &lt;= index &lt; size), its local position in {@code local[0]}. */
        private Leaf leafAt(int index, int[] local) {
            Node n = root;
            while (n instanceof Inner in) {
                int c = in.childAt(index);
                index -= in.cumCount[c];
                n = in.children[c];
            }
            local[0] = index;
            return (Leaf) n;
        }

        /**
         * The path to the leaf holding position {@code index}, 0 &lt;= index &lt; size: from the last
         * finger, climbing only as far as needed.
         */
        private Finger fingerAt(int index) {
            Finger f = finger;
            if (f != null && f.holds(index)) {
                return f;
            }
            Finger next;
            if (f == null) {
                next = new Finger(levels);
                next.nodes[0] = root;
                next.descend(0, index);
            } else {
                int k = f.depth();
                while (k > 0 && (index < f.starts[k] || index >= f.starts[k] + f.nodes[k].size())) {
                    k--;
                }
                next = (confined ? f : new Finger(f, k)).descend(k, index);
            }
            if (next != f) {
                finger = next;
            }
            return next;
        }

        /**
         * {@code Bound.between(item(index - 1), item(index))} without building the items, for
         * 0 &lt; index &lt; size.
         */
        Bound boundBetween(int index) {
            if (index <= 0 || index >= root.size()) {
                throw new NegentropyException("item index out of range: " + index);
            }
            Finger old = finger;
            Leaf oldLeaf = old == null ? null : old.leaf();
            int oldStart = old == null ? 0 : old.start();
            Finger f = fingerAt(index); // may move old in place
            Leaf curr = f.leaf();
            int c = index - f.start();
            Leaf prev = curr;
            int p = c - 1;
            if (p < 0) {
                if (oldLeaf != null && index - 1 >= oldStart && index - 1 < oldStart + oldLeaf.n) {
                    prev = oldLeaf;
                    p = index - 1 - oldStart;
                } else {
                    int[] local = new int[1];
                    prev = leafAt(index - 1, local);
                    p = local[0];
                }
            }
            int co = Leaf.off(c);
            int po = Leaf.off(p);
            long t = curr.data[co];
            if (t != prev.data[po]) {
                return Bound.wrap(t, new byte[0]);
            }
            int shared = Id.SIZE;
            for (int l = 0; l < 4; l++) {
                long x = curr.data[co + 1 + l] ^ prev.data[po + 1 + l];
                if (x != 0) {
                    shared = 8 * l + (Long.numberOfTrailingZeros(x) >>> 3);
                    break;
                }
            }
            int length = Math.min(shared + 1, Id.SIZE);
            byte[] prefix = new byte[length];
            for (int i = 0; i < length; i++) {
                prefix[i] = (byte) (curr.data[co + 1 + (i >>> 3)] >>> (8 * (i & 7)));
            }
            return Bound.wrap(t, prefix);
        }

        @Override
        public void iterate(int begin, int end, ItemVisitor visitor) {
            checkBounds(begin, end);
            if (begin < end) {
                walk(root, begin, end, 0, visitor);
            }
        }

        /** Visits [from, to) of {@code n}, 0 &lt;= from &lt; to &lt;= n.size(); false once the visitor stops. */
        private static boolean walk(Node n, int from, int to, int offset, ItemVisitor visitor) {
            if (n instanceof Leaf leaf) {
                for (int i = from; i < to; i++) {
                    if (!visitor.visit(leaf.item(i), offset + i)) {
                        return false;
                    }
                }
                return true;
            }
            Inner in = (Inner) n;
            for (int c = in.childAt(from); c < in.k && in.cumCount[c] < to; c++) {
                int start = in.cumCount[c];
                int childFrom = Math.max(from - start, 0);
                int childTo = Math.min(to, in.cumCount[c + 1]) - start;
                if (!walk(in.children[c], childFrom, childTo, offset + start, visitor)) {
                    return false;
                }
            }
            return true;
        }

        /** Hands the ids of items [begin, end) to {@code visitor} in order, packed, without building items. */
        void forEachId(int begin, int end, PackedIdVisitor visitor) {
            checkBounds(begin, end);
            if (begin < end) {
                walkIds(root, begin, end, visitor);
            }
        }

        private static void walkIds(Node n, int from, int to, PackedIdVisitor visitor) {
            if (n instanceof Leaf leaf) {
                long[] data = leaf.data;
                for (int i = from; i < to; i++) {
                    visitor.visit(data, Leaf.off(i) + 1);
                }
                return;
            }
            Inner in = (Inner) n;
            for (int c = in.childAt(from); c < in.k && in.cumCount[c] < to; c++) {
                int start = in.cumCount[c];
                walkIds(in.children[c], Math.max(from - start, 0), Math.min(to, in.cumCount[c + 1]) - start, visitor);
            }
        }

        /** Appends the ids of items [begin, end) to {@code o}, 32 bytes each. */
        void writeIds(int begin, int end, MessageWriter o) {
            forEachId(begin, end, o::writeIdLimbs);
        }

        /** The ids of items [begin, end), in order. */
        List<Id> ids(int begin, int end) {
            List<Id> out = new ArrayList<>(end - begin);
            forEachId(begin, end, (ids, off) -> out.add(Id.wrap(idBytes(ids, off))));
            return out;
        }

        @Override
        public int findLowerBound(int begin, int end, Bound bound) {
            checkBounds(begin, end);
            if (begin == end) {
                return begin;
            }
            Key key = Key.of(bound);
            if (key.compareToFirst(root) <= 0) {
                return begin; // every item is at or above the bound
            }
            // items below the bound are a prefix of the whole sequence, so clamp its global end
            Finger f = finger;
            Finger next;
            if (f == null) {
                next = new Finger(levels);
                next.nodes[0] = root;
                next.descend(0, key);
            } else {
                // climb to the lowest node whose items bracket the bound: above its first item,
                // at or below the first item of its next sibling
                int k = f.depth();
                while (k > 0 && !brackets(f, k, key)) {
                    k--;
                }
                if (k == f.depth()) {
                    next = f;
                } else {
                    next = (confined ? f : new Finger(f, k)).descend(k, key);
                }
            }
            if (next != f) {
                finger = next;
            }
            int lower = next.start() + next.leaf().lowerBound(key);
            return Math.min(Math.max(lower, begin), end);
        }

        /** Whether nodes[k] (k &gt; 0) of {@code f} starts below {@code key} and its next sibling at or above it. */
        private static boolean brackets(Finger f, int k, Key key) {
            Inner parent = (Inner) f.nodes[k - 1];
            int c = f.child[k];
            return c + 1 < parent.k
                    && key.compareTo(parent.keyTs[c], parent.keyId, 4 * c) > 0
                    && key.compareTo(parent.keyTs[c + 1], parent.keyId, 4 * (c + 1)) <= 0;
        }

        @Override
        public Fingerprint fingerprint(int begin, int end) {
            checkBounds(begin, end);
            Prefix before = lastEnd;
            long[] atEnd = new long[4];
            prefix(end, atEnd, false);
            long[] sum = atEnd.clone();
            if (before != null && before.index() == begin) {
                addOrSub(sum, before.limbs(), 0, true);
            } else {
                prefix(begin, sum, true);
            }
            lastEnd = new Prefix(end, atEnd);
            return Accumulator.ofLimbs(sum).fingerprint(end - begin);
        }

        /** Adds (or subtracts) the sum of the ids at positions [0, index) to {@code acc}. */
        private void prefix(int index, long[] acc, boolean subtract) {
            if (index >= root.size()) {
                Node r = root;
                if (subtract) {
                    sub(acc, r.total(0), r.total(1), r.total(2), r.total(3));
                } else {
                    add(acc, r.total(0), r.total(1), r.total(2), r.total(3));
                }
                return;
            }
            Finger f = finger;
            if (f == null || index < f.start() || index > f.start() + f.leaf().n) {
                f = fingerAt(index);
            }
            addOrSub(acc, f.sums, f.beforeOffset(), subtract);
            Leaf leaf = f.leaf();
            index -= f.start();
            int size = leaf.n;
            if (index >= size) {
                addOrSub(acc, leaf.data, leaf.totalOff(), subtract);
                return;
            }
            long[] data = leaf.data;
            int g = index / GROUP;
            int lo = g * GROUP;
            int hi = Math.min(lo + GROUP, size);
            if (index - lo <= hi - index) {
                // the running sum at the group start plus the ids from there to index
                addOrSub(acc, data, leaf.cumOff(g), subtract);
                for (int i = lo; i < index; i++) {
                    addOrSub(acc, data, Leaf.off(i) + 1, subtract);
                }
            } else {
                // the running sum at the group end less the ids from index to there
                addOrSub(acc, data, leaf.cumOff(g + 1), subtract);
                for (int i = index; i < hi; i++) {
                    addOrSub(acc, data, Leaf.off(i) + 1, !subtract);
                }
            }
        }

        private void checkBounds(int begin, int end) {
            if (begin < 0 || begin > end || end > root.size()) {
                throw new NegentropyException("bad range: [" + begin + ", " + end + ") of " + root.size());
            }
        }
    }

    // Sums mod 2^256 as four little-endian 64-bit limbs; carries and borrows as in Hacker's Delight 2-16.

    private static void addOrSub(long[] acc, long[] src, int off, boolean subtract) {
        if (subtract) {
            sub(acc, src[off], src[off + 1], src[off + 2], src[off + 3]);
        } else {
            add(acc, src[off], src[off + 1], src[off + 2], src[off + 3]);
        }
    }

    /** dst[doff .. doff+3] += src[soff .. soff+3]. */
    private static void add(long[] dst, int doff, long[] src, int soff) {
        long carry = 0;
        for (int l = 0; l < 4; l++) {
            long a = dst[doff + l];
            long b = src[soff + l];
            long s = a + b + carry;
            carry = ((a & b) | ((a | b) & ~s)) >>> 63;
            dst[doff + l] = s;
        }
    }

    private static void add(long[] acc, long b0, long b1, long b2, long b3) {
        long a = acc[0];
        long s = a + b0;
        long carry = ((a & b0) | ((a | b0) & ~s)) >>> 63;
        acc[0] = s;
        a = acc[1];
        s = a + b1 + carry;
        carry = ((a & b1) | ((a | b1) & ~s)) >>> 63;
        acc[1] = s;
        a = acc[2];
        s = a + b2 + carry;
        carry = ((a & b2) | ((a | b2) & ~s)) >>> 63;
        acc[2] = s;
        acc[3] = acc[3] + b3 + carry;
    }

    private static void sub(long[] acc, long b0, long b1, long b2, long b3) {
        long a = acc[0];
        long d = a - b0;
        long borrow = ((~a & b0) | ((~a | b0) & d)) >>> 63;
        acc[0] = d;
        a = acc[1];
        d = a - b1 - borrow;
        borrow = ((~a & b1) | ((~a | b1) & d)) >>> 63;
        acc[1] = d;
        a = acc[2];
        d = a - b2 - borrow;
        borrow = ((~a & b2) | ((~a | b2) & d)) >>> 63;
        acc[2] = d;
        acc[3] = acc[3] - b3 - borrow;
    }

    /** The root node, for tests that check which writes copy it. */
    synchronized Object rootNode() {
        return root;
    }

    /** Checks every structural invariant, for tests: throws IllegalStateException on the first broken one. */
    synchronized void verify() {
        Node r = root;
        if (r instanceof Inner in && in.k < 2) {
            throw new IllegalStateException("inner root with " + in.k + " child");
        }
        verify(r, true);
    }

    /** Returns the height of {@code n} (0 for a leaf); global order is the tests' to compare. */
    private static int verify(Node n, boolean isRoot) {
        if (n instanceof Leaf leaf) {
            int size = leaf.n;
            if (size > LEAF_MAX || (!isRoot && size < LEAF_MIN)) {
                throw new IllegalStateException("leaf of " + size);
            }
            long[] ts = leaf.timestamps();
            long[] ids = leaf.ids();
            for (int i = 1; i < size; i++) {
                if (compare(ts, ids, i - 1, ts, ids, i) >= 0) {
                    throw new IllegalStateException("leaf out of order at " + i);
                }
            }
            long[] exact = new Leaf(ts, ids).data;
            if (leaf.data.length < exact.length || !Arrays.equals(exact, 0, exact.length, leaf.data, 0, exact.length)) {
                throw new IllegalStateException("leaf running sums wrong");
            }
            return 0;
        }
        Inner in = (Inner) n;
        Node[] kids = in.kids();
        if (kids.length > INNER_MAX || (!isRoot && kids.length < INNER_MIN)) {
            throw new IllegalStateException("inner of " + kids.length);
        }
        for (int c = kids.length; c < in.children.length; c++) {
            if (in.children[c] != null) {
                throw new IllegalStateException("inner holds a node past its children");
            }
        }
        Inner rebuilt = new Inner(kids);
        int k = kids.length;
        if (!Arrays.equals(rebuilt.keyTs, 0, k, in.keyTs, 0, k) || !Arrays.equals(rebuilt.keyId, 0, 4 * k, in.keyId, 0, 4 * k)) {
            throw new IllegalStateException("inner first items wrong");
        }
        if (!Arrays.equals(rebuilt.cumCount, 0, k + 1, in.cumCount, 0, k + 1)
                || !Arrays.equals(rebuilt.cumSum, 0, 4 * (k + 1), in.cumSum, 0, 4 * (k + 1))) {
            throw new IllegalStateException("inner running count or sum wrong");
        }
        int depth = -1;
        for (int c = 0; c < kids.length; c++) {
            if (c > 0 && compare(in.keyTs, in.keyId, c - 1, in.keyTs, in.keyId, c) >= 0) {
                throw new IllegalStateException("children out of order");
            }
            int d = verify(kids[c], false);
            if (depth >= 0 && d != depth) {
                throw new IllegalStateException("leaves at different depths");
            }
            depth = d;
        }
        return depth + 1;
    }
}
