package org.fleetmesh.settlement.cashu.crypto;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.Locale;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.math.ec.ECCurve;
import org.bouncycastle.math.ec.ECFieldElement;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.ec.FixedPointCombMultiplier;
import org.bouncycastle.util.BigIntegers;
import org.fleetmesh.nostr.Hex;

/**
 * secp256k1 points and scalars as Cashu uses them: points travel as 33-byte compressed SEC1,
 * scalars as 32-byte big-endian. Every input is validated; results are normalized points.
 */
public final class Secp256k1 {
    private static final X9ECParameters PARAMS = CustomNamedCurves.getByName("secp256k1");
    private static final ECCurve CURVE = PARAMS.getCurve();
    private static final ECPoint GENERATOR = PARAMS.getG().normalize();
    private static final BigInteger P = CURVE.getField().getCharacteristic();
    // Stateless once built; the comb multiplier keeps its precomputation on the generator point.
    private static final FixedPointCombMultiplier G_MULTIPLIER = new FixedPointCombMultiplier();

    /** The group order n. */
    public static final BigInteger N = PARAMS.getN();

    private Secp256k1() {
    }

    public static ECPoint G() {
        return GENERATOR;
    }

    /** Decodes a 33-byte compressed SEC1 point; rejects other lengths, prefixes, and x without a curve point. */
    public static ECPoint decode(byte[] compressed33) {
        if (compressed33 == null || compressed33.length != 33) {
            throw new IllegalArgumentException("public key must be 33 bytes (compressed SEC1), got "
                    + (compressed33 == null ? "null" : compressed33.length + " bytes"));
        }
        byte prefix = compressed33[0];
        if (prefix != 0x02 && prefix != 0x03) {
            throw new IllegalArgumentException("public key must start with 02 or 03 (compressed SEC1), got "
                    + String.format("%02x", prefix & 0xff));
        }
        byte[] x = new byte[32];
        System.arraycopy(compressed33, 1, x, 0, 32);
        ECPoint p = liftX(x, prefix == 0x03);
        if (p == null) {
            throw new IllegalArgumentException("public key is not a point on secp256k1");
        }
        return p;
    }

    /** Decodes 66 hex characters (compressed SEC1); upper-case digits are accepted. */
    public static ECPoint decodeHex(String hex66) {
        if (hex66 == null || hex66.length() != 66) {
            throw new IllegalArgumentException("public key must be 66 hex characters (33-byte compressed SEC1), got "
                    + (hex66 == null ? "null" : hex66.length() + " characters"));
        }
        return decode(Hex.decodeLower(hex66.toLowerCase(Locale.ROOT)));
    }

    /** 33-byte compressed SEC1 encoding. */
    public static byte[] encode(ECPoint p) {
        return requirePoint(p, "point").getEncoded(true);
    }

    /** 65-byte uncompressed SEC1 encoding (NUT-12 hashes and nonces use it). */
    public static byte[] encodeUncompressed(ECPoint p) {
        return requirePoint(p, "point").getEncoded(false);
    }

    /** 66 lower-case hex characters of the compressed encoding. */
    public static String hex(ECPoint p) {
        return Hex.encode(encode(p));
    }

    /** k·G for k in [1, n-1]. */
    public static ECPoint mulG(BigInteger k) {
        requireScalar(k, "scalar");
        return G_MULTIPLIER.multiply(GENERATOR, k).normalize();
    }

    /** k·P for a valid point P and k in [1, n-1]. */
    public static ECPoint mul(ECPoint p, BigInteger k) {
        requirePoint(p, "point");
        requireScalar(k, "scalar");
        return p.multiply(k).normalize();
    }

    /** Reads a 32-byte big-endian scalar; it must lie in [1, n-1]. */
    public static BigInteger scalar(byte[] b32) {
        if (b32 == null || b32.length != 32) {
            throw new IllegalArgumentException("scalar must be 32 bytes, got "
                    + (b32 == null ? "null" : b32.length + " bytes"));
        }
        return requireScalar(new BigInteger(1, b32), "scalar");
    }

    /** Reads 64 hex characters as a scalar in [1, n-1]; upper-case digits are accepted. */
    public static BigInteger scalarHex(String hex64) {
        if (hex64 == null || hex64.length() != 64) {
            throw new IllegalArgumentException("scalar must be 64 hex characters, got "
                    + (hex64 == null ? "null" : hex64.length() + " characters"));
        }
        return scalar(Hex.decodeLower(hex64.toLowerCase(Locale.ROOT)));
    }

    /** 32-byte big-endian encoding of 0 <= k < 2^256. */
    public static byte[] bytes32(BigInteger k) {
        if (k == null || k.signum() < 0 || k.bitLength() > 256) {
            throw new IllegalArgumentException("value does not fit in 32 unsigned bytes");
        }
        return BigIntegers.asUnsignedByteArray(32, k);
    }

    /** A uniformly random scalar in [1, n-1] from a fresh SecureRandom. */
    public static BigInteger randomScalar() {
        SecureRandom random = new SecureRandom();
        byte[] b = new byte[32];
        while (true) {
            random.nextBytes(b);
            BigInteger k = new BigInteger(1, b);
            if (k.signum() > 0 && k.compareTo(N) < 0) {
                return k;
            }
        }
    }

    /** Throws unless k is in [1, n-1]; returns k. */
    public static BigInteger requireScalar(BigInteger k, String what) {
        if (k == null) {
            throw new IllegalArgumentException(what + " is missing");
        }
        if (k.signum() <= 0 || k.compareTo(N) >= 0) {
            throw new IllegalArgumentException(what + " must be in [1, n-1]");
        }
        return k;
    }

    /** Throws unless p is a finite point of this curve; returns it normalized. */
    public static ECPoint requirePoint(ECPoint p, String what) {
        if (p == null) {
            throw new IllegalArgumentException(what + " is missing");
        }
        if (p.isInfinity()) {
            throw new IllegalArgumentException(what + " is the point at infinity");
        }
        if (!CURVE.equals(p.getCurve()) || !p.isValid()) {
            throw new IllegalArgumentException(what + " is not a point on secp256k1");
        }
        return p.normalize();
    }

    /**
     * The point with x-coordinate x32 and the requested y parity, or null when x >= p or x^3 + 7
     * has no square root (hash_to_curve tries the next counter then).
     */
    static ECPoint liftX(byte[] x32, boolean oddY) {
        BigInteger x = new BigInteger(1, x32);
        if (x.compareTo(P) >= 0) {
            return null;
        }
        ECFieldElement fx = CURVE.fromBigInteger(x);
        ECFieldElement rhs = fx.square().multiply(fx).add(CURVE.getB());
        ECFieldElement fy = rhs.sqrt();
        if (fy == null) {
            return null;
        }
        if (fy.testBitZero() != oddY) {
            fy = fy.negate();
        }
        return CURVE.createPoint(x, fy.toBigInteger()).normalize();
    }
}
