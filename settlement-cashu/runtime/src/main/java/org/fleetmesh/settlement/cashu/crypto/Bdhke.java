package org.fleetmesh.settlement.cashu.crypto;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.bouncycastle.math.ec.ECPoint;

/** NUT-00 blind Diffie-Hellman key exchange: hash_to_curve, blinding, signing, unblinding, verification. */
public final class Bdhke {
    private static final byte[] DOMAIN_SEPARATOR = "Secp256k1_HashToCurve_Cashu_".getBytes(StandardCharsets.US_ASCII);
    // Same bound as the reference implementations; reaching it has probability about 2^-65536.
    private static final int MAX_COUNTER = 1 << 16;

    private Bdhke() {
    }

    /** Y = PublicKey(02 || SHA256(SHA256(DOMAIN_SEPARATOR || x) || counter_le32)) for the first counter that gives a point. */
    public static ECPoint hashToCurve(byte[] message) {
        if (message == null) {
            throw new IllegalArgumentException("message is missing");
        }
        MessageDigest sha = sha256();
        sha.update(DOMAIN_SEPARATOR);
        byte[] msgHash = sha.digest(message);
        byte[] counter = new byte[4];
        for (int i = 0; i < MAX_COUNTER; i++) {
            counter[0] = (byte) i;
            counter[1] = (byte) (i >>> 8);
            counter[2] = (byte) (i >>> 16);
            counter[3] = (byte) (i >>> 24);
            sha.update(msgHash);
            ECPoint y = Secp256k1.liftX(sha.digest(counter), false);
            if (y != null) {
                return y;
            }
        }
        throw new IllegalStateException("hash_to_curve found no point within " + MAX_COUNTER + " counters");
    }

    /** Y for a proof's secret string (UTF-8), the NUT-07 Y. */
    public static ECPoint hashToCurve(String secret) {
        if (secret == null) {
            throw new IllegalArgumentException("secret is missing");
        }
        return hashToCurve(secret.getBytes(StandardCharsets.UTF_8));
    }

    /** B_ = Y + rG. */
    public static ECPoint blind(byte[] secret, BigInteger r) {
        ECPoint y = hashToCurve(secret);
        ECPoint b = y.add(Secp256k1.mulG(r)).normalize();
        return nonInfinite(b, "blinded message");
    }

    /** C_ = kB_ (mint side). */
    public static ECPoint sign(ECPoint blinded, BigInteger k) {
        return Secp256k1.mul(Secp256k1.requirePoint(blinded, "blinded message B_"), k);
    }

    /** C = C_ - rK. */
    public static ECPoint unblind(ECPoint blindSig, BigInteger r, ECPoint mintKey) {
        Secp256k1.requirePoint(blindSig, "blind signature C_");
        Secp256k1.requirePoint(mintKey, "mint public key K");
        ECPoint rk = Secp256k1.mul(mintKey, r);
        return nonInfinite(blindSig.subtract(rk).normalize(), "unblinded signature C");
    }

    /** Mint side: C == k·hash_to_curve(secret). */
    public static boolean verify(byte[] secret, ECPoint c, BigInteger k) {
        Secp256k1.requirePoint(c, "signature C");
        Secp256k1.requireScalar(k, "mint private key k");
        return Secp256k1.mul(hashToCurve(secret), k).equals(c);
    }

    private static ECPoint nonInfinite(ECPoint p, String what) {
        if (p.isInfinity()) {
            throw new IllegalArgumentException(what + " is the point at infinity");
        }
        return p;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
    }
}
