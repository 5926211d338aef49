package org.fleetmesh.delivery.log;

import java.util.List;

/**
 * The compact range of a tree of {@code size} leaves: the roots of its maximal aligned perfect subtrees, left to right
 * (one per set bit of size, largest first). Enough to compute the root and to grow the tree without its leaves.
 * Immutable: appending returns a new range.
 */
public final class CompactRange {

    private CompactRange() {
    }

    public static CompactRange empty() {
        throw new UnsupportedOperationException();
    }

    /** Throws IllegalArgumentException when the number of hashes is not the bit count of size or a hash is not 32 bytes. */
    public static CompactRange of(long size, List<byte[]> hashes) {
        throw new UnsupportedOperationException();
    }

    public long size() {
        throw new UnsupportedOperationException();
    }

    public List<byte[]> hashes() {
        throw new UnsupportedOperationException();
    }

    public byte[] root() {
        throw new UnsupportedOperationException();
    }

    public CompactRange append(byte[] leafHash) {
        throw new UnsupportedOperationException();
    }

    public CompactRange appendAll(List<byte[]> leafHashes) {
        throw new UnsupportedOperationException();
    }

    /** The RFC 9162 consistency proof from this size to size + k, from this range and the k appended leaf hashes alone. */
    public List<byte[]> consistencyProof(List<byte[]> appendedLeafHashes) {
        throw new UnsupportedOperationException();
    }
}
