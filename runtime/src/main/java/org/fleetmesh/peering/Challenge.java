package org.fleetmesh.peering;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;

import org.fleetmesh.nostr.Hex;

/** A handshake challenge: 32 fresh random bytes, written as 64 lower-case hex characters. */
public final class Challenge {
    public static final int LENGTH = 32;

    private final byte[] bytes;

    private Challenge(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Challenge of(byte[] bytes) {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("a challenge is " + LENGTH + " bytes, got " + bytes.length);
        }
        return new Challenge(bytes.clone());
    }

    /** @throws IllegalArgumentException unless {@code hex} is 64 lower-case hex characters */
    public static Challenge ofHex(String hex) {
        if (!Hex.isLowerHex(hex, 2 * LENGTH)) {
            throw new IllegalArgumentException("a challenge is " + (2 * LENGTH) + " lower-case hex characters");
        }
        return new Challenge(Hex.decodeLower(hex));
    }

    public static Challenge random(Random random) {
        byte[] b = new byte[LENGTH];
        random.nextBytes(b);
        return new Challenge(b);
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    public String hex() {
        return Hex.encode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Challenge c && MessageDigest.isEqual(bytes, c.bytes);
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
