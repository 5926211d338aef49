package org.fleetmesh.identity;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.math.ec.ECPoint;

/** A secp256k1 point given as a 33-byte SEC1 compressed key, decompressed to check that it is on the curve. */
final class Secp256k1Point {
    private static final X9ECParameters CURVE = CustomNamedCurves.getByName("secp256k1");

    private Secp256k1Point() {
    }

    /** The affine point; {@code invalidPublicKey} when the prefix is not 02/03, x is not below p, or no y exists. */
    static ECPoint decompress(byte[] compressed) {
        if (compressed.length != 33 || (compressed[0] != 2 && compressed[0] != 3)) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY,
                    "secp256k1-pub key must be SEC1 compressed (prefix 0x02 or 0x03), got prefix 0x"
                            + String.format("%02x", compressed.length == 0 ? 0 : compressed[0] & 0xff));
        }
        try {
            return CURVE.getCurve().decodePoint(compressed).normalize();
        } catch (IllegalArgumentException e) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY,
                    "secp256k1-pub key is not a point on secp256k1 (" + e.getMessage() + ")");
        }
    }

    /** The 32-byte big-endian x and y of a valid compressed key, as JWK writes them. */
    static byte[][] affineXY(byte[] compressed) {
        ECPoint p = decompress(compressed);
        return new byte[][] { p.getAffineXCoord().getEncoded(), p.getAffineYCoord().getEncoded() };
    }
}
