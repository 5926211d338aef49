package org.fleetmesh.identity.didcomm;

import java.math.BigInteger;
import java.security.SecureRandom;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA384Digest;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.bouncycastle.util.BigIntegers;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

/**
 * A P-256 or P-384 private key: the scalar d, 1 ≤ d &lt; n. Agrees keys (ECDH, the shared secret Z the x-coordinate
 * of d·Q, RFC 7518 §4.6.2) and signs ES256 / ES384 (RFC 7518 §3.4, deterministic k of RFC 6979).
 */
public final class EcSecret implements KeyAgreementSecret {
    private final NistCurve curve;
    private final BigInteger d;
    private final Multikey publicKey;

    private EcSecret(NistCurve curve, BigInteger d) {
        this.curve = curve;
        this.d = d;
        // a fixed-point comb: regular in d (the curve's default multiplier branches on d's digits)
        this.publicKey = Multikey.of(curve.type(), new org.bouncycastle.math.ec.FixedPointCombMultiplier()
                .multiply(curve.domain().getG(), d).normalize().getEncoded(true));
    }

    /**
     * @param type {@link KeyType#P256} or {@link KeyType#P384}
     * @param d the scalar, big-endian, 32 (P-256) or 48 (P-384) bytes, as a JWK's {@code d}
     */
    public static EcSecret of(KeyType type, byte[] d) {
        NistCurve curve = NistCurve.of(type)
                .orElseThrow(() -> new IllegalArgumentException(type + " is not P-256 or P-384"));
        if (d.length != curve.fieldBytes()) {
            throw new IllegalArgumentException("a " + type.curve() + " secret is " + curve.fieldBytes() + " bytes, got "
                    + d.length);
        }
        BigInteger scalar = new BigInteger(1, d);
        if (scalar.signum() == 0 || scalar.compareTo(curve.order()) >= 0) {
            throw new IllegalArgumentException("a " + type.curve() + " secret is in [1, n-1]");
        }
        return new EcSecret(curve, scalar);
    }

    public static EcSecret generate(KeyType type, SecureRandom random) {
        NistCurve curve = NistCurve.of(type)
                .orElseThrow(() -> new IllegalArgumentException(type + " is not P-256 or P-384"));
        BigInteger n = curve.order();
        BigInteger d;
        do {
            d = BigIntegers.createRandomBigInteger(n.bitLength(), random);
        } while (d.signum() == 0 || d.compareTo(n) >= 0);
        return new EcSecret(curve, d);
    }

    @Override
    public Multikey publicKey() {
        return publicKey;
    }

    NistCurve curve() {
        return curve;
    }

    /**
     * The ECDH shared secret with {@code peer}: the x-coordinate of d·peer, {@link NistCurve#fieldBytes} big-endian.
     * The peer key is on the curve (a {@link Multikey} is checked when made).
     *
     * @throws DidcommException WRONG_KEY_TYPE when {@code peer} is not on this secret's curve
     */
    byte[] agree(Multikey peer, String what) throws DidcommException {
        if (peer.type() != curve.type()) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE,
                    what + " is " + peer.type() + ", key agreement needs " + curve.type());
        }
        // BC's constant-time multiplier: the curve's default one (which ECDHBasicAgreement uses) branches on d's
        // digits, with the peer's point chosen by whoever sent the message
        org.bouncycastle.math.ec.ECPoint p = new org.bouncycastle.math.ec.ECConstantTimeMultiplier()
                .multiply(curve.point(peer), d).normalize();
        if (p.isInfinity()) {
            // a valid peer key (cofactor 1) and 1 ≤ d < n never give it
            throw new DidcommException(DidcommException.Reason.MALFORMED, what + " gives no shared secret");
        }
        return BigIntegers.asUnsignedByteArray(curve.fieldBytes(), p.getAffineXCoord().toBigInteger());
    }

    /** The JWS signature of {@code message} ({@link NistCurve#jwsAlgorithm}): R ‖ S, each {@link NistCurve#fieldBytes}. */
    byte[] sign(byte[] message) {
        ECDSASigner ecdsa = new ECDSASigner(new HMacDSAKCalculator(
                curve == NistCurve.P256 ? new SHA256Digest() : new SHA384Digest()));
        ecdsa.init(true, new ECPrivateKeyParameters(d, curve.domain()));
        BigInteger[] rs = ecdsa.generateSignature(curve.hash(message));
        byte[] out = new byte[2 * curve.fieldBytes()];
        System.arraycopy(BigIntegers.asUnsignedByteArray(curve.fieldBytes(), rs[0]), 0, out, 0, curve.fieldBytes());
        System.arraycopy(BigIntegers.asUnsignedByteArray(curve.fieldBytes(), rs[1]), 0, out, curve.fieldBytes(),
                curve.fieldBytes());
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EcSecret s && s.curve == curve && s.d.equals(d);
    }

    @Override
    public int hashCode() {
        return publicKey.hashCode();
    }

    @Override
    public String toString() {
        return "EcSecret[" + curve.type().curve() + ", public " + publicKey + "]";
    }
}
