package org.fleetmesh.negentropy;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The exclusive upper end of a range: a timestamp and an id prefix of 0 to 32 bytes, the omitted
 * trailing bytes being zero. {@link #INFINITY} as timestamp is the end of the whole space.
 */
public final class Bound implements Comparable<Bound> {
    /** The "infinity" timestamp, 2^64-1, which no item may carry. */
    public static final long INFINITY = -1L;

    static final Bound ZERO = new Bound(0, new byte[0]);
    static final Bound END = new Bound(INFINITY, new byte[0]);

    private final long timestamp;
    private final byte[] idPrefix;

    private Bound(long timestamp, byte[] idPrefix) {
        this.timestamp = timestamp;
        this.idPrefix = idPrefix;
    }

    public static Bound of(long timestamp, byte[] idPrefix) {
        if (idPrefix.length > Id.SIZE) {
            throw new NegentropyException("bound id prefix too long: " + idPrefix.length + " bytes");
        }
        return new Bound(timestamp, idPrefix.clone());
    }

    /** A bound over {@code idPrefix} (at most 32 bytes) without a copy: the caller hands it over. */
    static Bound wrap(long timestamp, byte[] idPrefix) {
        return new Bound(timestamp, idPrefix);
    }

    /** The bound just below {@code item}: the item itself with its full id. */
    public static Bound of(Item item) {
        return new Bound(item.timestamp(), item.id().raw());
    }

    /**
     * The shortest bound that sorts above {@code prev} and at or below {@code curr}, its neighbour:
     * the timestamp alone when they differ, else the common id prefix plus one byte.
     */
    static Bound between(Item prev, Item curr) {
        if (curr.timestamp() != prev.timestamp()) {
            return new Bound(curr.timestamp(), new byte[0]);
        }
        byte[] currId = curr.id().raw();
        int shared = Arrays.mismatch(currId, prev.id().raw());
        int length = shared < 0 ? Id.SIZE : Math.min(shared + 1, Id.SIZE);
        return new Bound(curr.timestamp(), Arrays.copyOf(currId, length));
    }

    public long timestamp() {
        return timestamp;
    }

    public byte[] idPrefix() {
        return idPrefix.clone();
    }

    int idPrefixLength() {
        return idPrefix.length;
    }

    byte[] rawIdPrefix() {
        return idPrefix;
    }

    /** Compares as the reference does: the prefix padded with zero bytes to a full id. */
    int compareToItem(Item item) {
        int byTime = Long.compareUnsigned(timestamp, item.timestamp());
        return byTime != 0 ? byTime : Arrays.compareUnsigned(paddedId(), item.id().raw());
    }

    /** The prefix padded with zero bytes to a full id (the prefix itself when full; not to be written). */
    byte[] paddedId() {
        return idPrefix.length == Id.SIZE ? idPrefix : Arrays.copyOf(idPrefix, Id.SIZE);
    }

    @Override
    public int compareTo(Bound other) {
        int byTime = Long.compareUnsigned(timestamp, other.timestamp);
        return byTime != 0 ? byTime : Arrays.compareUnsigned(paddedId(), other.paddedId());
    }

    /** Equal when they delimit the same place, whatever the prefix length, as in the reference. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Bound other && compareTo(other) == 0;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(timestamp) * 31 + Arrays.hashCode(paddedId());
    }

    @Override
    public String toString() {
        String time = timestamp == INFINITY ? "infinity" : Long.toUnsignedString(timestamp);
        return "Bound(" + time + ", " + HexFormat.of().formatHex(idPrefix) + ")";
    }
}
