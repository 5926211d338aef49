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
        byte[] bytes = new byte[(text.length() - zeros) * 733 / 1000 + 1]; // log(58)/log(256)
        int length = 0;
        for (int i = zeros; i < text.length(); i++) {
            char c = text.charAt(i);
            int carry = c < 128 ? VALUES[c] : -1;
            if (carry < 0) {
                throw new MultiformatException("'" + c + "' at position " + i + " is not a base58btc character");
            }
            int j = 0;
            for (int k = bytes.length - 1; (carry != 0 || j < length) && k >= 0; k--, j++) {
                carry += 58 * (bytes[k] & 0xff);
                bytes[k] = (byte) carry;
                carry >>>= 8;
            }
            length = j;
        }
        byte[] out = new byte[zeros + length];
        System.arraycopy(bytes, bytes.length - length, out, zeros, length);
        return out;
    }
}
