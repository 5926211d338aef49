package org.fleetmesh.identity.multiformats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Examples from draft-msporny-base58-03 §5. */
class Base58BtcTest {
    @Test
    void encodesTheDraftExamples() {
        assertEquals("2NEpo7TZRRrLZSi2U", Base58Btc.encode("Hello World!".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z",
                Base58Btc.encode("The quick brown fox jumps over the lazy dog.".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void writesEachLeadingZeroByteAsOne() {
        assertEquals("11233QC4", Base58Btc.encode(HexFormat.of().parseHex("0000287fb4cd")));
        assertArrayEquals(HexFormat.of().parseHex("0000287fb4cd"), Base58Btc.decode("11233QC4"));
    }

    @Test
    void decodesWhatItEncodes() {
        Random random = new Random(7);
        for (int length = 0; length < 80; length++) {
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            if (length > 2) {
                bytes[0] = 0; // leading zeros are the edge case
            }
            assertArrayEquals(bytes, Base58Btc.decode(Base58Btc.encode(bytes)), "length " + length);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "0", "O", "I", "l", "+", "é" })
    void refusesCharactersOutsideTheAlphabet(String bad) {
        MultiformatException e = assertThrows(MultiformatException.class, () -> Base58Btc.decode("2NEpo" + bad + "7T"));
        assertTrue(e.getMessage().contains("not a base58btc character"), e.getMessage());
    }

    @Test
    void decodesAsTheDigitByDigitAlgorithmDoesForEveryLength() {
        Random random = new Random(58);
        for (int n = 0; n < 2000; n++) {
            StringBuilder text = new StringBuilder();
            int len = random.nextInt(n < 1000 ? 40 : 2400);
            for (int i = 0; i < len; i++) {
                // leading '1's now and then: zero bytes
                text.append(i < 3 && random.nextInt(4) == 0 ? '1' : Base58Btc.ALPHABET.charAt(random.nextInt(58)));
            }
            assertArrayEquals(reference(text.toString()), Base58Btc.decode(text.toString()), text.toString());
        }
    }

    @Test
    void encodesAsTheTextbookAlgorithmDoesForEveryLength() {
        Random random = new Random(256);
        for (int n = 0; n < 1500; n++) {
            byte[] bytes = new byte[n < 1000 ? n % 70 : random.nextInt(2400)];
            random.nextBytes(bytes);
            for (int i = 0; i < bytes.length && i < 3 && random.nextInt(3) == 0; i++) {
                bytes[i] = 0; // leading zero bytes: leading '1's
            }
            if (n % 97 == 0) {
                java.util.Arrays.fill(bytes, (byte) 0); // nothing but zeros
            }
            assertEquals(referenceEncode(bytes), Base58Btc.encode(bytes), HexFormat.of().formatHex(bytes));
        }
    }

    /** The textbook encode (repeated division of the whole number by 58), which the limb encode must equal. */
    private static String referenceEncode(byte[] bytes) {
        int zeros = 0;
        while (zeros < bytes.length && bytes[zeros] == 0) {
            zeros++;
        }
        java.math.BigInteger v = new java.math.BigInteger(1, bytes);
        java.math.BigInteger base = java.math.BigInteger.valueOf(58);
        StringBuilder digits = new StringBuilder();
        while (v.signum() > 0) {
            java.math.BigInteger[] qr = v.divideAndRemainder(base);
            digits.append(Base58Btc.ALPHABET.charAt(qr[1].intValue()));
            v = qr[0];
        }
        return "1".repeat(zeros) + digits.reverse();
    }

    /** The textbook decode (one digit at a time into bytes), which the limb decode must equal. */
    private static byte[] reference(String text) {
        int zeros = 0;
        while (zeros < text.length() && text.charAt(zeros) == '1') {
            zeros++;
        }
        java.math.BigInteger v = java.math.BigInteger.ZERO;
        for (int i = zeros; i < text.length(); i++) {
            v = v.multiply(java.math.BigInteger.valueOf(58)).add(java.math.BigInteger.valueOf(Base58Btc.ALPHABET.indexOf(text.charAt(i))));
        }
        byte[] mag = v.signum() == 0 ? new byte[0] : v.toByteArray();
        int skip = mag.length > 0 && mag[0] == 0 ? 1 : 0;
        byte[] out = new byte[zeros + mag.length - skip];
        System.arraycopy(mag, skip, out, zeros, mag.length - skip);
        return out;
    }
}
