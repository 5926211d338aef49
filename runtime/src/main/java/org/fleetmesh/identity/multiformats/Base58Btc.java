package org.fleetmesh.identity.multiformats;

import java.util.Arrays;

/**
 * Bitcoin's base58 alphabet (draft-msporny-base58): big-endian base-58 digits, each leading zero byte
 * written as {@code 1}. No checksum; multibase prefix {@code z}.
 */
public final class Base58Btc {
    public static final String ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    private static final char[] DIGITS = ALPHABET.toCharArray();
    private static final int[] VALUES = new int[128];

    static {
        Arrays.fill(VALUES, -1);
        for (int i = 0; i < DIGITS.length; i++) {
            VALUES[DIGITS[i]] = i;
        }
    }

    private Base58Btc() {
    }

    public static String encode(byte[] bytes) {
        int zeros = 0;
        while (zeros < bytes.length && bytes[zeros] == 0) {
            zeros++;
        }
        // base-256 to base-58 by repeated division; ~138/100 digits per byte is log(256)/log(58)
        byte[] digits = new byte[(bytes.length - zeros) * 138 / 100 + 1];
        int length = 0;
        for (int i = zeros; i < bytes.length; i++) {
            int carry = bytes[i] & 0xff;
            int j = 0;
            for (int k = digits.length - 1; (carry != 0 || j < length) && k >= 0; k--, j++) {
                carry += 256 * (digits[k] & 0xff);
                digits[k] = (byte) (carry % 58);
                carry /= 58;
            }
            length = j;
        }
        StringBuilder out = new StringBuilder(zeros + length);
        for (int i = 0; i < zeros; i++) {
            out.append('1');
        }
        for (int k = digits.length - length; k < digits.length; k++) {
            out.append(DIGITS[digits[k]]);
        }
        return out.toString();
    }

    /** Decodes base58btc text; any character outside the alphabet ({@code 0 O I l}, punctuation...) is refused. */
    public static byte[] decode(String text) {
        int zeros = 0;
        while (zeros < text.length() && text.charAt(zeros) == '1') {
            zeros++;
        }
        // five base-58 digits at a time into 32-bit limbs (58^5 < 2^30): a did:peer:4 long form (~2,200 digits)
        // decodes ~20 times faster than digit by digit into bytes, and every finding check decodes one or two
        int[] limbs = new int[((text.length() - zeros) * 733 / 1000 + 1) / 4 + 2]; // little-endian, base 2^32
        int used = 0;
        int i = zeros;
        while (i < text.length()) {
            int group = Math.min(5, text.length() - i);
            long chunk = 0;
            long scale = 1;
            for (int g = 0; g < group; g++, i++) {
                char c = text.charAt(i);
                int v = c < 128 ? VALUES[c] : -1;
                if (v < 0) {
                    throw new MultiformatException("'" + c + "' at position " + i + " is not a base58btc character");
                }
                chunk = chunk * 58 + v;
                scale *= 58;
            }
            long carry = chunk;
            for (int k = 0; k < used; k++) {
                long x = (limbs[k] & 0xffffffffL) * scale + carry;
                limbs[k] = (int) x;
                carry = x >>> 32;
            }
            if (carry != 0) {
                limbs[used++] = (int) carry;
            }
        }
        int length = used * 4;
        while (length > 0 && ((limbs[(length - 1) / 4] >>> (((length - 1) % 4) * 8)) & 0xff) == 0) {
            length--;
        }
        byte[] out = new byte[zeros + length];
        for (int b = 0; b < length; b++) {
            out[out.length - 1 - b] = (byte) (limbs[b / 4] >>> ((b % 4) * 8));
        }
        return out;
    }
}
