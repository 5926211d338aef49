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
    private static final long GROUP = 58L * 58 * 58 * 58 * 58; // 656,356,768

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
        // The number into 32-bit limbs (big-endian: limbs[0] most significant), then divided by 58^5 (< 2^30) until
        // nothing is left, five digits per pass: a did:peer:4 long form (~1,600 bytes) encodes about 13 times faster
        // interpreted than one base-58 digit at a time over a byte array (bench/Base58Encode.java)
        int n = bytes.length - zeros;
        int[] limbs = new int[(n + 3) / 4];
        for (int i = 0; i < n; i++) {
            int fromEnd = n - 1 - i;
            limbs[limbs.length - 1 - fromEnd / 4] |= (bytes[zeros + i] & 0xff) << ((fromEnd % 4) * 8);
        }
        char[] out = new char[zeros + n * 138 / 100 + 6]; // log(256)/log(58) < 1.38 digits a byte, +5 for the last group
        int p = out.length;
        int first = 0;
        while (first < limbs.length && limbs[first] == 0) {
            first++;
        }
        while (first < limbs.length) {
            long rem = 0;
            for (int k = first; k < limbs.length; k++) {
                long cur = (rem << 32) | (limbs[k] & 0xffffffffL);
                limbs[k] = (int) (cur / GROUP);
                rem = cur % GROUP;
            }
            while (first < limbs.length && limbs[first] == 0) {
                first++;
            }
            for (int d = 0; d < 5; d++) {
                out[--p] = DIGITS[(int) (rem % 58)];
                rem /= 58;
            }
        }
        while (p < out.length && out[p] == '1') { // the last group's zero digits
            p++;
        }
        for (int i = 0; i < zeros; i++) {
            out[--p] = '1';
        }
        return new String(out, p, out.length - p);
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
