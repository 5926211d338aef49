package org.fleetmesh.settlement.cashu.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.math.ec.ECPoint;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class BdhkeTest {
    private static final JsonNode NUT00 = NutVectors.load("nut00-bdhke.json");

    @TestFactory
    List<DynamicTest> hashToCurveMatchesNut00Vectors() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT00.get("hash_to_curve")) {
            tests.add(DynamicTest.dynamicTest(v.get("message").asText(), () -> assertEquals(
                    v.get("point").asText(), Secp256k1.hex(Bdhke.hashToCurve(NutVectors.hex(v.get("message")))))));
        }
        assertEquals(3, tests.size());
        return tests;
    }

    @TestFactory
    List<DynamicTest> blindedMessagesMatchNut00Vectors() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT00.get("blinded_messages")) {
            tests.add(DynamicTest.dynamicTest(v.get("x").asText(), () -> assertEquals(v.get("B_").asText(),
                    Secp256k1.hex(Bdhke.blind(NutVectors.hex(v.get("x")), NutVectors.scalar(v.get("r")))))));
        }
        assertEquals(2, tests.size());
        return tests;
    }

    @TestFactory
    List<DynamicTest> blindSignaturesMatchNut00Vectors() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT00.get("blinded_signatures")) {
            tests.add(DynamicTest.dynamicTest(v.get("k").asText(), () -> assertEquals(v.get("C_").asText(),
                    Secp256k1.hex(Bdhke.sign(NutVectors.point(v.get("B_")), NutVectors.scalar(v.get("k")))))));
        }
        assertEquals(2, tests.size());
        return tests;
    }

    @Test
    void blindSignUnblindGivesASignatureTheMintVerifies() {
        byte[] secret = "407915bc212be61a77e3e6d2aeb4c727980bda51cd06a6afc29e2861768a7837".getBytes(StandardCharsets.UTF_8);
        BigInteger k = Secp256k1.randomScalar();
        BigInteger r = Secp256k1.randomScalar();
        ECPoint blinded = Bdhke.blind(secret, r);
        ECPoint c = Bdhke.unblind(Bdhke.sign(blinded, k), r, Secp256k1.mulG(k));
        assertEquals(Secp256k1.mul(Bdhke.hashToCurve(secret), k), c);
        assertTrue(Bdhke.verify(secret, c, k));
    }

    @Test
    void unblindingWithAnotherMintKeyFailsVerification() {
        byte[] secret = "a secret".getBytes(StandardCharsets.UTF_8);
        BigInteger k = Secp256k1.randomScalar();
        BigInteger r = Secp256k1.randomScalar();
        ECPoint blindSig = Bdhke.sign(Bdhke.blind(secret, r), k);
        ECPoint wrong = Bdhke.unblind(blindSig, r, Secp256k1.mulG(k.add(BigInteger.ONE)));
        assertFalse(Bdhke.verify(secret, wrong, k));
    }

    @Test
    void unblindingWithAnotherBlindingFactorFailsVerification() {
        byte[] secret = "a secret".getBytes(StandardCharsets.UTF_8);
        BigInteger k = Secp256k1.randomScalar();
        BigInteger r = Secp256k1.randomScalar();
        ECPoint blindSig = Bdhke.sign(Bdhke.blind(secret, r), k);
        ECPoint wrong = Bdhke.unblind(blindSig, r.add(BigInteger.ONE).mod(Secp256k1.N), Secp256k1.mulG(k));
        assertFalse(Bdhke.verify(secret, wrong, k));
    }

    @Test
    void signatureDoesNotVerifyForAnotherSecret() {
        BigInteger k = Secp256k1.randomScalar();
        ECPoint c = Secp256k1.mul(Bdhke.hashToCurve("one".getBytes(StandardCharsets.UTF_8)), k);
        assertFalse(Bdhke.verify("two".getBytes(StandardCharsets.UTF_8), c, k));
    }

    @Test
    void hashToCurveOfAStringHashesItsUtf8Bytes() {
        String secret = "daf4dd00a2b68a0858a80450f52c8a7d2ccf87d375e43e216e0c571f089f63e9";
        assertEquals(Bdhke.hashToCurve(secret.getBytes(StandardCharsets.UTF_8)), Bdhke.hashToCurve(secret));
        assertNotEquals(Bdhke.hashToCurve(NutVectors.hex(new com.fasterxml.jackson.databind.node.TextNode(secret))),
                Bdhke.hashToCurve(secret));
    }

    @Test
    void hashToCurveGivesAnEvenYPoint() {
        byte[] enc = Secp256k1.encode(Bdhke.hashToCurve(new byte[0]));
        assertEquals(0x02, enc[0]);
    }

    @Test
    void blindRejectsAnOutOfRangeBlindingFactor() {
        assertThrows(IllegalArgumentException.class, () -> Bdhke.blind(new byte[1], BigInteger.ZERO));
        assertThrows(IllegalArgumentException.class, () -> Bdhke.blind(new byte[1], Secp256k1.N));
    }
}
