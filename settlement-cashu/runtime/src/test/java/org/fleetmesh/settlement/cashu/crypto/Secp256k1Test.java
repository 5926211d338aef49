package org.fleetmesh.settlement.cashu.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class Secp256k1Test {
    private static final JsonNode NUT01 = NutVectors.load("nut01-pubkeys.json");

    @TestFactory
    List<DynamicTest> nut01KeysetsWithAShortOrUncompressedKeyAreRejected() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT01.get("invalid_keysets")) {
            String bad = v.get("bad_amount").asText();
            tests.add(DynamicTest.dynamicTest("key " + bad, () -> {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> Secp256k1.decodeHex(v.get("keys").get(bad).asText()));
                assertTrue(e.getMessage().contains("66 hex characters"), e.getMessage());
            }));
        }
        assertEquals(2, tests.size());
        return tests;
    }

    @TestFactory
    List<DynamicTest> nut01ValidKeysetsDecodeAndReencodeUnchanged() {
        List<DynamicTest> tests = new ArrayList<>();
        int i = 0;
        for (JsonNode v : NUT01.get("valid_keysets")) {
            tests.add(DynamicTest.dynamicTest("keyset " + i++ + " (" + v.size() + " keys)", () -> v.properties()
                    .forEach((Map.Entry<String, JsonNode> e) ->
                            assertEquals(e.getValue().asText(), Secp256k1.hex(NutVectors.point(e.getValue()))))));
        }
        assertEquals(2, tests.size());
        return tests;
    }

    @Test
    void uncompressedEncodingOfAValidKeyIsRejected() {
        byte[] uncompressed = Secp256k1.encodeUncompressed(Secp256k1.G());
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.decode(uncompressed));
    }

    @Test
    void xWithoutACurvePointIsRejected() {
        // x = 5: 5^3 + 7 = 132 has no square root mod p on secp256k1.
        byte[] b = new byte[33];
        b[0] = 0x02;
        b[32] = 5;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Secp256k1.decode(b));
        assertTrue(e.getMessage().contains("not a point"), e.getMessage());
    }

    @Test
    void xAtOrAboveTheFieldPrimeIsRejected() {
        byte[] b = new byte[33];
        b[0] = 0x02;
        java.util.Arrays.fill(b, 1, 33, (byte) 0xff);
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.decode(b));
    }

    @Test
    void wrongPrefixIsRejected() {
        byte[] g = Secp256k1.encode(Secp256k1.G());
        g[0] = 0x04;
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.decode(g));
        g[0] = 0x00;
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.decode(g));
    }

    @Test
    void pointAtInfinityIsRejected() {
        ECPoint infinity = Secp256k1.G().getCurve().getInfinity();
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.encode(infinity));
        assertThrows(IllegalArgumentException.class, () -> Bdhke.sign(infinity, BigInteger.TWO));
    }

    @Test
    void scalarsOutsideOneToNMinusOneAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.scalar(new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.scalar(Secp256k1.bytes32(Secp256k1.N)));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.scalar(new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.mulG(BigInteger.ZERO));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1.mulG(Secp256k1.N.negate()));
        assertEquals(Secp256k1.N.subtract(BigInteger.ONE),
                Secp256k1.scalar(Secp256k1.bytes32(Secp256k1.N.subtract(BigInteger.ONE))));
    }

    @Test
    void generatorEncodesAsTheStandardCompressedPoint() {
        assertEquals("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", Secp256k1.hex(Secp256k1.G()));
        assertEquals(Secp256k1.G(), Secp256k1.mulG(BigInteger.ONE));
    }

    @Test
    void bytes32PadsToThirtyTwoBigEndianBytes() {
        byte[] one = Secp256k1.bytes32(BigInteger.ONE);
        assertEquals(32, one.length);
        assertEquals("0000000000000000000000000000000000000000000000000000000000000001", Hex.encode(one));
    }

    @Test
    void randomScalarsAreInRangeAndDistinct() {
        BigInteger a = Secp256k1.randomScalar();
        BigInteger b = Secp256k1.randomScalar();
        assertTrue(a.signum() > 0 && a.compareTo(Secp256k1.N) < 0);
        assertTrue(!a.equals(b));
        assertArrayEquals(Secp256k1.bytes32(a), Secp256k1.bytes32(Secp256k1.scalar(Secp256k1.bytes32(a))));
    }
}
