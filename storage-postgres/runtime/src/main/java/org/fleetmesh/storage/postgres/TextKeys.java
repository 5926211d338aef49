package org.fleetmesh.storage.postgres;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.fleetmesh.nostr.Hex;

/**
 * The indexable form of a tag value or d identifier. PostgreSQL text cannot hold NUL, and a btree
 * entry must stay under ~2.7 kB, so a value is stored as itself when it is at most
 * {@value #MAX_BYTES} UTF-8 bytes with no NUL and no U+0001, and otherwise as U+0001 followed by
 * the hex SHA-256 of its UTF-8 bytes. The mapping is injective (up to SHA-256), and filters are
 * mapped the same way, so every value stays matchable exactly.
 */
final class TextKeys {
    static final int MAX_BYTES = 1000;
    static final char HASHED = '\u0001';

    private TextKeys() {
    }

    static String key(String v) {
        int n = v.length();
        if (n * 3 <= MAX_BYTES && plain(v)) {
            return v; // fast path: short enough whatever the characters
        }
        if (n <= MAX_BYTES && plain(v) && utf8Length(v) <= MAX_BYTES) {
            return v;
        }
        return HASHED + Hex.encode(sha256(v.getBytes(StandardCharsets.UTF_8)));
    }

    /** First byte of a tag row's value that holds a 64-character lowercase hex value as its 32 bytes. */
    static final byte HEX32 = 1;

    /**
     * The bytes of {@code tag.value} (V11) for a {@link #key} form: a 64-character lowercase hex string (an id or a
     * key, the common case) as {@value #HEX32} followed by its 32 bytes, anything else as its UTF-8 bytes. Injective:
     * a key never starts with U+0001 unless it is a hashed form, which is 65 bytes long, never 33.
     */
    static byte[] valueBytes(String key) {
        if (key.length() == 64 && lowerHex(key)) {
            byte[] out = new byte[33];
            out[0] = HEX32;
            for (int i = 0; i < 32; i++) {
                out[i + 1] = (byte) ((Character.digit(key.charAt(2 * i), 16) << 4) | Character.digit(key.charAt(2 * i + 1), 16));
            }
            return out;
        }
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean lowerHex(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static boolean plain(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == 0 || c == HASHED) {
                return false;
            }
            if (Character.isSurrogate(c)) {
                // an unpaired surrogate cannot be sent to PostgreSQL as UTF-8 unchanged
                if (Character.isHighSurrogate(c) && i + 1 < v.length() && Character.isLowSurrogate(v.charAt(i + 1))) {
                    i++;
                } else {
                    return false;
                }
            }
        }
        return true;
    }

    static int utf8Length(String s) {
        int len = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                len += 1;
            } else if (c < 0x800) {
                len += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                len += 4;
                i++;
            } else {
                len += 3;
            }
        }
        return len;
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
