package org.fleetmesh.nostr;

import java.util.Arrays;

/** A 64-byte BIP-340 Schnorr signature. */
public final class Signature {
    private final byte[] bytes;
    private String hex;

    public Signature(byte[] bytes) {
        if (bytes.length != 64) {
            throw new IllegalArgumentException("expected 64 bytes, got " + bytes.length);
        }
        this.bytes = bytes;
    }

    public static Signature ofHex(String hex) {
        Signature s = new Signature(Hex.decode(hex, 64));
        s.hex = hex;
        return s;
    }

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
