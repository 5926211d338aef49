package org.fleetmesh.settlement.cashu.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class DerivationTest {
    private static final JsonNode NUT13 = NutVectors.load("nut13-derivation.json");

    @Test
    void keysetIdIntMatchesNut13Vector() {
        JsonNode v = NUT13.get("v1");
        assertEquals(v.get("keyset_id_int").asLong(), Derivation.keysetIdInt(v.get("keyset_id").asText()));
    }

    @TestFactory
    List<DynamicTest> legacyBip32DerivationMatchesNut13Vectors() {
        return vectors(NUT13.get("v1"));
    }

    @TestFactory
    List<DynamicTest> hmacDerivationMatchesNut13Vectors() {
        return vectors(NUT13.get("v2"));
    }

    @Test
    void legacyDerivationFollowsTheNut13Path() {
        JsonNode v = NUT13.get("v1");
        byte[] seed = Bip39.seed(v.get("mnemonic").asText(), "");
        Derivation.Derived d = Derivation.derive(seed, v.get("keyset_id").asText(), 3);
        assertEquals(d.secret(), Hex.encode(Secp256k1.bytes32(
                Bip32.derive(seed, "m/129372'/0'/" + v.get("keyset_id_int").asLong() + "'/3'/0").privateKey())));
        assertEquals(d.r(), Bip32.derive(seed, "m/129372'/0'/" + v.get("keyset_id_int").asLong() + "'/3'/1").privateKey());
    }

    @Test
    void unknownKeysetIdVersionIsRejected() {
        byte[] seed = new byte[64];
        assertThrows(IllegalArgumentException.class, () -> Derivation.derive(seed, "02" + "00".repeat(32), 0));
    }

    @Test
    void negativeCounterIsRejected() {
        byte[] seed = new byte[64];
        assertThrows(IllegalArgumentException.class,
                () -> Derivation.derive(seed, NUT13.get("v2").get("keyset_id").asText(), -1));
    }

    @Test
    void derivedValuesDoNotAppearInToString() {
        JsonNode v = NUT13.get("v2");
        Derivation.Derived d = Derivation.derive(Bip39.seed(v.get("mnemonic").asText(), ""), v.get("keyset_id").asText(), 0);
        assertFalse(d.toString().contains(d.secret()));
        assertFalse(d.toString().contains(d.r().toString(16)));
    }

    private static List<DynamicTest> vectors(JsonNode v) {
        byte[] seed = Bip39.seed(v.get("mnemonic").asText(), "");
        String id = v.get("keyset_id").asText();
        List<DynamicTest> tests = new ArrayList<>();
        for (int counter = 0; counter < v.get("secrets").size(); counter++) {
            int c = counter;
            tests.add(DynamicTest.dynamicTest(id + " counter " + c, () -> {
                Derivation.Derived d = Derivation.derive(seed, id, c);
                assertEquals(v.get("secrets").get(c).asText(), d.secret());
                assertEquals(new BigInteger(v.get("r").get(c).asText(), 16), d.r());
            }));
        }
        assertEquals(5, tests.size());
        return tests;
    }
}
