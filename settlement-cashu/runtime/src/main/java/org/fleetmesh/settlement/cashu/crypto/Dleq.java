package org.fleetmesh.settlement.cashu.crypto;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.math.ec.ECAlgorithms;
import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;

/** NUT-12 discrete-log-equality proofs: the mint shows C_ = aB_ uses the same a as A = aG. */
public final class Dleq {
    private static final byte[] NONCE_TAG = "Cashu_DLEQ_R_v1".getBytes(StandardCharsets.US_ASCII);
    private static final BigInteger TWO_256 = BigInteger.ONE.shiftLeft(256);

    private Dleq() {
    }

    /** The challenge e and response s; both are 32-byte values on the wire (hex). */
    public record Proof(BigInteger e, BigInteger s) {
        public Proof {
            if (e == null || s == null) {
                throw new IllegalArgumentException("DLEQ proof needs both e and s");
            }
            if (e.signum() < 0 || e.compareTo(TWO_256) >= 0 || s.signum() < 0 || s.compareTo(TWO_256) >= 0) {
                throw new IllegalArgumentException("DLEQ e and s must be 32-byte unsigned values");
            }
        }

        /** Parses the 64-hex-character e and s of a BlindSignature or Proof "dleq" object. */
        public static Proof fromHex(String e, String s) {
            return new Proof(hex32(e, "DLEQ e"), hex32(s, "DLEQ s"));
        }

        public String eHex() {
            return Hex.encode(Secp256k1.bytes32(e));
        }

        public String sHex() {
            return Hex.encode(Secp256k1.bytes32(s));
        }
    }

    /** SHA256 over the concatenated lower-case hex of each point's uncompressed (65-byte) encoding. */
    public static byte[] hashE(ECPoint... points) {
        StringBuilder sb = new StringBuilder(points.length * 130);
        for (ECPoint p : points) {
            sb.append(Hex.encode(Secp256k1.encodeUncompressed(p)));
        }
        return Bdhke.sha256().digest(sb.toString().getBytes(StandardCharsets.US_ASCII));
    }

    /** Mint side, with the deterministic nonce NUT-12 recommends. */
    public static Proof create(BigInteger a, ECPoint blinded) {
        Secp256k1.requireScalar(a, "mint private key a");
        ECPoint bigA = Secp256k1.mulG(a);
        ECPoint c = Secp256k1.mul(blinded, a);
        return create(a, blinded, nonce(a, bigA, blinded, c));
    }

    /** Mint side with a caller-chosen nonce; a reused nonce reveals a, so pass a fresh random one. */
    public static Proof create(BigInteger a, ECPoint blinded, BigInteger nonce) {
        Secp256k1.requireScalar(a, "mint private key a");
        Secp256k1.requireScalar(nonce, "DLEQ nonce r");
        Secp256k1.requirePoint(blinded, "blinded message B_");
        ECPoint bigA = Secp256k1.mulG(a);
        ECPoint c = Secp256k1.mul(blinded, a);
        ECPoint r1 = Secp256k1.mulG(nonce);
        ECPoint r2 = Secp256k1.mul(blinded, nonce);
        BigInteger e = new BigInteger(1, hashE(r1, r2, bigA, c));
        BigInteger s = nonce.add(e.multiply(a)).mod(Secp256k1.N);
        return new Proof(e, s);
    }

    /** r = HMAC-SHA256(a, "Cashu_DLEQ_R_v1" || A || B' || C' || ctr), points uncompressed, first ctr giving 0 < r < n. */
    static BigInteger nonce(BigInteger a, ECPoint bigA, ECPoint blinded, ECPoint c) {
        Mac mac = hmacSha256(Secp256k1.bytes32(a));
        byte[] pa = Secp256k1.encodeUncompressed(bigA);
        byte[] pb = Secp256k1.encodeUncompressed(blinded);
        byte[] pc = Secp256k1.encodeUncompressed(c);
        for (int ctr = 0; ctr < 256; ctr++) {
            mac.update(NONCE_TAG);
            mac.update(pa);
            mac.update(pb);
            mac.update(pc);
            mac.update((byte) ctr);
            BigInteger r = new BigInteger(1, mac.doFinal());
            if (r.signum() > 0 && r.compareTo(Secp256k1.N) < 0) {
                return r;
            }
        }
        throw new IllegalStateException("no DLEQ nonce within 256 tries");
    }

    /** Alice: R1 = sG - eA, R2 = sB_ - eC_, and e must equal hash(R1, R2, A, C_). */
    public static boolean verifyBlinded(ECPoint mintKey, ECPoint blinded, ECPoint blindSig, Proof p) {
        Secp256k1.requirePoint(mintKey, "mint public key A");
        Secp256k1.requirePoint(blinded, "blinded message B_");
        Secp256k1.requirePoint(blindSig, "blind signature C_");
        if (p == null) {
            throw new IllegalArgumentException("DLEQ proof is missing");
        }
        if (!inScalarRange(p.e()) || !inScalarRange(p.s())) {
            return false;
        }
        ECPoint r1 = ECAlgorithms.sumOfTwoMultiplies(Secp256k1.G(), p.s(), mintKey.negate(), p.e()).normalize();
        ECPoint r2 = ECAlgorithms.sumOfTwoMultiplies(blinded, p.s(), blindSig.negate(), p.e()).normalize();
        if (r1.isInfinity() || r2.isInfinity()) {
            return false;
        }
        return MessageDigest.isEqual(hashE(r1, r2, mintKey, blindSig), Secp256k1.bytes32(p.e()));
    }

    /** Carol: rebuild B_ = Y + rG and C_ = C + rA from the proof's secret, C and r, then verify as Alice. */
    public static boolean verifyUnblinded(ECPoint mintKey, byte[] secret, ECPoint c, BigInteger r, Proof p) {
        Secp256k1.requirePoint(mintKey, "mint public key A");
        Secp256k1.requirePoint(c, "signature C");
        Secp256k1.requireScalar(r, "blinding factor r");
        ECPoint blinded = Bdhke.blind(secret, r);
        ECPoint blindSig = c.add(Secp256k1.mul(mintKey, r)).normalize();
        if (blindSig.isInfinity()) {
            return false;
        }
        return verifyBlinded(mintKey, blinded, blindSig, p);
    }

    private static boolean inScalarRange(BigInteger k) {
        return k.signum() > 0 && k.compareTo(Secp256k1.N) < 0;
    }

    private static BigInteger hex32(String hex, String what) {
        if (hex == null || hex.length() != 64) {
            throw new IllegalArgumentException(what + " must be 64 hex characters");
        }
        return new BigInteger(1, Hex.decodeLower(hex.toLowerCase(Locale.ROOT)));
    }

    static Mac hmacSha256(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is required by every JDK", e);
        }
    }
}
