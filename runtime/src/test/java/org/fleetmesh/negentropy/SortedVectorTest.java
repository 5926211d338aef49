package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The flat vector reads as the sorted list of its items would, whatever order they came in. */
class SortedVectorTest {

    private static Id randomId(Random r, boolean sharedPrefix) {
        byte[] id = new byte[Id.SIZE];
        r.nextBytes(id);
        if (sharedPrefix) {
            java.util.Arrays.fill(id, 0, 30, (byte) 7); // ties down to the last bytes
        }
        return Id.of(id);
    }

    @Test
    void itemsComeOutSortedByTimestampThenIdAsUnsignedValues() {
        Random r = new Random(11);
        for (int round = 0; round < 20; round++) {
            List<Item> model = new ArrayList<>();
            SortedVector.Builder b = SortedVector.builder();
            int n = r.nextInt(300);
            for (int i = 0; i < n; i++) {
                // negative timestamps are above every positive one unsigned; few distinct times force id ties
                long ts = r.nextInt(4) == 0 ? -2 - r.nextInt(3) : r.nextInt(5);
                Item item = new Item(ts, randomId(r, r.nextBoolean()));
                model.add(item);
                b.insert(item);
            }
            if (round % 2 == 0) {
                Collections.sort(model); // already in order: the vector keeps it without sorting
                b = SortedVector.builder();
                for (Item item : model) {
                    b.insert(item);
                }
            }
            SortedVector v = b.seal();
            Collections.sort(model);
            assertEquals(model.size(), v.size());
            List<Item> read = new ArrayList<>();
            v.iterate(0, v.size(), (item, index) -> read.add(item));
            assertEquals(model, read);
            for (int i = 0; i < n; i++) {
                assertEquals(model.get(i), v.item(i));
            }
            for (int t = 0; t < 200; t++) {
                Bound bound = randomBound(r, model);
                int expected = 0;
                while (expected < n && bound.compareToItem(model.get(expected)) > 0) {
                    expected++;
                }
                assertEquals(expected, v.findLowerBound(0, n, bound), bound.toString());
            }
        }
    }

    private static Bound randomBound(Random r, List<Item> model) {
        if (model.isEmpty() || r.nextInt(4) == 0) {
            return Bound.of(r.nextInt(6), new byte[r.nextInt(3)]);
        }
        Item near = model.get(r.nextInt(model.size()));
        byte[] prefix = java.util.Arrays.copyOf(near.id().toBytes(), r.nextInt(Id.SIZE + 1));
        if (prefix.length > 0 && r.nextBoolean()) {
            prefix[prefix.length - 1]++;
        }
        return Bound.of(near.timestamp(), prefix);
    }

    @Test
    void aDuplicateIsRefusedInEitherOrder() {
        Id id = randomId(new Random(3), false);
        assertThrows(NegentropyException.class, () -> SortedVector.builder().insert(5, id).insert(5, id).seal());
        assertThrows(NegentropyException.class,
                () -> SortedVector.builder().insert(5, id).insert(1, randomId(new Random(4), false)).insert(5, id).seal());
        assertThrows(NegentropyException.class, () -> SortedVector.builder().insert(Bound.INFINITY, id));
    }

    @Test
    void theBuilderGoesOnAfterASeal() {
        Random r = new Random(5);
        SortedVector.Builder b = SortedVector.builder();
        for (int i = 0; i < 16; i++) {
            b.insert(i, randomId(r, false)); // exactly the first capacity: the vector shares the arrays
        }
        SortedVector first = b.seal();
        Item firstLast = first.item(15);
        b.insert(100, randomId(r, false));
        SortedVector second = b.seal();
        assertEquals(16, first.size());
        assertEquals(firstLast, first.item(15));
        assertEquals(17, second.size());
        assertEquals(first.fingerprint(0, 16), second.fingerprint(0, 16));
    }
}
