package org.fleetmesh.nostr;

import java.util.Arrays;

/** 32 bytes compared by content, unsigned and lexicographic: the order NIP-01 ties and Negentropy use. */
abstract class Bytes32 implements Comparable<Bytes32> {
    final byte[] bytes;
    private final int hash;

    Bytes32(byte[] bytes) {
        if (bytes.length != 32) {
            throw new IllegalArgumentException("expected 32 bytes, got " + bytes.length);
        }
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /** A copy; the value stays immutable. */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** The backing array without a copy, for hot paths that only read it. */
    public byte[] unsafeBytes() {
        return bytes;
    }

    public String hex() {
        return Hex.encode(bytes);
    }

    @Override
    public int compareTo(Bytes32 o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Arrays.equals(bytes, ((Bytes32) o).bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return hex();
    }
}
