package org.fleetmesh.settlement.cashu.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import org.bouncycastle.math.ec.ECPoint;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class KeysetIdsTest {
    private static final JsonNode NUT02 = NutVectors.load("nut02-keysets.json");

    @TestFactory
    List<DynamicTest> v1IdsMatchNut02Vectors() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT02.get("v1")) {
            tests.add(DynamicTest.dynamicTest(v.get("id").asText(),
                    () -> assertEquals(v.get("id").asText(), KeysetIds.v1(NutVectors.keys(v.get("keys"))))));
        }
        assertEquals(2, tests.size());
        return tests;
    }

    @TestFactory
    List<DynamicTest> v2IdsMatchNut02Vectors() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT02.get("v2")) {
            tests.add(DynamicTest.dynamicTest(v.get("id").asText(), () -> assertEquals(v.get("id").asText(),
                    KeysetIds.v2(NutVectors.keys(v.get("keys")), v.get("unit").asText(), v.get("input_fee_ppk").asLong(),
                            expiry(v)))));
        }
        assertEquals(3, tests.size());
        return tests;
    }

    @TestFactory
    List<DynamicTest> matchesAcceptsEveryNut02Id() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT02.get("v1")) {
            tests.add(DynamicTest.dynamicTest(v.get("id").asText(), () -> assertTrue(
                    KeysetIds.matches(v.get("id").asText(), NutVectors.keys(v.get("keys")), "sat", 0, OptionalLong.empty()))));
        }
        for (JsonNode v : NUT02.get("v2")) {
            tests.add(DynamicTest.dynamicTest(v.get("id").asText(), () -> assertTrue(KeysetIds.matches(v.get("id").asText(),
                    NutVectors.keys(v.get("keys")), v.get("unit").asText(), v.get("input_fee_ppk").asLong(), expiry(v)))));
        }
        assertEquals(5, tests.size());
        return tests;
    }

    @Test
    void v2IdChangesWithFeeExpiryAndUnit() {
        JsonNode v = NUT02.get("v2").get(0);
        SortedMap<Long, ECPoint> keys = NutVectors.keys(v.get("keys"));
        String id = v.get("id").asText();
        OptionalLong expiry = expiry(v);
        assertFalse(KeysetIds.matches(id, keys, "sat", 0, expiry));
        assertFalse(KeysetIds.matches(id, keys, "sat", 100, OptionalLong.empty()));
        assertFalse(KeysetIds.matches(id, keys, "usd", 100, expiry));
    }

    @Test
    void idOfAKeysetWithAReplacedKeyDoesNotMatch() {
        JsonNode v = NUT02.get("v1").get(0);
        SortedMap<Long, ECPoint> keys = new TreeMap<>(NutVectors.keys(v.get("keys")));
        keys.put(8L, Secp256k1.G());
        assertFalse(KeysetIds.matches(v.get("id").asText(), keys, "sat", 0, OptionalLong.empty()));
    }

    @Test
    void amountTwoToTheSixtyThreeSortsLastAsAnUnsignedAmount() {
        // The 64-key vector's largest amount is 2^63, which a long holds as Long.MIN_VALUE.
        SortedMap<Long, ECPoint> keys = NutVectors.keys(NUT02.get("v1").get(1).get("keys"));
        assertTrue(keys.containsKey(Long.MIN_VALUE));
        assertEquals(Long.MIN_VALUE, keys.firstKey());
        assertEquals(NUT02.get("v1").get(1).get("id").asText(), KeysetIds.v1(keys));
    }

    @Test
    void unknownIdVersionNeverMatches() {
        JsonNode v = NUT02.get("v1").get(0);
        String id = "02" + v.get("id").asText().substring(2);
        assertFalse(KeysetIds.matches(id, NutVectors.keys(v.get("keys")), "sat", 0, OptionalLong.empty()));
    }

    @Test
    void emptyKeysetHasNoId() {
        assertThrows(IllegalArgumentException.class, () -> KeysetIds.v1(new TreeMap<>()));
    }

    @TestFactory
    List<DynamicTest> inputFeeRoundsTheSumUp() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode v : NUT02.get("input_fees")) {
            List<Long> ppk = new ArrayList<>();
            v.get("input_fee_ppk").forEach(n -> ppk.add(n.asLong()));
            tests.add(DynamicTest.dynamicTest(ppk.size() + " inputs " + ppk,
                    () -> assertEquals(v.get("fee").asLong(), KeysetIds.inputFee(ppk))));
        }
        assertEquals(9, tests.size());
        return tests;
    }

    @Test
    void negativeInputFeeIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> KeysetIds.inputFee(List.of(100L, -1L)));
    }

    private static OptionalLong expiry(JsonNode v) {
        JsonNode e = v.get("final_expiry");
        return e == null || e.isNull() ? OptionalLong.empty() : OptionalLong.of(e.asLong());
    }
}
