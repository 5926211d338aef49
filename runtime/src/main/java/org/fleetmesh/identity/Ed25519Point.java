package org.fleetmesh.identity;

import java.math.BigInteger;

import org.bouncycastle.math.ec.rfc8032.Ed25519;

/** Checks on Ed25519 public keys (RFC 8032 §5.1.3) and their X25519 counterpart (RFC 7748 §4.1). */
final class Ed25519Point {
    private static final BigInteger P = BigInteger.ONE.shiftLeft(255).subtract(BigInteger.valueOf(19));

    private Ed25519Point() {
    }

    static void requireValid(byte[] key) {
        if (!Ed25519.validatePublicKeyPartial(key, 0)) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY,
                    "ed25519-pub key does not decode to a point on edwards25519 (RFC 8032 5.1.3)");
        }
        // a small-order key would let anyone forge signatures that "verify" for it
        if (!Ed25519.validatePublicKeyFull(key, 0)) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY,
                    "ed25519-pub key is not in the prime-order subgroup");
        }
    }

    /**
     * The Montgomery u of a valid Ed25519 key's point, u = (1 + y) / (1 - y) mod p: the X25519 key the same
     * secret agrees with, which did:key derives for keyAgreement.
     */
    static byte[] toX25519(byte[] edKey) {
        byte[] be = new byte[32];
        for (int i = 0; i < 32; i++) {
            be[i] = edKey[31 - i];
        }
        be[0] &= 0x7f; // the top bit is the sign of x, not part of y
        BigInteger y = new BigInteger(1, be);
        // y = 1 is the neutral point, which requireValid has already refused
        BigInteger u = BigInteger.ONE.add(y).multiply(BigInteger.ONE.subtract(y).mod(P).modInverse(P)).mod(P);
        byte[] u32 = toFixed32(u);
        byte[] le = new byte[32];
        for (int i = 0; i < 32; i++) {
            le[i] = u32[31 - i];
        }
        return le;
    }

    private static byte[] toFixed32(BigInteger v) {
        byte[] raw = v.toByteArray();
        byte[] out = new byte[32];
        int n = Math.min(raw.length, 32);
        System.arraycopy(raw, raw.length - n, out, 32 - n, n);
        return out;
    }
}
