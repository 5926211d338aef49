package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Nostr writes ids, keys and signatures as lower-case hex of a fixed length. */
class HexTest {
    private static final String ID64 = "5c83da77af1dec6d7289834998ad7aafbd9e2191396d75ec3cc27f5a77226f36";

    @Test
    void encodesLowerCase() {
        assertEquals("00017f80abff", Hex.encode(new byte[] { 0, 1, 0x7f, (byte) 0x80, (byte) 0xab, (byte) 0xff }));
    }

    @Test
    void encodesIntoBytesAtAnOffset() {
        byte[] out = "[............]".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int end = Hex.encode(new byte[] { 0, 1, 0x7f, (byte) 0x80, (byte) 0xab, (byte) 0xff }, out, 1);
        assertEquals(13, end);
        assertEquals("[00017f80abff]", new String(out, java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    void encodesEmpty() {
        assertEquals("", Hex.encode(new byte[0]));
    }

    @Test
    void decodeRoundTripsEncode() {
        byte[] b = Hex.decode(ID64, 32);
        assertEquals(32, b.length);
        assertEquals(ID64, Hex.encode(b));
    }

    @Test
    void decodesHighBytesUnsigned() {
        assertArrayEquals(new byte[] { (byte) 0xff, (byte) 0x80, 0x7f, 0 }, Hex.decodeLower("ff807f00"));
    }

    @Test
    void decodeRefusesUpperCase() {
        assertThrows(IllegalArgumentException.class, () -> Hex.decode(ID64.toUpperCase(), 32));
    }

    @Test
    void decodeRefusesASingleUpperCaseDigit() {
        String mixed = ID64.substring(0, 63) + "F";
        assertThrows(IllegalArgumentException.class, () -> Hex.decode(mixed, 32));
    }

    @Test
    void decodeRefusesNonHexCharacters() {
        String bad = "g" + ID64.substring(1);
        assertThrows(IllegalArgumentException.class, () -> Hex.decode(bad, 32));
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 1, 62, 63, 65, 66, 128 })
    void decodeRefusesWrongLength(int chars) {
        String s = "a".repeat(chars);
        assertThrows(IllegalArgumentException.class, () -> Hex.decode(s, 32));
    }

    @Test
    void decodeRefusesNull() {
        assertThrows(IllegalArgumentException.class, () -> Hex.decode(null, 32));
    }

    @Test
    void decodeLowerRefusesOddLength() {
        assertThrows(IllegalArgumentException.class, () -> Hex.decodeLower("abc"));
    }

    @Test
    void isLowerHexAcceptsExactLengthLowerCase() {
        assertTrue(Hex.isLowerHex(ID64, 64));
        assertTrue(Hex.isLowerHex("0123456789abcdef", 16));
    }

    @Test
    void isLowerHexRefusesUpperCase() {
        assertFalse(Hex.isLowerHex(ID64.toUpperCase(), 64));
        assertFalse(Hex.isLowerHex("A", 1));
    }

    @Test
    void isLowerHexRefusesWrongLength() {
        assertFalse(Hex.isLowerHex(ID64.substring(1), 64));
        assertFalse(Hex.isLowerHex(ID64 + "0", 64));
        assertFalse(Hex.isLowerHex("", 64));
    }

    @Test
    void isLowerHexRefusesNonHexAndNull() {
        assertFalse(Hex.isLowerHex("0g", 2));
        assertFalse(Hex.isLowerHex(" 0", 2));
        assertFalse(Hex.isLowerHex(null, 2));
    }

    @Test
    void eventIdAndPubKeyParseOnlyLowerCase64Chars() {
        assertEquals(ID64, EventId.ofHex(ID64).hex());
        assertEquals(ID64, PubKey.ofHex(ID64).hex());
        assertThrows(IllegalArgumentException.class, () -> EventId.ofHex(ID64.toUpperCase()));
        assertThrows(IllegalArgumentException.class, () -> PubKey.ofHex(ID64.substring(2)));
    }

    @Test
    void signatureParsesOnlyLowerCase128Chars() {
        String sig = ID64 + ID64;
        assertEquals(sig, Signature.ofHex(sig).hex());
        assertThrows(IllegalArgumentException.class, () -> Signature.ofHex(ID64));
        assertThrows(IllegalArgumentException.class, () -> Signature.ofHex(sig.toUpperCase()));
    }

    @Test
    void valueTypesRefuseWrongByteLengths() {
        assertThrows(IllegalArgumentException.class, () -> new EventId(new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> new PubKey(new byte[33]));
        assertThrows(IllegalArgumentException.class, () -> new Signature(new byte[63]));
    }
}
