package org.fleetmesh.nostr;

import java.util.Arrays;

/** A 64-byte BIP-340 Schnorr signature. */
public final class Signature {
    private final byte[] bytes;

    public Signature(byte[] bytes) {
        if (bytes.length != 64) {
            throw new IllegalArgumentException("expected 64 bytes, got " + bytes.length);
        }
        this.bytes = bytes;
    }

    public static Signature ofHex(String hex) {
        return new Signature(Hex.decode(hex, 64));
    }

    public byte[] unsafeBytes() {
        return bytes;
    }

    public String hex() {
        return Hex.encode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Signature s && Arrays.equals(bytes, s.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return hex();
    }
}
