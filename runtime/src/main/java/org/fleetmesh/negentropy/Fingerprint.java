package org.fleetmesh.negentropy;

import java.util.Arrays;
import java.util.HexFormat;

/** The 16-byte digest of the ids in a range: see {@link Accumulator#fingerprint(long)}. */
public final class Fingerprint {
    public static final int SIZE = 16;

    private final byte[] bytes;

    private Fingerprint(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Fingerprint of(byte[] bytes) {
        if (bytes.length != SIZE) {
            throw new NegentropyException("bad fingerprint size: " + bytes.length + " bytes");
        }
        return new Fingerprint(bytes.clone());
    }

    public static Fingerprint ofHex(String hex) {
        return of(HexFormat.of().parseHex(hex));
    }

    public byte[] toBytes() {
        return bytes.clone();
    }

    byte[] raw() {
        return bytes;
    }

    public String toHex() {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fingerprint other && Arrays.equals(bytes, other.bytes);
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
