package org.fleetmesh.shards;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.negentropy.Fingerprint;
import org.fleetmesh.negentropy.Storage;

/**
 * What a claim states about a shard's set (docs/spec/shards.md §3): how many events, their Negentropy v1 fingerprint
 * (16 bytes) and the RFC 9162 Merkle tree hash (32 bytes) over their ids in Negentropy order (created_at ascending,
 * then id ascending).
 */
public record ShardFigures(long count, byte[] fingerprint, byte[] root) {

    public ShardFigures {
        if (count < 0) {
            throw new IllegalArgumentException("count is negative");
        }
        if (fingerprint.length != Fingerprint.SIZE) {
            throw new IllegalArgumentException("a fingerprint has 16 bytes");
        }
        if (root.length != 32) {
            throw new IllegalArgumentException("a root has 32 bytes");
        }
        fingerprint = fingerprint.clone();
        root = root.clone();
    }

    /** The figures of {@code items} (already in Negentropy order, as every Storage is). */
    public static ShardFigures of(Storage items) {
        int n = items.size();
        byte[] fp = items.fingerprint(0, n).toBytes();
        return new ShardFigures(n, fp, root(items));
    }

    /**
     * RFC 9162 MTH over the ids, in one pass with one digest: a stack of the perfect subtrees so far (at most one per
     * bit of the count), merged as each leaf completes them; the right fold of the stack is the root.
     */
    static byte[] root(Storage items) {
        int n = items.size();
        if (n == 0) {
            return Merkle.emptyRoot();
        }
        MessageDigest md = sha256();
        byte[][] stack = new byte[33][];
        int[] depth = { 0 };
        items.iterate(0, n, (item, i) -> {
            md.update((byte) 0);
            md.update(item.id().toBytes());
            byte[] h = md.digest();
            // each trailing one bit of i is a perfect subtree this leaf completes
            for (long t = i; (t & 1) == 1; t >>= 1) {
                md.update((byte) 1);
                md.update(stack[--depth[0]]);
                md.update(h);
                h = md.digest();
            }
            stack[depth[0]++] = h;
            return true;
        });
        byte[] h = stack[depth[0] - 1];
        for (int k = depth[0] - 2; k >= 0; k--) {
            md.update((byte) 1);
            md.update(stack[k]);
            md.update(h);
            h = md.digest();
        }
        return h;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public byte[] fingerprint() {
        return fingerprint.clone();
    }

    @Override
    public byte[] root() {
        return root.clone();
    }

    public String fingerprintHex() {
        return HexFormat.of().formatHex(fingerprint);
    }

    public String rootHex() {
        return HexFormat.of().formatHex(root);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardFigures f && f.count == count && Arrays.equals(f.fingerprint, fingerprint)
                && Arrays.equals(f.root, root);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(count) * 31 + Arrays.hashCode(root);
    }

    @Override
    public String toString() {
        return "count " + count + ", fingerprint " + fingerprintHex() + ", root " + rootHex();
    }
}
