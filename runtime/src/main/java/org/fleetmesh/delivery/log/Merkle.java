package org.fleetmesh.delivery.log;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.fleetmesh.nostr.EventId;

/**
 * RFC 9162 §2.1 Merkle tree hashing and proofs over SHA-256: leaf = H(0x00 ‖ data), node = H(0x01 ‖ left ‖ right),
 * the empty tree's root = H(""). Hashes are 32-byte arrays; callers must not modify the ones they get.
 */
public final class Merkle {
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    private static final byte[] EMPTY = sha256().digest();

    /** SHA-256 of the empty string: the root of the empty tree (RFC 9162 §2.1.1). A copy: the checks here use their own. */
    public static final byte[] EMPTY_ROOT = EMPTY.clone();

    /** The hashes of aligned perfect subtrees of one tree: {@code [start, end)} with end - start a power of two dividing start. */
    public interface Subtrees {
        byte[] hash(long start, long end);
    }

    private Merkle() {
    }

    private static MessageDigest sha256() {
        MessageDigest md = SHA256.get();
        md.reset();
        return md;
    }

    /** A fresh copy of the empty tree's root. */
    public static byte[] emptyRoot() {
        return EMPTY.clone();
    }

    /** The leaf hash of an event id: H(0x00 ‖ 32-byte id). */
    public static byte[] leafHash(EventId id) {
        return leafHash(id.unsafeBytes());
    }

    /** The leaf hash of arbitrary leaf data: H(0x00 ‖ data) (RFC 6962 test vectors use such leaves). */
    public static byte[] leafHash(byte[] data) {
        MessageDigest md = sha256();
        md.update((byte) 0);
        md.update(data);
        return md.digest();
    }

    public static byte[] nodeHash(byte[] left, byte[] right) {
        MessageDigest md = sha256();
        md.update((byte) 1);
        md.update(left);
        md.update(right);
        return md.digest();
    }

    /** MTH(D[n]) of RFC 9162 §2.1.1 over already hashed leaves. */
    public static byte[] root(List<byte[]> leafHashes) {
        return CompactRange.empty().appendAll(leafHashes).root();
    }

    /** The inclusion proof (audit path) of leaf {@code index} in the tree of {@code size} leaves (RFC 9162 §2.1.3.1). */
    public static List<byte[]> inclusionProof(long index, long size, Subtrees tree) {
        if (index < 0 || index >= size) {
            throw new IllegalArgumentException("leaf " + index + " is not in a tree of size " + size);
        }
        List<byte[]> path = new ArrayList<>();
        path(index, 0, size, tree, path);
        return Collections.unmodifiableList(path);
    }

    // PATH(m, D[start:end]), appending bottom-up like the RFC's concatenation order
    private static void path(long m, long start, long end, Subtrees tree, List<byte[]> out) {
        long n = end - start;
        if (n == 1) {
            return;
        }
        long k = Long.highestOneBit(n - 1);
        if (m < k) {
            path(m, start, start + k, tree, out);
            out.add(subtree(start + k, end, tree));
        } else {
            path(m - k, start + k, end, tree, out);
            out.add(subtree(start, start + k, tree));
        }
    }

    /**
     * MTH(D[start:end]) for a subtree of the RFC's recursion (start a multiple of the largest power of two below the
     * span): the right fold of its aligned perfect subtrees, largest first.
     */
    static byte[] subtree(long start, long end, Subtrees tree) {
        List<byte[]> parts = new ArrayList<>();
        long s = start;
        while (s < end) {
            long size = Long.highestOneBit(end - s);
            while (s % size != 0) {
                size >>= 1;
            }
            parts.add(tree.hash(s, s + size));
            s += size;
        }
        byte[] h = parts.get(parts.size() - 1);
        for (int i = parts.size() - 2; i >= 0; i--) {
            h = nodeHash(parts.get(i), h);
        }
        return h;
    }

    /** RFC 9162 §2.1.3.2: whether {@code path} proves {@code leafHash} at {@code index} in the tree of {@code size} with {@code root}. */
    public static boolean verifyInclusion(byte[] leafHash, long index, long size, List<byte[]> path, byte[] root) {
        if (index < 0 || index >= size || path.size() > 64) {
            return false;
        }
        long fn = index;
        long sn = size - 1;
        byte[] r = leafHash;
        for (byte[] p : path) {
            if (sn == 0 || p == null || p.length != 32) {
                return false;
            }
            if ((fn & 1) == 1 || fn == sn) {
                r = nodeHash(p, r);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>= 1;
                    sn >>= 1;
                }
            } else {
                r = nodeHash(r, p);
            }
            fn >>= 1;
            sn >>= 1;
        }
        return sn == 0 && Arrays.equals(r, root);
    }

    /** The consistency proof from size {@code m} to size {@code n} (RFC 9162 §2.1.4.1); empty when m = 0 or m = n. */
    public static List<byte[]> consistencyProof(long m, long n, Subtrees tree) {
        if (m < 0 || m > n) {
            throw new IllegalArgumentException("no consistency proof from size " + m + " to " + n);
        }
        List<byte[]> proof = new ArrayList<>();
        if (m > 0 && m < n) {
            subproof(m, 0, n, true, tree, proof);
        }
        return Collections.unmodifiableList(proof);
    }

    // SUBPROOF(m, D[start:end], b)
    private static void subproof(long m, long start, long end, boolean whole, Subtrees tree, List<byte[]> out) {
        long n = end - start;
        if (m == n) {
            if (!whole) {
                out.add(subtree(start, end, tree));
            }
            return;
        }
        long k = Long.highestOneBit(n - 1);
        if (m <= k) {
            subproof(m, start, start + k, whole, tree, out);
            out.add(subtree(start + k, end, tree));
        } else {
            subproof(m - k, start + k, end, false, tree, out);
            out.add(subtree(start, start + k, tree));
        }
    }

    /** RFC 9162 §2.1.4.2, with m = 0 (any tree extends the empty one) and m = n (equal roots) accepted with an empty proof. */
    public static boolean verifyConsistency(long m, long n, byte[] rootM, byte[] rootN, List<byte[]> proof) {
        if (m < 0 || m > n || proof.size() > 128) {
            return false;
        }
        if (m == n) {
            return proof.isEmpty() && Arrays.equals(rootM, rootN);
        }
        if (m == 0) {
            return proof.isEmpty() && Arrays.equals(rootM, EMPTY);
        }
        if (proof.isEmpty()) {
            return false;
        }
        for (byte[] p : proof) {
            if (p == null || p.length != 32) {
                return false;
            }
        }
        List<byte[]> path = proof;
        if (Long.bitCount(m) == 1) {
            path = new ArrayList<>(proof.size() + 1);
            path.add(rootM);
            path.addAll(proof);
        }
        long fn = m - 1;
        long sn = n - 1;
        while ((fn & 1) == 1) {
            fn >>= 1;
            sn >>= 1;
        }
        byte[] fr = path.get(0);
        byte[] sr = path.get(0);
        for (int i = 1; i < path.size(); i++) {
            byte[] c = path.get(i);
            if (sn == 0) {
                return false;
            }
            if ((fn & 1) == 1 || fn == sn) {
                fr = nodeHash(c, fr);
                sr = nodeHash(c, sr);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>= 1;
                    sn >>= 1;
                }
            } else {
                sr = nodeHash(sr, c);
            }
            fn >>= 1;
            sn >>= 1;
        }
        return sn == 0 && Arrays.equals(fr, rootM) && Arrays.equals(sr, rootN);
    }

    /** The subtrees of a tree held as its leaf hashes (level hashes computed once). */
    public static Subtrees ofLeaves(List<byte[]> leafHashes) {
        List<byte[][]> levels = new ArrayList<>();
        byte[][] level = leafHashes.toArray(new byte[0][]);
        levels.add(level);
        while (level.length > 1) {
            byte[][] up = new byte[level.length / 2][];
            for (int i = 0; i < up.length; i++) {
                up[i] = nodeHash(level[2 * i], level[2 * i + 1]);
            }
            levels.add(up);
            level = up;
        }
        long size = leafHashes.size();
        return (start, end) -> {
            long span = end - start;
            if (start < 0 || end > size || span <= 0 || Long.bitCount(span) != 1 || start % span != 0) {
                throw new IllegalArgumentException("[" + start + ", " + end + ") is not an aligned perfect subtree of a tree of size " + size);
            }
            int j = Long.numberOfTrailingZeros(span);
            return levels.get(j)[(int) (start >> j)];
        };
    }
}
