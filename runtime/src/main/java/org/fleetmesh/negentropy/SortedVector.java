package org.fleetmesh.negentropy;

import java.util.ArrayList;
import java.util.List;

/** Items in a sorted array, built once by a {@link Builder} and sealed. */
public final class SortedVector implements Storage {
    private final Item[] items;
    /**
     * prefix[4i..4i+3] = sum of ids [0, i) mod 2^256 as four little-endian 64-bit limbs, so that a
     * range's sum is one subtraction: the reference re-adds the range on every call, which makes
     * frame-limited syncs of large sets quadratic; the fingerprints (and so the bytes) are the same.
     */
    private final long[] prefix;

    private SortedVector(Item[] items) {
        this.items = items;
        this.prefix = new long[4 * (items.length + 1)];
        java.nio.ByteBuffer buf;
        for (int i = 0; i < items.length; i++) {
            buf = java.nio.ByteBuffer.wrap(items[i].id().raw()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            long carry = 0;
            for (int l = 0; l < 4; l++) {
                long a = prefix[4 * i + l];
                long b = buf.getLong();
                long sum = a + b;
                long c1 = Long.compareUnsigned(sum, a) < 0 ? 1 : 0;
                long sum2 = sum + carry;
                long c2 = Long.compareUnsigned(sum2, sum) < 0 ? 1 : 0;
                prefix[4 * (i + 1) + l] = sum2;
                carry = c1 | c2;
            }
        }
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
        long[] diff = new long[4];
        long borrow = 0;
        for (int l = 0; l < 4; l++) {
            long a = prefix[4 * end + l];
            long b = prefix[4 * begin + l];
            long d = a - b;
            long b1 = Long.compareUnsigned(a, b) < 0 ? 1 : 0;
            long d2 = d - borrow;
            long b2 = Long.compareUnsigned(d, borrow) < 0 ? 1 : 0;
            diff[l] = d2;
            borrow = b1 | b2;
        }
        return Accumulator.ofLimbs(diff).fingerprint(end - begin);
    }

    private void checkBounds(int begin, int end) {
        if (begin < 0 || begin > end || end > items.length) {
            throw new NegentropyException("bad range: [" + begin + ", " + end + ") of " + items.length);
        }
    }
}
