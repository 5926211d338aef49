package org.fleetmesh.delivery.log;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The compact range of a tree of {@code size} leaves: the roots of its maximal aligned perfect subtrees, left to right
 * (one per set bit of size, largest first). Enough to compute the root and to grow the tree without its leaves.
 * Immutable: appending returns a new range.
 */
public final class CompactRange {
    private static final CompactRange EMPTY = new CompactRange(0, new byte[0][]);

    private final long size;
    private final byte[][] hashes;

    private CompactRange(long size, byte[][] hashes) {
        this.size = size;
        this.hashes = hashes;
    }

    public static CompactRange empty() {
        return EMPTY;
    }

    /** Throws IllegalArgumentException when the number of hashes is not the bit count of size or a hash is not 32 bytes. */
    public static CompactRange of(long size, List<byte[]> hashes) {
        if (size < 0) {
            throw new IllegalArgumentException("a tree size is not negative: " + size);
        }
        if (hashes.size() != Long.bitCount(size)) {
            throw new IllegalArgumentException("a compact range of size " + size + " has " + Long.bitCount(size)
                    + " hashes, not " + hashes.size());
        }
        byte[][] copy = new byte[hashes.size()][];
        for (int i = 0; i < copy.length; i++) {
            byte[] h = hashes.get(i);
            if (h == null || h.length != 32) {
                throw new IllegalArgumentException("a compact range hash is 32 bytes");
            }
            copy[i] = h.clone();
        }
        return new CompactRange(size, copy);
    }

    public long size() {
        return size;
    }

    /** Copies of the subtree roots, left to right. */
    public List<byte[]> hashes() {
        List<byte[]> out = new ArrayList<>(hashes.length);
        for (byte[] h : hashes) {
            out.add(h.clone());
        }
        return Collections.unmodifiableList(out);
    }

    /** The tree's root: the right fold of the subtree roots (the empty root for size 0). */
    public byte[] root() {
        if (hashes.length == 0) {
            return Merkle.emptyRoot();
        }
        byte[] h = hashes[hashes.length - 1];
        for (int i = hashes.length - 2; i >= 0; i--) {
            h = Merkle.nodeHash(hashes[i], h);
        }
        return h == hashes[hashes.length - 1] ? h.clone() : h;
    }

    public CompactRange append(byte[] leafHash) {
        return appendAll(List.of(leafHash));
    }

    public CompactRange appendAll(List<byte[]> leafHashes) {
        if (leafHashes.isEmpty()) {
            return this;
        }
        List<byte[]> stack = new ArrayList<>(Arrays.asList(hashes));
        long s = size;
        for (byte[] leaf : leafHashes) {
            if (leaf == null || leaf.length != 32) {
                throw new IllegalArgumentException("a leaf hash is 32 bytes");
            }
            stack.add(leaf.clone());
            // each trailing one bit of the old size is a perfect subtree the new leaf completes
            for (long t = s; (t & 1) == 1; t >>= 1) {
                byte[] right = stack.remove(stack.size() - 1);
                byte[] left = stack.remove(stack.size() - 1);
                stack.add(Merkle.nodeHash(left, right));
            }
            s++;
        }
        return new CompactRange(s, stack.toArray(new byte[0][]));
    }

    /** The RFC 9162 consistency proof from this size to size + k, from this range and the k appended leaf hashes alone. */
    public List<byte[]> consistencyProof(List<byte[]> appendedLeafHashes) {
        long m = size;
        long n = size + appendedLeafHashes.size();
        return Merkle.consistencyProof(m, n, (start, end) -> {
            if (end <= m) {
                long s = 0;
                int i = 0;
                for (long bit = Long.highestOneBit(m); bit > 0; bit >>= 1) {
                    if ((m & bit) != 0) {
                        if (s == start && s + bit == end) {
                            return hashes[i];
                        }
                        s += bit;
                        i++;
                    }
                }
                throw new IllegalStateException("[" + start + ", " + end + ") is not in the compact range of size " + m);
            }
            if (start >= m) {
                return Merkle.root(appendedLeafHashes.subList((int) (start - m), (int) (end - m)));
            }
            throw new IllegalStateException("[" + start + ", " + end + ") straddles size " + m);
        });
    }

    @Override
    public String toString() {
        return "CompactRange[size=" + size + ", hashes=" + hashes.length + "]";
    }
}
