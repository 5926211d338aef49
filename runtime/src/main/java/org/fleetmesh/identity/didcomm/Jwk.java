package org.fleetmesh.identity.didcomm;

import java.util.Optional;

import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * RFC 8037 OKP JWKs for the two 25519 keys and RFC 7518 §6.2 EC JWKs for P-256 and P-384: public ones in DID documents
 * and {@code epk}, private ones as secrets; and public secp256k1 EC JWKs (RFC 8812) in DID documents, for ES256K
 * signers.
 */
final class Jwk {
    private Jwk() {
    }

    /**
     * {@code {"kty":"OKP","crv":...,"x":...}}, or for P-256 and P-384 {@code {"kty":"EC","crv":...,"x":...,"y":...}}:
     * never a {@code d}.
     */
    static ObjectNode of(Multikey key) {
        ObjectNode jwk = DidcommJson.object();
        Optional<NistCurve> nist = NistCurve.of(key.type());
        if (nist.isPresent()) {
            byte[][] xy = nist.get().affine(key);
            jwk.put("kty", "EC");
            jwk.put("crv", key.type().curve());
            jwk.put("x", Base64Url.encode(xy[0]));
            jwk.put("y", Base64Url.encode(xy[1]));
            return jwk;
        }
        jwk.put("kty", "OKP");
        jwk.put("crv", key.type().curve());
        jwk.put("x", Base64Url.encode(key.keyBytes()));
        return jwk;
    }

    /** The public key of a JWK; a private JWK is accepted and its {@code d} ignored. */
    static Multikey publicKey(ObjectNode jwk, String where) throws DidcommException {
        if ("EC".equals(DidcommJson.requireString(jwk, "kty", where))) {
            String crv = DidcommJson.requireString(jwk, "crv", where);
            if ("secp256k1".equals(crv)) {
                return secp256k1(jwk, where);
            }
            NistCurve curve = NistCurve.ofCrv(crv).orElseThrow(() -> DidcommException.unsupported(where
                    + " is EC crv " + crv + "; only P-256, P-384 and secp256k1 EC keys are supported"));
            byte[] x = Base64Url.decode(DidcommJson.requireString(jwk, "x", where), where + " x");
            byte[] y = Base64Url.decode(DidcommJson.requireString(jwk, "y", where), where + " y");
            return curve.fromAffine(x, y, where);
        }
        KeyType type = okpType(jwk, where);
        byte[] x = Base64Url.decode(DidcommJson.requireString(jwk, "x", where), where + " x");
        try {
            return Multikey.of(type, x);
        } catch (DidResolutionException e) {
            throw DidcommException.malformed(where + ": " + e.getMessage());
        }
    }

    /** {@code {"kty":"EC","crv":"secp256k1","x":...,"y":...}}: a point on the curve, as a compressed Multikey. */
    private static Multikey secp256k1(ObjectNode jwk, String where) throws DidcommException {
        byte[] x = Base64Url.decode(DidcommJson.requireString(jwk, "x", where), where + " x");
        byte[] y = Base64Url.decode(DidcommJson.requireString(jwk, "y", where), where + " y");
        if (x.length != 32 || y.length != 32) {
            throw DidcommException.malformed(where + " secp256k1 x and y are 32 bytes each, got " + x.length + " and "
                    + y.length);
        }
        byte[] uncompressed = new byte[65];
        uncompressed[0] = 4;
        System.arraycopy(x, 0, uncompressed, 1, 32);
        System.arraycopy(y, 0, uncompressed, 33, 32);
        try {
            return Multikey.secp256k1(org.bouncycastle.crypto.ec.CustomNamedCurves.getByName("secp256k1").getCurve()
                    .decodePoint(uncompressed).getEncoded(true));
        } catch (IllegalArgumentException | DidResolutionException e) {
            throw DidcommException.malformed(where + " is not a point on secp256k1: " + e.getMessage());
        }
    }

    static Secret secret(ObjectNode jwk) throws DidcommException {
        String where = "private JWK";
        if ("EC".equals(DidcommJson.requireString(jwk, "kty", where))) {
            return ecSecret(jwk, where);
        }
        KeyType type = okpType(jwk, where);
        Optional<String> d = DidcommJson.optionalString(jwk, "d", where);
        if (d.isEmpty()) {
            throw DidcommException.malformed(where + " has no 'd': it is a public key");
        }
        byte[] secretBytes = Base64Url.decode(d.get(), where + " d");
        if (secretBytes.length != 32) {
            throw DidcommException.malformed(where + " d must be 32 bytes for " + type.curve() + ", got " + secretBytes.length);
        }
        Secret secret = type == KeyType.X25519 ? X25519Secret.of(secretBytes) : Ed25519Secret.of(secretBytes);
        if (jwk.has("x") && !publicKey(jwk, where).equals(secret.publicKey())) {
            throw DidcommException.malformed(where + " x is not the public key of its d");
        }
        return secret;
    }

    /** A P-256 or P-384 private JWK: {@code d}, and {@code x}, {@code y} (when present) its public point. */
    private static EcSecret ecSecret(ObjectNode jwk, String where) throws DidcommException {
        String crv = DidcommJson.requireString(jwk, "crv", where);
        NistCurve curve = NistCurve.ofCrv(crv).orElseThrow(() -> DidcommException.unsupported(where + " is EC crv "
                + crv + "; only P-256 and P-384 EC secrets are supported"));
        Optional<String> d = DidcommJson.optionalString(jwk, "d", where);
        if (d.isEmpty()) {
            throw DidcommException.malformed(where + " has no 'd': it is a public key");
        }
        byte[] secretBytes = Base64Url.decode(d.get(), where + " d");
        EcSecret secret;
        try {
            secret = EcSecret.of(curve.type(), secretBytes);
        } catch (IllegalArgumentException e) {
            throw DidcommException.malformed(where + ": " + e.getMessage());
        }
        if ((jwk.has("x") || jwk.has("y")) && !publicKey(jwk, where).equals(secret.publicKey())) {
            throw DidcommException.malformed(where + " x, y are not the public key of its d");
        }
        return secret;
    }

    private static KeyType okpType(ObjectNode jwk, String where) throws DidcommException {
        String kty = DidcommJson.requireString(jwk, "kty", where);
        String crv = DidcommJson.requireString(jwk, "crv", where);
        if (!"OKP".equals(kty)) {
            throw DidcommException.unsupported(where + " is kty " + kty + " crv " + crv
                    + "; only OKP X25519 and Ed25519, and EC P-256 and P-384 keys are supported");
        }
        return switch (crv) {
            case "X25519" -> KeyType.X25519;
            case "Ed25519" -> KeyType.ED25519;
            default -> throw DidcommException.unsupported(where + " is OKP crv " + crv
                    + "; only X25519 and Ed25519 are supported");
        };
    }
}
