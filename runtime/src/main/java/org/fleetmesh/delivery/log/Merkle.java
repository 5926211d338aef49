package org.fleetmesh.delivery.log;

import java.util.List;

import org.fleetmesh.nostr.EventId;

/**
 * RFC 9162 §2.1 Merkle tree hashing and proofs over SHA-256: leaf = H(0x00 ‖ data), node = H(0x01 ‖ left ‖ right),
 * the empty tree's root = H(""). Hashes are 32-byte arrays; callers must not modify the ones they get.
 */
public final class Merkle {
    /** SHA-256 of the empty string: the root of the empty tree (RFC 9162 §2.1.1). */
    public static final byte[] EMPTY_ROOT = null;

    /** The hashes of aligned perfect subtrees of one tree: {@code [start, end)} with end - start a power of two dividing start. */
    public interface Subtrees {
        byte[] hash(long start, long end);
    }

    private Merkle() {
    }

    /** The leaf hash of an event id: H(0x00 ‖ 32-byte id). */
    public static byte[] leafHash(EventId id) {
        throw new UnsupportedOperationException();
    }

    /** The leaf hash of arbitrary leaf data: H(0x00 ‖ data) (RFC 6962 test vectors use such leaves). */
    public static byte[] leafHash(byte[] data) {
        throw new UnsupportedOperationException();
    }

    public static byte[] nodeHash(byte[] left, byte[] right) {
        throw new UnsupportedOperationException();
    }

    /** MTH(D[n]) of RFC 9162 §2.1.1 over already hashed leaves. */
    public static byte[] root(List<byte[]> leafHashes) {
        throw new UnsupportedOperationException();
    }

    /** The inclusion proof (audit path) of leaf {@code index} in the tree of {@code size} leaves (RFC 9162 §2.1.3.1). */
    public static List<byte[]> inclusionProof(long index, long size, Subtrees tree) {
        throw new UnsupportedOperationException();
    }

    /** RFC 9162 §2.1.3.2: whether {@code path} proves {@code leafHash} at {@code index} in the tree of {@code size} with {@code root}. */
    public static boolean verifyInclusion(byte[] leafHash, long index, long size, List<byte[]> path, byte[] root) {
        throw new UnsupportedOperationException();
    }

    /** The consistency proof from size {@code m} to size {@code n} (RFC 9162 §2.1.4.1); empty when m = 0 or m = n. */
    public static List<byte[]> consistencyProof(long m, long n, Subtrees tree) {
        throw new UnsupportedOperationException();
    }

    /** RFC 9162 §2.1.4.2, with m = 0 (any tree extends the empty one) and m = n (equal roots) accepted with an empty proof. */
    public static boolean verifyConsistency(long m, long n, byte[] rootM, byte[] rootN, List<byte[]> proof) {
        throw new UnsupportedOperationException();
    }

    /** The subtrees of a tree held as its leaf hashes (level hashes computed once). */
    public static Subtrees ofLeaves(List<byte[]> leafHashes) {
        throw new UnsupportedOperationException();
    }
}
