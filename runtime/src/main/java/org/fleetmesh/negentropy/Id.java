package org.fleetmesh.negentropy;

import java.util.Arrays;
import java.util.HexFormat;

/** A 32-byte record id, ordered byte by byte as unsigned values. */
public final class Id implements Comparable<Id> {
    public static final int SIZE = 32;

    private final byte[] bytes;

    private Id(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Id of(byte[] bytes) {
        if (bytes.length != SIZE) {
            throw new NegentropyException("bad id size: " + bytes.length + " bytes, expected " + SIZE);
        }
        return new Id(bytes.clone());
    }

    /** An id over {@code bytes} without a copy: the caller hands over a fresh 32-byte array. */
    static Id wrap(byte[] bytes) {
        return new Id(bytes);
    }

    public static Id ofHex(String hex) {
        try {
            return of(HexFormat.of().parseHex(hex));
        } catch (IllegalArgumentException e) {
            throw new NegentropyException("bad id hex: " + e.getMessage());
        }
    }

    public byte[] toBytes() {
        return bytes.clone();
    }

    public String toHex() {
        return HexFormat.of().formatHex(bytes);
    }

    /** The raw bytes without a copy, for encoders and the fingerprint sum inside this package. */
    byte[] raw() {
        return bytes;
    }

    @Override
    public int compareTo(Id other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Id other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return toHex();
    }
}
