package org.fleetmesh.spi.settlement;

import java.util.Arrays;

import org.fleetmesh.nostr.Hex;

/** SHA-256 of a {@link Preimage}: what a Lightning invoice and a NUT-14 HTLC are locked to. */
public final class PaymentHash {
    private final byte[] bytes;
    private final int hash;

    public PaymentHash(byte[] bytes) {
        if (bytes == null || bytes.length != 32) {
            throw new IllegalArgumentException("a payment hash is 32 bytes");
        }
        this.bytes = bytes.clone();
        this.hash = Arrays.hashCode(this.bytes);
    }

    /** From 64 lower-case hex characters, as BOLT-11 tooling and NUT-14 secrets write it. */
    public static PaymentHash ofHex(String hex) {
        return new PaymentHash(Hex.decode(hex, 32));
    }

    public byte[] toBytes() {
        return bytes.clone();
    }

    public String hex() {
        return Hex.encode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PaymentHash p && Arrays.equals(bytes, p.bytes);
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
