package org.fleetmesh.identity;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.math.ec.ECPoint;

/** A P-256 or P-384 point given SEC1 compressed (33 or 49 bytes), decompressed to check that it is on the curve. */
final class NistPoint {
    private static final X9ECParameters P256 = CustomNamedCurves.getByName("secp256r1");
    private static final X9ECParameters P384 = CustomNamedCurves.getByName("secp384r1");

    private NistPoint() {
    }

    /** The affine point; {@code invalidPublicKey} when the prefix is not 02/03, x is not below p, or no y exists. */
    static ECPoint decompress(KeyType type, byte[] compressed) {
        X9ECParameters curve = switch (type) {
            case P256 -> P256;
            case P384 -> P384;
            default -> throw new IllegalArgumentException(type + " is not a NIST curve");
        };
        if (compressed.length != type.length() || (compressed[0] != 2 && compressed[0] != 3)) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY, type.codec().tableName()
                    + " key must be SEC1 compressed (prefix 0x02 or 0x03), got prefix 0x"
                    + String.format("%02x", compressed.length == 0 ? 0 : compressed[0] & 0xff));
        }
        try {
            return curve.getCurve().decodePoint(compressed).normalize();
        } catch (IllegalArgumentException e) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY,
                    type.codec().tableName() + " key is not a point on " + type.curve() + " (" + e.getMessage() + ")");
        }
    }

    /** The big-endian x and y of a valid compressed key (32 or 48 bytes each), as JWK writes them. */
    static byte[][] affineXY(KeyType type, byte[] compressed) {
        ECPoint p = decompress(type, compressed);
        return new byte[][] { p.getAffineXCoord().getEncoded(), p.getAffineYCoord().getEncoded() };
    }
}
