package org.fleetmesh.shards;

import java.util.Arrays;
import java.util.HexFormat;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.negentropy.Fingerprint;
import org.fleetmesh.negentropy.Storage;

/**
 * What a claim states about a shard's set (docs/spec/shards.md §3): how many events, their Negentropy v1 fingerprint
 * (16 bytes) and the RFC 9162 Merkle tree hash (32 bytes) over their ids in Negentropy order (created_at ascending,
 * then id ascending).
 */
public record ShardFigures(long count, byte[] fingerprint, byte[] root) {
    private static final int CHUNK = 4096;

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
        // appended a chunk at a time: a million-event shard never holds all its leaf hashes at once
        CompactRange[] range = { CompactRange.empty() };
        java.util.List<byte[]> chunk = new java.util.ArrayList<>(CHUNK);
        items.iterate(0, n, (item, i) -> {
            chunk.add(Merkle.leafHash(item.id().toBytes()));
            if (chunk.size() == CHUNK) {
                range[0] = range[0].appendAll(chunk);
                chunk.clear();
            }
            return true;
        });
        range[0] = range[0].appendAll(chunk);
        return new ShardFigures(n, fp, range[0].root());
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
