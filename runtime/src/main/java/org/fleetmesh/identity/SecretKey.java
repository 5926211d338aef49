package org.fleetmesh.identity;

import java.security.MessageDigest;
import java.util.Arrays;

/** 32 bytes of secret key material. It never prints itself: logs and errors stay clean. */
public final class SecretKey {
    private final byte[] bytes;

    public SecretKey(byte[] bytes) {
        if (bytes.length != 32) {
            throw new IllegalArgumentException("a secret key is 32 bytes");
        }
        this.bytes = bytes.clone();
    }

    /** A copy of the key bytes; callers should zero it when done. */
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SecretKey s && MessageDigest.isEqual(bytes, s.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "SecretKey[redacted]";
    }
}
