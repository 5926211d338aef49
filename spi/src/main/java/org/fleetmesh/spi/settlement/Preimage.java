package org.fleetmesh.spi.settlement;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;

import org.fleetmesh.nostr.Hex;

/**
 * The 32-byte secret k whose SHA-256 is the {@link PaymentHash}. In compute escrow it is the key the
 * result is encrypted under: paying the invoice (or claiming the HTLC) reveals it. Its
 * {@link #toString()} never prints it.
 */
public final class Preimage {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] bytes;

    public Preimage(byte[] bytes) {
        if (bytes == null || bytes.length != 32) {
            throw new IllegalArgumentException("a preimage is 32 bytes");
        }
        this.bytes = bytes.clone();
    }

    /** A fresh secret from a {@link SecureRandom}. */
    public static Preimage random() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return new Preimage(b);
    }

    public static Preimage ofHex(String hex) {
        return new Preimage(Hex.decode(hex, 32));
    }

    public byte[] toBytes() {
        return bytes.clone();
    }

    /** Lower-case hex of the secret itself: only for the wire (a rail's settle call, a NUT-14 witness). */
    public String revealHex() {
        return Hex.encode(bytes);
    }

    /** SHA-256 of the 32 bytes. */
    public PaymentHash hash() {
        try {
            return new PaymentHash(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** Whether this is the preimage of {@code hash}. */
    public boolean unlocks(PaymentHash hash) {
        return hash().equals(hash);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Preimage p && MessageDigest.isEqual(bytes, p.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Redacted: names the hash, never the secret. */
    @Override
    public String toString() {
        return "Preimage[hash=" + hash().hex() + "]";
    }
}
