package org.fleetmesh.identity;

import java.util.Arrays;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.identity.multiformats.Multicodec;
import org.fleetmesh.identity.multiformats.MultiformatException;
import org.fleetmesh.nostr.PubKey;

/**
 * A public key with its type, as a Multikey writes it: {@code multibase(multicodec ‖ raw key)} (W3C Controlled
 * Identifiers §2.2.2). Every instance has been checked: right length, and a point of its curve.
 */
public final class Multikey {
    private final KeyType type;
    private final byte[] key;

    private Multikey(KeyType type, byte[] key) {
        this.type = type;
        this.key = key;
    }

    /** @throws DidResolutionException invalidPublicKeyLength or invalidPublicKey */
    public static Multikey of(KeyType type, byte[] key) {
        byte[] copy = key.clone();
        type.requireValid(copy);
        return new Multikey(type, copy);
    }

    public static Multikey ed25519(byte[] key) {
        return of(KeyType.ED25519, key);
    }

    public static Multikey x25519(byte[] key) {
        return of(KeyType.X25519, key);
    }

    /** A 33-byte SEC1 compressed secp256k1 key. */
    public static Multikey secp256k1(byte[] compressed) {
        return of(KeyType.SECP256K1, compressed);
    }

    /** A Nostr key: BIP-340 x-only keys name the point with even y, so the compressed form is {@code 0x02 ‖ x}. */
    public static Multikey nostr(PubKey pubKey) {
        byte[] compressed = new byte[33];
        compressed[0] = 2;
        System.arraycopy(pubKey.unsafeBytes(), 0, compressed, 1, 32);
        return secp256k1(compressed);
    }

    /**
     * Decodes a publicKeyMultibase: base58btc ({@code z}, the Multikey norm) or base16 lower-case ({@code f}, as
     * did:nostr writes it).
     *
     * @throws DidResolutionException invalidDid for bad multibase or varint, invalidPublicKeyType for a multicodec
     *         that is not one of the key types, and the {@link #of} errors
     */
    public static Multikey decode(String publicKeyMultibase) {
        Multicodec.Value value;
        try {
            value = Multicodec.unwrap(Multibase.decodeAny(publicKeyMultibase));
        } catch (MultiformatException e) {
            throw DidResolutionException.invalidDid("publicKeyMultibase " + shorten(publicKeyMultibase) + ": " + e.getMessage());
        }
        KeyType type = KeyType.of(value.code())
                .orElseThrow(() -> new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE,
                        "multicodec " + value.codeHex() + value.codec().map(c -> " (" + c.tableName() + ")").orElse("")
                                + " is not ed25519-pub, x25519-pub, secp256k1-pub, p256-pub or p384-pub"));
        return of(type, value.content());
    }

    public KeyType type() {
        return type;
    }

    /** The raw key, without multicodec prefix (33 bytes compressed for secp256k1). */
    public byte[] keyBytes() {
        return key.clone();
    }

    /** The base58btc Multikey string, {@code z6Mk...} for Ed25519, {@code z6LS...} for X25519, {@code zQ3s...} for secp256k1. */
    public String encode() {
        return encode(Multibase.BASE58BTC);
    }

    public String encode(Multibase base) {
        return base.encode(type.codec().wrap(key));
    }

    /** The X25519 key of the same secret as this Ed25519 key (RFC 7748 §4.1 birational map). */
    public Multikey x25519FromEd25519() {
        if (type != KeyType.ED25519) {
            throw new IllegalStateException("only an Ed25519 key has a derived X25519 key, this is " + type);
        }
        return new Multikey(KeyType.X25519, Ed25519Point.toX25519(key));
    }

    /**
     * The BIP-340 x-only key. A 0x03 key gives the x of its even-y twin: the same Nostr identity only when the
     * holder negated the secret, as BIP-340 does.
     */
    public PubKey xOnly() {
        if (type != KeyType.SECP256K1) {
            throw new IllegalStateException("only a secp256k1 key has an x-only form, this is " + type);
        }
        return new PubKey(Arrays.copyOfRange(key, 1, 33));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Multikey m && m.type == type && Arrays.equals(m.key, key);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return encode();
    }

    static String shorten(String s) {
        return s.length() <= 24 ? "'" + s + "'" : "'" + s.substring(0, 20) + "...'";
    }
}
