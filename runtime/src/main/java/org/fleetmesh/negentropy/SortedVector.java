package org.fleetmesh.negentropy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Items in a sorted array, built once by a {@link Builder} and sealed.
 *
 * <p>Held flat, about 42 bytes an item: the timestamps in one {@code long[]}, the ids end to end in
 * one {@code byte[]}, and the running sum of the ids at every {@value #BLOCK}th item. An item as objects
 * (an {@link Item}, its {@link Id}, the id's array, a slot and a full running sum) took about 140, and
 * a relay holds one vector per NIP-77 session not served by a live index. {@link #item} and
 * {@link #iterate} make the {@link Item}s as they are read.
 */
public final class SortedVector implements Storage {
    /** Items per stored running sum: a range's sum is two of them and at most 2 × 15 ids added. */
    static final int BLOCK = 16;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final int size;
    private final long[] timestamps;
    private final byte[] ids;
    /**
     * prefix[4k..4k+3] = sum of ids [0, 16k) mod 2^256 as four little-endian 64-bit limbs: the
     * reference re-adds a range on every call, which makes frame-limited syncs of large sets quadratic;
     * the fingerprints (and so the bytes) are the same.
     */
    private final long[] prefix;

    private SortedVector(int size, long[] timestamps, byte[] ids) {
        this.size = size;
        this.timestamps = timestamps;
        this.ids = ids;
        this.prefix = new long[4 * (size / BLOCK + 1)];
        long[] sum = new long[4];
        for (int i = 0; i < size; i++) {
            if (i % BLOCK == 0) {
                System.arraycopy(sum, 0, prefix, 4 * (i / BLOCK), 4);
            }
            add(sum, ids, i * Id.SIZE);
        }
        if (size % BLOCK == 0) {
            System.arraycopy(sum, 0, prefix, 4 * (size / BLOCK), 4);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects items in any order; {@link #seal()} sorts them and refuses duplicates. */
    public static final class Builder {
        private long[] timestamps = new long[16];
        private byte[] ids = new byte[16 * Id.SIZE];
        private int size;

        public Builder insert(long timestamp, Id id) {
            return insert(timestamp, id.raw());
        }

        /** An item whose id is the 32 bytes given (copied). */
        public Builder insert(long timestamp, byte[] id) {
            if (id.length != Id.SIZE) {
                throw new NegentropyException("bad id size: " + id.length + " bytes, expected " + Id.SIZE);
            }
            if (timestamp == Bound.INFINITY) {
                throw new NegentropyException("timestamp 2^64-1 is reserved for the infinity bound");
            }
            if (size == timestamps.length) {
                int grown = (int) Math.min((long) size + (size >> 1) + 16, Integer.MAX_VALUE / Id.SIZE);
                if (grown <= size) {
                    throw new NegentropyException("too many items: " + size);
                }
                timestamps = Arrays.copyOf(timestamps, grown);
                ids = Arrays.copyOf(ids, grown * Id.SIZE);
            }
            timestamps[size] = timestamp;
            System.arraycopy(id, 0, ids, size * Id.SIZE, Id.SIZE);
            size++;
            return this;
        }

        public Builder insert(Item item) {
            return insert(item.timestamp(), item.id());
        }

        /**
         * Sorts (timestamp, then id) and refuses duplicates. The builder's arrays are never written
         * below its size again (an insert past a shared array's end copies it first), so it may go on.
         */
        public SortedVector seal() {
            long[] ts = timestamps;
            byte[] is = ids;
            if (!inOrder(ts, is, size)) {
                int[] order = new int[size];
                for (int i = 0; i < size; i++) {
                    order[i] = i;
                }
                sort(order, ts, is);
                long[] sortedTs = new long[size];
                byte[] sortedIds = new byte[size * Id.SIZE];
                for (int i = 0; i < size; i++) {
                    sortedTs[i] = ts[order[i]];
                    System.arraycopy(is, order[i] * Id.SIZE, sortedIds, i * Id.SIZE, Id.SIZE);
                }
                ts = sortedTs;
                is = sortedIds;
            } else if (ts.length != size) {
                ts = Arrays.copyOf(ts, size);
                is = Arrays.copyOf(is, size * Id.SIZE);
            }
            for (int i = 1; i < size; i++) {
                if (compare(ts, is, i - 1, i) == 0) {
                    throw new NegentropyException("duplicate item inserted: " + new Item(ts[i], Id.of(
                            Arrays.copyOfRange(is, i * Id.SIZE, (i + 1) * Id.SIZE))));
                }
            }
            return new SortedVector(size, ts, is);
        }

        /** Whether the items already come in order, as a store's ordered read gives them: no sort. */
        private static boolean inOrder(long[] ts, byte[] is, int n) {
            for (int i = 1; i < n; i++) {
                if (compare(ts, is, i - 1, i) > 0) {
                    return false;
                }
            }
            return true;
        }

        /** A stable merge sort of item numbers, bottom up. */
        private static void sort(int[] order, long[] ts, byte[] is) {
            int n = order.length;
            int[] from = order;
            int[] to = new int[n];
            for (int width = 1; width < n; width <<= 1) {
                for (int lo = 0; lo < n; lo += width << 1) {
                    int mid = Math.min(lo + width, n);
                    int hi = Math.min(lo + (width << 1), n);
                    int a = lo;
                    int b = mid;
                    int k = lo;
                    while (a < mid && b < hi) {
                        to[k++] = compare(ts, is, from[b], from[a]) < 0 ? from[b++] : from[a++];
                    }
                    while (a < mid) {
                        to[k++] = from[a++];
                    }
                    while (b < hi) {
                        to[k++] = from[b++];
                    }
                }
                int[] t = from;
                from = to;
                to = t;
            }
            if (from != order) {
                System.arraycopy(from, 0, order, 0, n);
            }
        }
    }

    private static int compare(long[] ts, byte[] is, int i, int j) {
        int byTime = Long.compareUnsigned(ts[i], ts[j]);
        return byTime != 0 ? byTime
                : Arrays.compareUnsigned(is, i * Id.SIZE, (i + 1) * Id.SIZE, is, j * Id.SIZE, (j + 1) * Id.SIZE);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Item item(int index) {
        if (index < 0 || index >= size) {
            throw new NegentropyException("item index out of range: " + index);
        }
        return itemAt(index);
    }

    private Item itemAt(int index) {
        return new Item(timestamps[index], Id.wrap(Arrays.copyOfRange(ids, index * Id.SIZE, (index + 1) * Id.SIZE)));
    }

    @Override
    public void iterate(int begin, int end, ItemVisitor visitor) {
        checkBounds(begin, end);
        for (int i = begin; i < end; i++) {
            if (!visitor.visit(itemAt(i), i)) {
                break;
            }
        }
    }

    @Override
    public int findLowerBound(int begin, int end, Bound bound) {
        checkBounds(begin, end);
        long time = bound.timestamp();
        byte[] id = bound.paddedId();
        int first = begin;
        int count = end - begin;
        while (count > 0) {
            int step = count / 2;
            int it = first + step;
            int byTime = Long.compareUnsigned(time, timestamps[it]);
            int c = byTime != 0 ? byTime
                    : Arrays.compareUnsigned(id, 0, Id.SIZE, ids, it * Id.SIZE, (it + 1) * Id.SIZE);
            if (c > 0) {
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
        long[] high = sumBelow(end);
        long[] low = sumBelow(begin);
        long[] diff = new long[4];
        long borrow = 0;
        for (int l = 0; l < 4; l++) {
            long a = high[l];
            long b = low[l];
            long d = a - b;
            long b1 = Long.compareUnsigned(a, b) < 0 ? 1 : 0;
            long d2 = d - borrow;
            long b2 = Long.compareUnsigned(d, borrow) < 0 ? 1 : 0;
            diff[l] = d2;
            borrow = b1 | b2;
        }
        return Accumulator.ofLimbs(diff).fingerprint(end - begin);
    }

    /** The sum of ids [0, i) mod 2^256: the stored sum of its block, plus the ids after it. */
    private long[] sumBelow(int i) {
        int block = i / BLOCK;
        long[] sum = Arrays.copyOfRange(prefix, 4 * block, 4 * block + 4);
        for (int j = block * BLOCK; j < i; j++) {
            add(sum, ids, j * Id.SIZE);
        }
        return sum;
    }

    /** sum += the 32-byte little-endian number at ids[offset], mod 2^256. */
    private static void add(long[] sum, byte[] ids, int offset) {
        long carry = 0;
        for (int l = 0; l < 4; l++) {
            long a = sum[l];
            long b = (long) LONG_LE.get(ids, offset + 8 * l);
            long s = a + b;
            long c1 = Long.compareUnsigned(s, a) < 0 ? 1 : 0;
            long s2 = s + carry;
            long c2 = Long.compareUnsigned(s2, s) < 0 ? 1 : 0;
            sum[l] = s2;
            carry = c1 | c2;
        }
    }

    private void checkBounds(int begin, int end) {
        if (begin < 0 || begin > end || end > size) {
            throw new NegentropyException("bad range: [" + begin + ", " + end + ") of " + size);
        }
    }
}
