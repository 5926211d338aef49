package org.fleetmesh.identity.didcomm;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

/**
 * The NIST curves DIDComm v2 asks every implementation for (§Curves and Content Encryption Algorithms): P-256 and
 * P-384, for key agreement (ECDH, RFC 7518 §4.6) and signatures (ES256, ES384: RFC 7518 §3.4). Keys are
 * {@link Multikey}s holding the SEC1 compressed point; JWKs carry x and y, each {@link #fieldBytes} long.
 */
enum NistCurve {
    P256(KeyType.P256, "secp256r1", 32, "ES256", "SHA-256"),
    P384(KeyType.P384, "secp384r1", 48, "ES384", "SHA-384");

    private final KeyType type;
    private final X9ECParameters params;
    private final ECDomainParameters domain;
    private final int fieldBytes;
    private final String jwsAlgorithm;
    private final String digest;

    NistCurve(KeyType type, String secName, int fieldBytes, String jwsAlgorithm, String digest) {
        this.type = type;
        this.params = CustomNamedCurves.getByName(secName);
        this.domain = new ECDomainParameters(params);
        this.fieldBytes = fieldBytes;
        this.jwsAlgorithm = jwsAlgorithm;
        this.digest = digest;
    }

    static Optional<NistCurve> of(KeyType type) {
        return Arrays.stream(values()).filter(c -> c.type == type).findFirst();
    }

    /** By JWK {@code crv}: {@code P-256}, {@code P-384}. */
    static Optional<NistCurve> ofCrv(String crv) {
        return Arrays.stream(values()).filter(c -> c.type.curve().equals(crv)).findFirst();
    }

    /** By JWS {@code alg}: {@code ES256}, {@code ES384}. */
    static Optional<NistCurve> ofJwsAlgorithm(String alg) {
        return Arrays.stream(values()).filter(c -> c.jwsAlgorithm.equals(alg)).findFirst();
    }

    KeyType type() {
        return type;
    }

    /** Bytes of a field element: of JWK x, y and d, of an ECDH shared secret, of each of R and S. */
    int fieldBytes() {
        return fieldBytes;
    }

    String jwsAlgorithm() {
        return jwsAlgorithm;
    }

    ECDomainParameters domain() {
        return domain;
    }

    BigInteger order() {
        return params.getN();
    }

    /**
     * The key whose affine coordinates are {@code x} and {@code y}, as a JWK gives them.
     *
     * @throws DidcommException MALFORMED when a coordinate is not {@link #fieldBytes} long or the point is not on the
     *         curve (an invalid-curve point: ECDH with it would leak bits of the secret)
     */
    Multikey fromAffine(byte[] x, byte[] y, String where) throws DidcommException {
        if (x.length != fieldBytes || y.length != fieldBytes) {
            throw DidcommException.malformed(where + " " + type.curve() + " x and y are " + fieldBytes
                    + " bytes each, got " + x.length + " and " + y.length);
        }
        byte[] uncompressed = new byte[1 + 2 * fieldBytes];
        uncompressed[0] = 4;
        System.arraycopy(x, 0, uncompressed, 1, fieldBytes);
        System.arraycopy(y, 0, uncompressed, 1 + fieldBytes, fieldBytes);
        try {
            // decodePoint checks x, y < p and y^2 = x^3 + ax + b; the curves have cofactor 1, so that is all. (The JDK's
            // KeyFactory "EC" takes an off-curve point as it is; only its ECDH refuses it: here it is refused at once.)
            return Multikey.of(type, params.getCurve().decodePoint(uncompressed).getEncoded(true));
        } catch (IllegalArgumentException | DidResolutionException e) {
            throw DidcommException.malformed(where + " is not a point on " + type.curve() + ": " + e.getMessage());
        }
    }

    /** The affine point of a key of this curve (already checked on the curve when the {@link Multikey} was made). */
    ECPoint point(Multikey key) {
        if (key.type() != type) {
            throw new IllegalArgumentException(key.type() + " is not " + type);
        }
        return params.getCurve().decodePoint(key.keyBytes()).normalize();
    }

    /** The affine x and y of {@code key}, {@link #fieldBytes} each. */
    byte[][] affine(Multikey key) {
        ECPoint p = point(key);
        return new byte[][] { p.getAffineXCoord().getEncoded(), p.getAffineYCoord().getEncoded() };
    }

    byte[] hash(byte[] message) {
        try {
            return MessageDigest.getInstance(digest).digest(message);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JRE has " + digest, e);
        }
    }

    /**
     * RFC 7518 §3.4: the JWS signature is R ‖ S, each {@link #fieldBytes} big-endian; a signature of another length,
     * or with R or S outside [1, n-1], does not verify.
     */
    boolean verify(Multikey key, byte[] input, byte[] signature) {
        if (signature.length != 2 * fieldBytes) {
            return false;
        }
        ECDSASigner ecdsa = new ECDSASigner();
        ecdsa.init(false, new ECPublicKeyParameters(point(key), domain));
        return ecdsa.verifySignature(hash(input), new BigInteger(1, Arrays.copyOfRange(signature, 0, fieldBytes)),
                new BigInteger(1, Arrays.copyOfRange(signature, fieldBytes, 2 * fieldBytes)));
    }
}
