package org.fleetmesh.negentropy;

import java.util.ArrayList;
import java.util.List;

/** Items in a sorted array, built once by a {@link Builder} and sealed. */
public final class SortedVector implements Storage {
    private final Item[] items;

    private SortedVector(Item[] items) {
        this.items = items;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects items in any order; {@link #seal()} sorts them and refuses duplicates. */
    public static final class Builder {
        private final List<Item> items = new ArrayList<>();

        public Builder insert(long timestamp, Id id) {
            items.add(new Item(timestamp, id));
            return this;
        }

        public Builder insert(Item item) {
            items.add(item);
            return this;
        }

        public SortedVector seal() {
            Item[] sorted = items.toArray(new Item[0]);
            java.util.Arrays.sort(sorted);
            for (int i = 1; i < sorted.length; i++) {
                if (sorted[i - 1].equals(sorted[i])) {
                    throw new NegentropyException("duplicate item inserted: " + sorted[i]);
                }
            }
            return new SortedVector(sorted);
        }
    }

    @Override
    public int size() {
        return items.length;
    }

    @Override
    public Item item(int index) {
        if (index < 0 || index >= items.length) {
            throw new NegentropyException("item index out of range: " + index);
        }
        return items[index];
    }

    @Override
    public void iterate(int begin, int end, ItemVisitor visitor) {
        checkBounds(begin, end);
        for (int i = begin; i < end; i++) {
            if (!visitor.visit(items[i], i)) {
                break;
            }
        }
    }

    @Override
    public int findLowerBound(int begin, int end, Bound bound) {
        checkBounds(begin, end);
        int first = begin;
        int count = end - begin;
        while (count > 0) {
            int step = count / 2;
            int it = first + step;
            if (bound.compareToItem(items[it]) > 0) {
                first = it + 1;
                count -= step + 1;
            } else {
                count = step;
            }
        }
        return first;
    }

    @Override
    public Fingerprint fingerprint(int begin, int end) {
        checkBounds(begin, end);
        Accumulator sum = new Accumulator();
        for (int i = begin; i < end; i++) {
            sum.add(items[i].id());
        }
        return sum.fingerprint(end - begin);
    }

    private void checkBounds(int begin, int end) {
        if (begin < 0 || begin > end || end > items.length) {
            throw new NegentropyException("bad range: [" + begin + ", " + end + ") of " + items.length);
        }
    }
}
