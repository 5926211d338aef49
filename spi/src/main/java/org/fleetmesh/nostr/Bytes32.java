package org.fleetmesh.nostr;

import java.util.Arrays;

/** 32 bytes compared by content, unsigned and lexicographic: the order NIP-01 ties and Negentropy use. */
abstract class Bytes32 implements Comparable<Bytes32> {
    final byte[] bytes;
    private final int hash;
    private String hex; // cached: ids and keys are written as hex on every send

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
        String h = hex;
        if (h == null) {
            h = Hex.encode(bytes);
            hex = h;
        }
        return h;
    }

    /** For subclasses built from hex that is already known to be the lower-case form of bytes. */
    void knownHex(String lowerHex) {
        hex = lowerHex;
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
