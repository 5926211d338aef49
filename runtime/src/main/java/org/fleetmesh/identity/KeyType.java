package org.fleetmesh.identity;

import java.util.Arrays;
import java.util.Optional;

import org.fleetmesh.identity.multiformats.Multicodec;

/**
 * The key types a node holds or reads, each with its multicodec, raw length and validity check. The NIST curves are
 * only read, from peers' DID documents for DIDComm (key agreement, ES256/ES384), carried SEC1 compressed.
 */
public enum KeyType {
    /** Transport signatures: peer handshakes, batch frames, capability tokens. */
    ED25519(Multicodec.ED25519_PUB, 32, "Ed25519"),
    /** DIDComm v2 key agreement (ECDH-1PU / ECDH-ES). */
    X25519(Multicodec.X25519_PUB, 32, "X25519"),
    /** Nostr (BIP-340); carried compressed, 0x02/0x03 ‖ x. */
    SECP256K1(Multicodec.SECP256K1_PUB, 33, "secp256k1"),
    /** NIST P-256 (secp256r1): DIDComm v2 key agreement and ES256; carried compressed, 0x02/0x03 ‖ x. */
    P256(Multicodec.P256_PUB, 33, "P-256"),
    /** NIST P-384 (secp384r1): DIDComm v2 key agreement and ES384; carried compressed, 0x02/0x03 ‖ x. */
    P384(Multicodec.P384_PUB, 49, "P-384");

    private final Multicodec codec;
    private final int length;
    private final String curve;

    KeyType(Multicodec codec, int length, String curve) {
        this.codec = codec;
        this.length = length;
        this.curve = curve;
    }

    public Multicodec codec() {
        return codec;
    }

    /** The raw key length the multicodec table gives. */
    public int length() {
        return length;
    }

    /** The curve name as JWK ({@code crv}) writes it. */
    public String curve() {
        return curve;
    }

    /** Whether the key can sign, so may sit in authentication, assertionMethod and the capability relationships. */
    public boolean signs() {
        return this != X25519;
    }

    /** Whether the key can do Diffie-Hellman, so may sit in keyAgreement (secp256k1 can, as did:key's vectors show). */
    public boolean agreesKeys() {
        return this != ED25519;
    }

    public static Optional<KeyType> of(long multicodec) {
        return Arrays.stream(values()).filter(t -> t.codec.code() == multicodec).findFirst();
    }

    /** Refuses a key of the wrong length or that is not a point of the curve. */
    void requireValid(byte[] key) {
        if (key.length != length) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_LENGTH,
                    codec.tableName() + " key must be " + length + " bytes, got " + key.length);
        }
        switch (this) {
            case ED25519 -> Ed25519Point.requireValid(key);
            case SECP256K1 -> Secp256k1Point.decompress(key);
            case P256, P384 -> NistPoint.decompress(this, key);
            case X25519 -> {
                // every 32-byte string is a valid X25519 u-coordinate (RFC 7748 section 5): nothing to check
            }
        }
    }
}
