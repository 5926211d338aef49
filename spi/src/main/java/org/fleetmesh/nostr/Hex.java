package org.fleetmesh.nostr;

/** Lower-case hex, as Nostr writes ids, keys and signatures. */
public final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    public static String encode(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = DIGITS[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = DIGITS[bytes[i] & 0xf];
        }
        return new String(out);
    }

    /**
     * Writes {@code bytes} as lower-case hex, one ASCII byte per digit, into {@code out} from {@code at}; returns the
     * position after the last digit (for building UTF-8 text without a String).
     */
    public static int encode(byte[] bytes, byte[] out, int at) {
        for (byte b : bytes) {
            out[at++] = (byte) DIGITS[(b >> 4) & 0xf];
            out[at++] = (byte) DIGITS[b & 0xf];
        }
        return at;
    }

    /** Decodes lower-case hex of exactly {@code length} bytes; NIP-01 ids and keys are lower-case. */
    public static byte[] decode(String hex, int length) {
        if (hex == null || hex.length() != length * 2) {
            throw new IllegalArgumentException("expected " + (length * 2) + " lower-case hex characters");
        }
        return decodeLower(hex);
    }

    public static byte[] decodeLower(String hex) {
        if ((hex.length() & 1) != 0) {
            throw new IllegalArgumentException("odd number of hex characters");
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) ((digit(hex.charAt(2 * i)) << 4) | digit(hex.charAt(2 * i + 1)));
        }
        return out;
    }

    public static boolean isLowerHex(String s, int chars) {
        if (s == null || s.length() != chars) {
            return false;
        }
        for (int i = 0; i < chars; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static int digit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        throw new IllegalArgumentException("not lower-case hex: '" + c + "'");
    }
}
