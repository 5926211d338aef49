package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The tree's snapshots read exactly as a {@link SortedVector} of the same items does. */
class FingerprintTreeTest {
    private static final int MAX_ROUNDS = 10_000;

    // Random data

    private static Item randomItem(Random r, int timeSpread) {
        byte[] raw = new byte[Id.SIZE];
        r.nextBytes(raw);
        if (r.nextInt(4) == 0) {
            Arrays.fill(raw, 0, 24, (byte) 0xff); // sums then carry across every limb
        } else if (r.nextInt(8) == 0) {
            Arrays.fill(raw, 0, 24, (byte) 0); // and differences borrow across them
        }
        return new Item(1_700_000_000L + r.nextInt(Math.max(1, timeSpread)), Id.of(raw));
    }

    private static SortedVector vectorOf(Iterable<Item> items) {
        SortedVector.Builder b = SortedVector.builder();
        items.forEach(b::insert);
        return b.seal();
    }

    /** A tree holding exactly {@code items}, reached by a bulk build and then single inserts and removes. */
    private static FingerprintTree organicTree(List<Item> items, Random r) {
        List<Item> sorted = new ArrayList<>(items);
        Collections.sort(sorted);
        List<Item> shuffled = new ArrayList<>(items);
        Collections.shuffle(shuffled, r);
        int bulk = shuffled.size() / 2;
        List<Item> first = new ArrayList<>(shuffled.subList(0, bulk));
        Collections.sort(first);
        FingerprintTree tree = FingerprintTree.fromSorted(first);
        List<Item> decoys = new ArrayList<>();
        for (Item item : shuffled.subList(bulk, shuffled.size())) {
            assertTrue(tree.insert(item));
            if (r.nextInt(10) == 0) {
                Item decoy = randomItem(r, 1000);
                if (Collections.binarySearch(sorted, decoy) < 0 && tree.insert(decoy)) {
                    decoys.add(decoy);
                }
            }
        }
        for (Item decoy : decoys) {
            assertTrue(tree.remove(decoy));
        }
        tree.verify();
        return tree;
    }

    // Storage equivalence

    /** Everything Negentropy reads from a storage, compared between the vector and the snapshot. */
    private static void assertSameStorage(SortedVector expected, Storage actual, Random r) {
        assertSameReads(expected, actual, r);
        if (actual instanceof FingerprintTree.Snapshot tree) {
            assertSameReads(expected, tree.confined(), r); // the view a Negentropy session reads, finger moved in place
        }
    }

    private static void assertSameReads(SortedVector expected, Storage actual, Random r) {
        int n = expected.size();
        assertEquals(n, actual.size());
        for (int i = 0; i < n; i++) {
            assertEquals(expected.item(i), actual.item(i), "item " + i);
        }
        assertThrows(NegentropyException.class, () -> actual.item(n));
        assertThrows(NegentropyException.class, () -> actual.item(-1));
        assertThrows(NegentropyException.class, () -> actual.fingerprint(0, n + 1));
        assertThrows(NegentropyException.class, () -> actual.iterate(1, 0, (item, index) -> true));

        assertEquals(visited(expected, 0, n, Integer.MAX_VALUE), visited(actual, 0, n, Integer.MAX_VALUE));
        if (actual instanceof FingerprintTree.Snapshot tree) {
            // the packed fast paths Negentropy takes for a tree
            for (int i = 1; i < n; i++) {
                Bound want = Bound.between(expected.item(i - 1), expected.item(i));
                Bound got = tree.boundBetween(i);
                assertEquals(want.timestamp(), got.timestamp(), "bound between " + (i - 1) + " and " + i);
                assertArrayEquals(want.rawIdPrefix(), got.rawIdPrefix(), "bound between " + (i - 1) + " and " + i);
            }
            int from = n == 0 ? 0 : r.nextInt(n + 1);
            List<Id> ids = new ArrayList<>();
            MessageWriter want = new MessageWriter();
            for (int i = from; i < n; i++) {
                ids.add(expected.item(i).id());
                want.write(expected.item(i).id().raw());
            }
            assertEquals(ids, tree.ids(from, n));
            MessageWriter got = new MessageWriter();
            tree.writeIds(from, n, got);
            assertArrayEquals(want.toBytes(), got.toBytes());
        }
        assertEquals(expected.fingerprint(0, n), actual.fingerprint(0, n));
        int probes = Math.min(2000, 20 + 4 * n);
        for (int t = 0; t < probes; t++) {
            int begin = r.nextInt(n + 1);
            int end = begin + r.nextInt(n - begin + 1);
            if (r.nextInt(4) == 0) {
                end = Math.min(n, begin + r.nextInt(3 * FingerprintTree.LEAF_MAX)); // within or across a few leaves
            }
            String range = "[" + begin + "," + end + ") of " + n;
            assertEquals(expected.fingerprint(begin, end), actual.fingerprint(begin, end), range);
            int stopAfter = r.nextInt(4) == 0 ? r.nextInt(100) : Integer.MAX_VALUE;
            if (end - begin < 600) {
                assertEquals(visited(expected, begin, end, stopAfter), visited(actual, begin, end, stopAfter), range);
            }
            Bound bound = randomBound(expected, r);
            assertEquals(expected.findLowerBound(begin, end, bound), actual.findLowerBound(begin, end, bound), range + " " + bound);
        }
    }

    private static Bound randomBound(SortedVector v, Random r) {
        int kind = r.nextInt(6);
        if (v.size() == 0 || kind == 0) {
            return switch (r.nextInt(3)) {
                case 0 -> Bound.ZERO;
                case 1 -> Bound.END;
                default -> Bound.of(1_700_000_000L + r.nextInt(2000) - 500, new byte[0]);
            };
        }
        Item item = v.item(r.nextInt(v.size()));
        return switch (kind) {
            case 1 -> Bound.of(item);
            case 2 -> Bound.of(item.timestamp(), new byte[0]);
            case 3 -> Bound.of(item.timestamp(), Arrays.copyOf(item.id().toBytes(), r.nextInt(Id.SIZE + 1)));
            case 4 -> Bound.of(item.timestamp() + 1, new byte[0]);
            default -> {
                byte[] prefix = Arrays.copyOf(item.id().toBytes(), 1 + r.nextInt(Id.SIZE));
                prefix[prefix.length - 1]++; // just past the item
                yield Bound.of(item.timestamp(), prefix);
            }
        };
    }

    /** The visited items, each followed by the index it was given, until {@code stopAfter} were seen. */
    private static List<Object> visited(Storage s, int begin, int end, int stopAfter) {
        List<Object> seen = new ArrayList<>();
        s.iterate(begin, end, (item, index) -> {
            seen.add(item);
            seen.add(index);
            return seen.size() < 2 * stopAfter;
        });
        return seen;
    }

    // Tests

    @ParameterizedTest(name = "{0} items")
    @ValueSource(ints = {0, 1, 5, 1000, 100_000})
    void snapshotsMatchTheVectorThroughRandomInsertsAndRemoves(int size) {
        Random r = new Random(size + 17);
        int timeSpread = Math.max(1, size / 3); // many equal timestamps
        TreeSet<Item> model = randomModel(r, size, timeSpread);
        FingerprintTree tree = FingerprintTree.fromSorted(new ArrayList<>(model));
        tree.verify();
        assertSameStorage(vectorOf(model), tree.snapshot(), r);

        int ops = Math.max(200, size / 2);
        int checkEvery = size <= 5 ? 1 : Math.max(1, ops / 10);
        for (int op = 1; op <= ops; op++) {
            int kind = r.nextInt(10);
            if (kind < 4) {
                Item item = randomItem(r, timeSpread);
                assertEquals(model.add(item), tree.insert(item));
            } else if (kind < 8) {
                if (!model.isEmpty()) {
                    Item victim = pick(model, r);
                    assertTrue(model.remove(victim));
                    assertTrue(tree.remove(victim));
                }
            } else if (kind == 8) {
                Item absent = randomItem(r, timeSpread);
                assertEquals(model.remove(absent), tree.remove(absent));
                assertFalse(tree.remove(absent));
            } else if (!model.isEmpty()) {
                Item present = pick(model, r);
                assertFalse(tree.insert(present), "duplicate ignored");
            }
            assertEquals(model.size(), tree.size());
            if (op % checkEvery == 0) {
                tree.verify();
                assertSameStorage(vectorOf(model), tree.snapshot(), r);
            }
        }
        tree.verify();
        assertSameStorage(vectorOf(model), tree.snapshot(), r);
        for (Item item : model) {
            assertTrue(tree.contains(item));
        }
    }

    private static Item pick(TreeSet<Item> model, Random r) {
        Item probe = model.ceiling(randomItem(r, 100_000));
        return probe != null ? probe : model.first();
    }

    @Test
    void growsFromEmptyByInsertsAndShrinksBackByRemoves() {
        Random r = new Random(5);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 30_000; i++) {
            items.add(randomItem(r, 5000));
        }
        FingerprintTree tree = new FingerprintTree();
        TreeSet<Item> model = new TreeSet<>();
        for (int i = 0; i < items.size(); i++) {
            assertEquals(model.add(items.get(i)), tree.insert(items.get(i)));
            if (i % 3001 == 0 || i < 100) {
                tree.verify();
                assertSameStorage(vectorOf(model), tree.snapshot(), r);
            }
        }
        tree.verify();
        assertSameStorage(vectorOf(model), tree.snapshot(), r);
        Collections.shuffle(items, r);
        for (int i = 0; i < items.size(); i++) {
            assertEquals(model.remove(items.get(i)), tree.remove(items.get(i)));
            if (i % 2999 == 0 || items.size() - i < 100) {
                tree.verify();
                assertSameStorage(vectorOf(model), tree.snapshot(), r);
            }
        }
        assertEquals(0, tree.size());
        assertEquals(SortedVector.builder().seal().fingerprint(0, 0), tree.snapshot().fingerprint(0, 0));
    }

    @Test
    void ascendingAndDescendingInsertsKeepTheTreeBalanced() {
        Random r = new Random(9);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            items.add(randomItem(r, 1_000_000));
        }
        Collections.sort(items);
        FingerprintTree up = new FingerprintTree();
        items.forEach(up::insert);
        up.verify();
        FingerprintTree down = new FingerprintTree();
        for (int i = items.size() - 1; i >= 0; i--) {
            down.insert(items.get(i));
        }
        down.verify();
        SortedVector v = vectorOf(items);
        assertSameStorage(v, up.snapshot(), r);
        assertSameStorage(v, down.snapshot(), r);
        // remove from one end: every merge happens at the left edge
        for (int i = 0; i < items.size() - 10; i++) {
            assertTrue(up.remove(items.get(i)));
        }
        up.verify();
        assertSameStorage(vectorOf(items.subList(items.size() - 10, items.size())), up.snapshot(), r);
    }

    @Test
    void fingerprintsEqualTheDirectSum() {
        Random r = new Random(11);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            items.add(randomItem(r, 300));
        }
        FingerprintTree tree = organicTree(new ArrayList<>(new TreeSet<>(items)), r);
        FingerprintTree.Snapshot s = tree.snapshot();
        for (int t = 0; t < 1000; t++) {
            int begin = r.nextInt(s.size() + 1);
            int end = begin + r.nextInt(s.size() - begin + 1);
            Accumulator direct = new Accumulator();
            for (int i = begin; i < end; i++) {
                direct.add(s.item(i).id());
            }
            assertEquals(direct.fingerprint(end - begin), s.fingerprint(begin, end), "[" + begin + "," + end + ")");
        }
    }

    /**
     * Batches of every size (1 to 5,000, into trees of 0 to 20,000 items: a leaf, one level, several levels split at once),
     * mixed with items already there, the same item twice in a batch, and single removes between batches: after each
     * batch the tree holds what the model holds, reads as its vector does, keeps every structural invariant, and a
     * snapshot taken before the batch still reads as before.
     */
    @ParameterizedTest(name = "{0} items first")
    @ValueSource(ints = {0, 1, 63, 64, 2_000, 20_000})
    void batchInsertsEqualTheSameItemsInsertedOneByOne(int size) {
        Random r = new Random(size + 91);
        int timeSpread = Math.max(50, size / 3);
        TreeSet<Item> model = randomModel(r, size, timeSpread);
        FingerprintTree tree = size == 0 ? new FingerprintTree() : organicTree(new ArrayList<>(model), r);
        int[] batches = {1, 2, 5, 63, 64, 65, 300, 1000, 2049, 5000};
        for (int round = 0; round < 3; round++) {
            for (int n : batches) {
                List<Item> batch = randomBatch(model, r, n, timeSpread);
                SortedVector beforeVector = vectorOf(model);
                FingerprintTree.Snapshot before = tree.snapshot();
                int expected = 0;
                for (Item it : batch) {
                    if (model.add(it)) {
                        expected++;
                    }
                }
                assertEquals(expected, tree.insertAll(batch), "added by a batch of " + n);
                assertEquals(model.size(), tree.size());
                tree.verify();
                assertSameStorage(vectorOf(model), tree.snapshot(), r);
                assertSameStorage(beforeVector, before, r);
                assertEquals(0, tree.insertAll(batch), "the same batch again adds nothing");
                removeSome(model, tree, r, n / 3);
                tree.verify();
            }
        }
        for (Item item : model) {
            assertTrue(tree.contains(item));
        }
        assertEquals(0, tree.insertAll(List.of()));
    }

    /**
     * Batches between snapshots change the nodes no snapshot has seen in place: random batches (items already there,
     * twice in a batch), single inserts and removes, with a snapshot only now and then. After every step the tree holds
     * what the model holds and keeps every invariant, and every snapshot taken so far still reads as it did.
     */
    @ParameterizedTest(name = "{0} items first")
    @ValueSource(ints = {0, 40, 3_000, 30_000})
    void batchesChangeWhatNoSnapshotSawInPlaceAndNeverWhatOneDid(int size) {
        Random r = new Random(size + 7);
        int timeSpread = Math.max(50, size / 2);
        TreeSet<Item> model = randomModel(r, size, timeSpread);
        FingerprintTree tree = size == 0 ? new FingerprintTree() : FingerprintTree.fromSorted(new ArrayList<>(model));
        List<FingerprintTree.Snapshot> snapshots = new ArrayList<>();
        List<SortedVector> seen = new ArrayList<>();
        int[] batches = {1, 3, 17, 64, 100, 700, 2500};
        for (int step = 0; step < 120; step++) {
            int op = r.nextInt(10);
            if (op < 6) {
                int n = batches[r.nextInt(batches.length)];
                List<Item> batch = randomBatch(model, r, n, timeSpread);
                int expected = 0;
                for (Item it : batch) {
                    if (model.add(it)) {
                        expected++;
                    }
                }
                assertEquals(expected, tree.insertAll(batch), "added by a batch of " + n + " at step " + step);
            } else if (op < 8 && !model.isEmpty()) {
                removeSome(model, tree, r, 1 + r.nextInt(1 + model.size() / 20));
            } else if (op == 8) {
                Item it = randomItem(r, timeSpread);
                assertEquals(model.add(it), tree.insert(it));
            } else {
                snapshots.add(tree.snapshot());
                seen.add(vectorOf(model));
            }
            assertEquals(model.size(), tree.size());
            tree.verify();
            if (step % 20 == 19) {
                for (int i = 0; i < snapshots.size(); i++) {
                    assertSameStorage(seen.get(i), snapshots.get(i), r);
                }
                assertSameStorage(vectorOf(model), tree.snapshot(), r);
            }
        }
        for (int i = 0; i < snapshots.size(); i++) {
            assertSameStorage(seen.get(i), snapshots.get(i), r);
        }
        assertSameStorage(vectorOf(model), tree.snapshot(), r);
    }

    @Test
    void aBatchChangesTheTreesOwnNodesInPlaceButCopiesWhatASnapshotHolds() {
        Random r = new Random(5);
        FingerprintTree tree = new FingerprintTree();
        List<Item> first = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            first.add(randomItem(r, 100_000));
        }
        tree.insertAll(first);
        Object root = tree.rootNode();
        tree.insertAll(List.of(randomItem(r, 100_000), randomItem(r, 100_000)));
        assertTrue(root == tree.rootNode(), "a batch with no snapshot since the last changes the root in place");
        FingerprintTree.Snapshot held = tree.snapshot();
        SortedVector heldVector = vectorOf(itemsOf(held));
        tree.insertAll(List.of(randomItem(r, 100_000)));
        assertTrue(root != tree.rootNode(), "after a snapshot the root is copied");
        Object copied = tree.rootNode();
        tree.insertAll(List.of(randomItem(r, 100_000)));
        assertTrue(copied == tree.rootNode(), "and the copy is the tree's own again");
        assertSameStorage(heldVector, held, r);
        assertEquals(5004, tree.size());
    }

    /** n items: mostly new, some already in the model, some twice in the batch. */
    /** {@code size} distinct random items, times spread over {@code timeSpread}. */
    private static TreeSet<Item> randomModel(Random r, int size, int timeSpread) {
        TreeSet<Item> model = new TreeSet<>();
        while (model.size() < size) {
            model.add(randomItem(r, timeSpread));
        }
        return model;
    }

    private static List<Item> randomBatch(TreeSet<Item> model, Random r, int n, int timeSpread) {
        List<Item> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(10);
            if (kind == 0 && !model.isEmpty()) {
                batch.add(pick(model, r)); // already there
            } else if (kind == 1 && !batch.isEmpty()) {
                batch.add(batch.get(r.nextInt(batch.size()))); // twice in this batch
            } else {
                batch.add(randomItem(r, timeSpread));
            }
        }
        return batch;
    }

    /** Removes up to n items the model holds from both, one at a time. */
    private static void removeSome(TreeSet<Item> model, FingerprintTree tree, Random r, int n) {
        for (int i = 0; i < n && !model.isEmpty(); i++) {
            Item victim = pick(model, r);
            assertTrue(model.remove(victim));
            assertTrue(tree.remove(victim));
        }
    }

    private static List<Item> itemsOf(Storage s) {
        List<Item> out = new ArrayList<>();
        s.iterate(0, s.size(), (item, i) -> {
            out.add(item);
            return true;
        });
        return out;
    }

    @Test
    void aBatchOfAscendingItemsAtTheEndSplitsTheLastNodesEvenly() {
        Random r = new Random(3);
        FingerprintTree tree = new FingerprintTree();
        TreeSet<Item> model = new TreeSet<>();
        long t = 1_700_000_000L;
        for (int round = 0; round < 40; round++) {
            List<Item> batch = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                byte[] raw = new byte[Id.SIZE];
                r.nextBytes(raw);
                batch.add(new Item(t++, Id.of(raw))); // live traffic: every new event after the last
            }
            model.addAll(batch);
            assertEquals(1000, tree.insertAll(batch));
            tree.verify();
        }
        assertSameStorage(vectorOf(model), tree.snapshot(), r);
    }

    @Test
    void aSnapshotNeverChangesAfterLaterWrites() {
        Random r = new Random(13);
        TreeSet<Item> model = new TreeSet<>();
        while (model.size() < 5000) {
            model.add(randomItem(r, 2000));
        }
        FingerprintTree tree = organicTree(new ArrayList<>(model), r);
        FingerprintTree.Snapshot before = tree.snapshot();
        SortedVector beforeVector = vectorOf(model);
        Fingerprint beforeAll = before.fingerprint(0, before.size());

        for (int i = 0; i < 5000; i++) {
            if (r.nextBoolean()) {
                Item item = randomItem(r, 2000);
                assertEquals(model.add(item), tree.insert(item));
            } else {
                Item victim = pick(model, r);
                assertTrue(model.remove(victim));
                assertTrue(tree.remove(victim));
            }
        }
        FingerprintTree.Snapshot after = tree.snapshot();
        assertSameStorage(beforeVector, before, r);
        assertEquals(beforeAll, before.fingerprint(0, before.size()));
        assertSameStorage(vectorOf(model), after, r);
        assertNotEquals(beforeAll, after.fingerprint(0, after.size()));
    }

    @Test
    void readersOnOtherThreadsSeeConsistentSnapshotsWhileTheWriterWorks() throws Exception {
        Random r = new Random(15);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 40_000; i++) {
            items.add(randomItem(r, 10_000));
        }
        FingerprintTree tree = new FingerprintTree();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            for (Item item : items) {
                tree.insert(item);
            }
            for (int i = 0; i < items.size(); i += 2) {
                tree.remove(items.get(i));
            }
        });
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            readers.add(new Thread(() -> {
                try {
                    for (int round = 0; round < 200; round++) {
                        FingerprintTree.Snapshot s = tree.snapshot();
                        // a snapshot is self-consistent: its sums agree with its items, in order
                        List<Item> seen = new ArrayList<>();
                        s.iterate(0, s.size(), (item, index) -> seen.add(item));
                        assertEquals(s.size(), seen.size());
                        Accumulator direct = new Accumulator();
                        for (int i = 0; i < seen.size(); i++) {
                            if (i > 0 && seen.get(i - 1).compareTo(seen.get(i)) >= 0) {
                                fail("out of order at " + i);
                            }
                            direct.add(seen.get(i).id());
                        }
                        assertEquals(direct.fingerprint(seen.size()), s.fingerprint(0, s.size()));
                        Thread.yield();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        writer.start();
        readers.forEach(Thread::start);
        writer.join();
        for (Thread reader : readers) {
            reader.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        tree.verify();
        assertEquals(items.size() / 2, tree.size());
    }

    @Test
    void oneSnapshotSharedByThreadsFingerprintingAdjacentRangesAnswersEachCorrectly() throws Exception {
        Random r = new Random(17);
        TreeSet<Item> model = new TreeSet<>();
        while (model.size() < 20_000) {
            model.add(randomItem(r, 4000));
        }
        SortedVector vector = vectorOf(model);
        FingerprintTree.Snapshot shared = organicTree(new ArrayList<>(model), r).snapshot();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            long seed = t;
            threads.add(new Thread(() -> {
                try {
                    Random tr = new Random(seed);
                    for (int round = 0; round < 300; round++) {
                        // buckets in a row, as splitRange asks for them: each begins where the last ended
                        int begin = tr.nextInt(vector.size());
                        for (int b = 0; b < 16 && begin < vector.size(); b++) {
                            int end = Math.min(vector.size(), begin + tr.nextInt(200));
                            assertEquals(vector.fingerprint(begin, end), shared.fingerprint(begin, end), "[" + begin + "," + end + ")");
                            begin = end;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    @Test
    void bulkBuildRefusesUnsortedOrDuplicateItems() {
        Item a = new Item(1, Id.ofHex("aa".repeat(32)));
        Item b = new Item(1, Id.ofHex("bb".repeat(32)));
        assertThrows(NegentropyException.class, () -> FingerprintTree.fromSorted(List.of(b, a)));
        assertThrows(NegentropyException.class, () -> FingerprintTree.fromSorted(List.of(a, a)));
        FingerprintTree tree = FingerprintTree.fromSorted(List.of(a, b));
        assertEquals(2, tree.size());
        assertTrue(tree.contains(a));
        assertFalse(tree.insert(a));
        assertTrue(tree.remove(a));
        assertFalse(tree.remove(a));
        assertFalse(tree.contains(a));
        assertEquals(List.of(b), List.of(tree.snapshot().item(0)));
    }

    @Test
    void bulkBuildsOfEverySizeAroundNodeBoundariesAreValid() {
        Random r = new Random(19);
        TreeSet<Item> pool = new TreeSet<>();
        while (pool.size() < 4200) {
            pool.add(randomItem(r, 1_000_000));
        }
        List<Item> sorted = new ArrayList<>(pool);
        int leaf = FingerprintTree.LEAF_MAX;
        int twoLevels = leaf * FingerprintTree.INNER_MAX;
        for (int n : new int[] {0, 1, 2, leaf - 1, leaf, leaf + 1, 2 * leaf + 1, twoLevels - 1, twoLevels, twoLevels + 1, 4200}) {
            FingerprintTree tree = FingerprintTree.fromSorted(sorted.subList(0, n));
            tree.verify();
            assertSameStorage(vectorOf(sorted.subList(0, n)), tree.snapshot(), r);
        }
    }

    // Reconciliation over trees

    /** Every message both sides sent, and what the initiator learnt. */
    private record Transcript(List<String> messages, List<Id> have, List<Id> need) {
    }

    private static Transcript reconcile(Storage ours, Storage theirs, long frameSizeLimit) {
        Negentropy client = new Negentropy(ours, frameSizeLimit);
        Negentropy server = new Negentropy(theirs, frameSizeLimit);
        List<String> messages = new ArrayList<>();
        byte[] message = client.initiate();
        while (message != null) {
            if (messages.size() > 2 * MAX_ROUNDS) {
                fail("no end after " + MAX_ROUNDS + " rounds");
            }
            messages.add(java.util.HexFormat.of().formatHex(message));
            byte[] reply = server.reconcile(message);
            assertTrue(frameSizeLimit == 0 || reply.length <= frameSizeLimit);
            messages.add(java.util.HexFormat.of().formatHex(reply));
            message = client.reconcile(reply);
        }
        return new Transcript(messages, List.copyOf(client.haveIds()), List.copyOf(client.needIds()));
    }

    @ParameterizedTest(name = "{0} items, {1}% shared, frame limit {2}")
    @CsvSource({
        "0, 0, 0", "1, 0, 0", "1, 100, 4096", "10, 50, 0",
        "1000, 0, 0", "1000, 50, 4096", "1000, 90, 60000", "1000, 100, 0",
        "20000, 50, 0", "20000, 95, 4096", "20000, 0, 60000", "20000, 99, 60000",
        "100000, 99, 0", "100000, 90, 60000",
    })
    void treeSnapshotsReconcileByteForByteAsVectors(int count, int sharedPercent, long frameSizeLimit) {
        Random r = new Random(count * 7L + sharedPercent * 3L + frameSizeLimit);
        TreeSet<Item> ours = new TreeSet<>();
        TreeSet<Item> theirs = new TreeSet<>();
        Set<Id> onlyOurs = new HashSet<>();
        Set<Id> onlyTheirs = new HashSet<>();
        for (int i = 0; i < count; i++) {
            Item item = randomItem(r, Math.max(1, count / 4));
            if (ours.contains(item) || theirs.contains(item)) {
                continue;
            }
            if (r.nextInt(100) < sharedPercent) {
                ours.add(item);
                theirs.add(item);
            } else if (r.nextBoolean()) {
                ours.add(item);
                onlyOurs.add(item.id());
            } else {
                theirs.add(item);
                onlyTheirs.add(item.id());
            }
        }
        SortedVector ourVector = vectorOf(ours);
        SortedVector theirVector = vectorOf(theirs);
        FingerprintTree.Snapshot ourTree = organicTree(new ArrayList<>(ours), r).snapshot();
        FingerprintTree.Snapshot theirTree = organicTree(new ArrayList<>(theirs), r).snapshot();

        Transcript expected = reconcile(ourVector, theirVector, frameSizeLimit);
        assertEquals(onlyOurs, new HashSet<>(expected.have()));
        assertEquals(onlyTheirs, new HashSet<>(expected.need()));
        for (Transcript actual : List.of(
                reconcile(ourTree, theirVector, frameSizeLimit),
                reconcile(ourVector, theirTree, frameSizeLimit),
                reconcile(ourTree, theirTree, frameSizeLimit))) {
            assertEquals(expected.messages().size(), actual.messages().size(), "round trips");
            assertArrayEquals(expected.messages().toArray(), actual.messages().toArray());
            assertEquals(expected.have(), actual.have());
            assertEquals(expected.need(), actual.need());
        }
    }

    @Test
    void aSessionOverASnapshotIsUnaffectedByWritesBetweenRounds() {
        Random r = new Random(21);
        TreeSet<Item> ours = new TreeSet<>();
        TreeSet<Item> theirs = new TreeSet<>();
        for (int i = 0; i < 20_000; i++) {
            Item item = randomItem(r, 5000);
            if (r.nextInt(100) < 90) {
                ours.add(item);
                theirs.add(item);
            } else if (r.nextBoolean()) {
                ours.add(item);
            } else {
                theirs.add(item);
            }
        }
        Transcript expected = reconcile(vectorOf(ours), vectorOf(theirs), 4096);

        FingerprintTree live = FingerprintTree.fromSorted(new ArrayList<>(ours));
        Negentropy client = new Negentropy(live.snapshot(), 4096);
        Negentropy server = new Negentropy(vectorOf(theirs), 4096);
        List<String> messages = new ArrayList<>();
        byte[] message = client.initiate();
        while (message != null) {
            messages.add(java.util.HexFormat.of().formatHex(message));
            byte[] reply = server.reconcile(message);
            messages.add(java.util.HexFormat.of().formatHex(reply));
            for (int i = 0; i < 50; i++) { // the writer goes on between rounds
                live.insert(randomItem(r, 5000));
                live.remove(live.snapshot().item(r.nextInt(live.size())));
            }
            message = client.reconcile(reply);
        }
        assertNull(message);
        assertEquals(expected.messages(), messages);
        assertEquals(expected.have(), client.haveIds());
        assertEquals(expected.need(), client.needIds());
    }
}
