package org.fleetmesh.peering;

import java.util.Arrays;

import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.nostr.Hex;

/** A 64-byte Ed25519 signature (RFC 8032, pure Ed25519): the {@code sig} of a proof. */
public final class Ed25519Signature {
    public static final int LENGTH = Ed25519.SIGNATURE_SIZE;

    private final byte[] bytes;

    private Ed25519Signature(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Ed25519Signature of(byte[] bytes) {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("an Ed25519 signature is " + LENGTH + " bytes, got " + bytes.length);
        }
        return new Ed25519Signature(bytes.clone());
    }

    /** @throws IllegalArgumentException unless {@code hex} is 128 lower-case hex characters */
    /** Signs {@code message} with the Ed25519 seed {@code key} (RFC 8032, pure Ed25519); the seed copy is wiped. */
    public static Ed25519Signature sign(byte[] message, SecretKey key) {
        byte[] seed = key.bytes();
        byte[] sig = new byte[LENGTH];
        try {
            Ed25519.sign(seed, 0, message, 0, message.length, sig, 0);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
        return new Ed25519Signature(sig);
    }

    public static Ed25519Signature ofHex(String hex) {
        if (!Hex.isLowerHex(hex, 2 * LENGTH)) {
            throw new IllegalArgumentException("an Ed25519 signature is " + (2 * LENGTH) + " lower-case hex characters");
        }
        return new Ed25519Signature(Hex.decodeLower(hex));
    }

    /** Whether this signs {@code message} under {@code key}; false for a key that is not Ed25519. */
    public boolean verifies(byte[] message, Multikey key) {
        if (key.type() != KeyType.ED25519) {
            return false;
        }
        return Ed25519.verify(bytes, 0, key.keyBytes(), 0, message, 0, message.length);
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    public String hex() {
        return Hex.encode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ed25519Signature s && Arrays.equals(bytes, s.bytes);
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
