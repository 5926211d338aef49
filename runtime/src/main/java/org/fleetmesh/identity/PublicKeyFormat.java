package org.fleetmesh.identity;

import java.util.Base64;

import org.fleetmesh.identity.multiformats.Base58Btc;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * How a verification method carries its key: did:key's {@code publicKeyFormat} option. Multikey is the current
 * form; the others are the suites the did:key test vectors and older peers use.
 */
public enum PublicKeyFormat {
    /** {@code Multikey} with {@code publicKeyMultibase}. */
    MULTIKEY,
    /** {@code JsonWebKey2020} with {@code publicKeyJwk} (RFC 8037 OKP for the 25519 keys, EC x/y for secp256k1). */
    JSON_WEB_KEY_2020,
    /** {@code Ed25519VerificationKey2020} / {@code X25519KeyAgreementKey2020} with {@code publicKeyMultibase}. */
    VERIFICATION_KEY_2020,
    /**
     * {@code Ed25519VerificationKey2018} / {@code X25519KeyAgreementKey2019} / {@code EcdsaSecp256k1VerificationKey2019}
     * with the raw key in {@code publicKeyBase58}.
     */
    VERIFICATION_KEY_2018;

    /** The verification method {@code type} for a key type. */
    public String type(KeyType key) {
        return switch (this) {
            case MULTIKEY -> "Multikey";
            case JSON_WEB_KEY_2020 -> "JsonWebKey2020";
            case VERIFICATION_KEY_2020 -> switch (key) {
                case ED25519 -> "Ed25519VerificationKey2020";
                case X25519 -> "X25519KeyAgreementKey2020";
                case SECP256K1, P256, P384 -> throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE,
                        "there is no 2020 verification key suite for " + key.curve());
            };
            case VERIFICATION_KEY_2018 -> switch (key) {
                case ED25519 -> "Ed25519VerificationKey2018";
                case X25519 -> "X25519KeyAgreementKey2019";
                case SECP256K1 -> "EcdsaSecp256k1VerificationKey2019";
                case P256, P384 -> throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE,
                        "there is no 2018/2019 verification key suite with publicKeyBase58 for " + key.curve());
            };
        };
    }

    /** The {@code @context} URL that defines {@link #type}. */
    public String context(KeyType key) {
        return switch (this) {
            case MULTIKEY -> JsonLdContext.MULTIKEY_V1;
            case JSON_WEB_KEY_2020 -> JsonLdContext.JWS_2020;
            case VERIFICATION_KEY_2020 -> key == KeyType.X25519 ? JsonLdContext.X25519_2020 : JsonLdContext.ED25519_2020;
            case VERIFICATION_KEY_2018 -> switch (key) {
                case ED25519 -> JsonLdContext.ED25519_2018;
                case X25519 -> JsonLdContext.X25519_2019;
                case SECP256K1 -> JsonLdContext.SECP256K1_2019;
                case P256, P384 -> throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE,
                        "there is no 2018/2019 verification key suite with publicKeyBase58 for " + key.curve());
            };
        };
    }

    /** A verification method: id, type, controller, then the key in this format. */
    ObjectNode verificationMethod(String id, String controller, Multikey key) {
        ObjectNode vm = DidJson.object();
        vm.put("id", id);
        vm.put("type", type(key.type()));
        vm.put("controller", controller);
        switch (this) {
            case MULTIKEY, VERIFICATION_KEY_2020 -> vm.put("publicKeyMultibase", key.encode());
            case JSON_WEB_KEY_2020 -> vm.set("publicKeyJwk", jwk(key));
            case VERIFICATION_KEY_2018 -> vm.put("publicKeyBase58", Base58Btc.encode(key.keyBytes()));
        }
        return vm;
    }

    /** The public JWK: never a {@code d}. */
    static ObjectNode jwk(Multikey key) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        ObjectNode jwk = DidJson.object();
        if (key.type() == KeyType.SECP256K1 || key.type() == KeyType.P256 || key.type() == KeyType.P384) {
            byte[][] xy = key.type() == KeyType.SECP256K1 ? Secp256k1Point.affineXY(key.keyBytes())
                    : NistPoint.affineXY(key.type(), key.keyBytes());
            jwk.put("kty", "EC");
            jwk.put("crv", key.type().curve());
            jwk.put("x", b64.encodeToString(xy[0]));
            jwk.put("y", b64.encodeToString(xy[1]));
        } else {
            jwk.put("kty", "OKP");
            jwk.put("crv", key.type().curve());
            jwk.put("x", b64.encodeToString(key.keyBytes()));
        }
        return jwk;
    }
}
