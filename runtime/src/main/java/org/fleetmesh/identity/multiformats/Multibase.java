package org.fleetmesh.identity.multiformats;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The multibase encodings DIDs here use: {@code z} base58btc (did:key, did:peer, Multikey) and {@code f}
 * base16 lower-case (did:nostr's publicKeyMultibase). Others are refused by name.
 */
public enum Multibase {
    BASE58BTC('z'),
    BASE16_LOWER('f');

    private final char prefix;

    Multibase(char prefix) {
        this.prefix = prefix;
    }

    public char prefix() {
        return prefix;
    }

    public String encode(byte[] bytes) {
        return prefix + switch (this) {
            case BASE58BTC -> Base58Btc.encode(bytes);
            case BASE16_LOWER -> HexFormat.of().formatHex(bytes);
        };
    }

    /** Decodes text that must carry this base's prefix. */
    public byte[] decode(String text) {
        Multibase base = of(text);
        if (base != this) {
            throw new MultiformatException("expected multibase '" + prefix + "' (" + name().toLowerCase()
                    + "), got '" + text.charAt(0) + "'");
        }
        return decodeBody(text.substring(1));
    }

    /** The base named by the first character. */
    public static Multibase of(String text) {
        if (text == null || text.isEmpty()) {
            throw new MultiformatException("empty multibase value");
        }
        char c = text.charAt(0);
        return Arrays.stream(values()).filter(b -> b.prefix == c).findFirst()
                .orElseThrow(() -> new MultiformatException("unsupported multibase prefix '" + c
                        + "' (supported: 'z' base58btc, 'f' base16 lower-case)"));
    }

    /** Decodes text in whichever supported base its prefix names. */
    public static byte[] decodeAny(String text) {
        return of(text).decodeBody(text.substring(1));
    }

    private byte[] decodeBody(String body) {
        return switch (this) {
            case BASE58BTC -> Base58Btc.decode(body);
            case BASE16_LOWER -> decodeLowerHex(body);
        };
    }

    private static byte[] decodeLowerHex(String body) {
        if ((body.length() & 1) != 0) {
            throw new MultiformatException("base16 needs an even number of characters, got " + body.length());
        }
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                throw new MultiformatException("'" + c + "' at position " + i + " is not a base16 lower-case character");
            }
        }
        return HexFormat.of().parseHex(body);
    }
}
