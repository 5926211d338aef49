package org.fleetmesh.settlement.cashu.nut;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

class WireTypesTest {
    static final String C = "02bc9097997d81afb2cc7346b5e4345a9346bd2a506eb7958598a72f0cf85163ea";
    static final String PROOF = "{\"amount\":2,\"id\":\"009a1f293253e41e\",\"secret\":\"407915bc\",\"C\":\"" + C + "\"}";

    static Proof proof(String json) throws JsonProcessingException {
        return Nut.json().readValue(json, Proof.class);
    }

    static String replace(String json, String from, String to) {
        String r = json.replace(from, to);
        assertFalse(r.equals(json), "test edit did not apply");
        return r;
    }

    @Test
    void proofReadsAndWritesTheNut00FieldNames() throws Exception {
        Proof p = proof(PROOF);
        assertEquals(new Proof(2, "009a1f293253e41e", "407915bc", C, null, null), p);
        assertEquals(PROOF, Nut.json().writeValueAsString(p));
    }

    @Test
    void proofCarriesDleqAndWitnessWhenPresent() throws Exception {
        String e = "a".repeat(64);
        String json = PROOF.replace("}", ",\"dleq\":{\"e\":\"" + e + "\",\"s\":\"" + e + "\",\"r\":\"" + e
                + "\"},\"witness\":\"{\\\"signatures\\\":[]}\"}");
        Proof p = proof(json);
        assertEquals(new ProofDleq(e, e, e), p.dleq());
        assertEquals("{\"signatures\":[]}", p.witness());
        assertEquals(json, Nut.json().writeValueAsString(p));
        assertNull(p.withoutDleq().dleq());
    }

    @Test
    void proofRejectsZeroAndNegativeAmounts() {
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"amount\":2", "\"amount\":0")));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"amount\":2", "\"amount\":-2")));
    }

    @Test
    void proofRejectsAmountsOfTheWrongJsonType() {
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"amount\":2", "\"amount\":\"2\"")));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"amount\":2", "\"amount\":2.0")));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"amount\":2", "\"amount\":null")));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"amount\":2,", "")));
    }

    @Test
    void proofRejectsAmountsBeyondALong() {
        assertThrows(JsonProcessingException.class,
                () -> proof(replace(PROOF, "\"amount\":2", "\"amount\":9223372036854775808")));
    }

    @Test
    void proofRejectsBadHexFields() {
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, C, C.substring(2))));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, C, "04" + C.substring(2))));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, C, C.substring(0, 64) + "zz")));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "009a1f293253e41e", "009a1f")));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"secret\":\"407915bc\"", "\"secret\":\"\"")));
        assertThrows(JsonProcessingException.class, () -> proof(replace(PROOF, "\"407915bc\"", "7")));
    }

    @Test
    void proofIgnoresUnknownFieldsButRejectsDuplicates() throws Exception {
        assertEquals(proof(PROOF), proof(PROOF.replace("}", ",\"future\":1}")));
        assertThrows(JsonProcessingException.class, () -> proof(PROOF.replace("}", ",\"amount\":4}")));
    }

    @Test
    void proofNormalisesUpperCaseHex() throws Exception {
        assertEquals(C, proof(PROOF.replace(C, C.toUpperCase())).c());
    }

    @Test
    void proofYIsHashToCurveOfTheSecretBytes() {
        // NUT-00 hash_to_curve test 1: 32 zero bytes, which is also the UTF-8 of 32 NUL characters.
        Proof p = new Proof(1, "009a1f293253e41e", "\0".repeat(32), C, null, null);
        assertEquals("024cce997d3b518f739663b757deaec95bcd9473c30a14ac2fd04023a739d1a725", p.y());
    }

    @Test
    void blindedMessageUsesBUnderscoreAndAllowsBlankZeroAmount() throws Exception {
        String json = "{\"amount\":0,\"id\":\"00bfa73302d12ffd\",\"B_\":\"" + C + "\"}";
        BlindedMessage m = Nut.json().readValue(json, BlindedMessage.class);
        assertEquals(0, m.amount());
        assertEquals(json, Nut.json().writeValueAsString(m));
        assertThrows(JsonProcessingException.class,
                () -> Nut.json().readValue(json.replace("\"amount\":0", "\"amount\":-1"), BlindedMessage.class));
    }

    @Test
    void blindSignatureUsesCUnderscoreAndOptionalDleq() throws Exception {
        String e = "0".repeat(63) + "1";
        String json = "{\"amount\":8,\"id\":\"00bfa73302d12ffd\",\"C_\":\"" + C + "\",\"dleq\":{\"e\":\"" + e
                + "\",\"s\":\"" + e + "\"}}";
        BlindSignature s = Nut.json().readValue(json, BlindSignature.class);
        assertEquals(new BlindSignatureDleq(e, e), s.dleq());
        assertEquals(json, Nut.json().writeValueAsString(s));
        assertThrows(JsonProcessingException.class,
                () -> Nut.json().readValue(json.replace("\"amount\":8", "\"amount\":0"), BlindSignature.class));
    }

    @Test
    void keysetReadsNut01FieldsAndWritesThemBack() throws Exception {
        String json = "{\"id\":\"009a1f293253e41e\",\"unit\":\"sat\",\"active\":true,\"input_fee_ppk\":100,"
                + "\"final_expiry\":1896187313,\"keys\":{\"1\":"
                + "\"02194603ffa36356f4a56b7df9371fc3192472351453ec7398b8da8117e7c3e104\",\"2\":"
                + "\"03b0f36d6d47ce14df8a7be9137712c42bcdd960b19dd02f1d4a9703b1f31d7513\"}}";
        Keyset k = Nut.json().readValue(json, Keyset.class);
        assertEquals(100, k.inputFeePpk());
        assertEquals(1896187313L, k.finalExpiry().getAsLong());
        assertEquals("03b0f36d6d47ce14df8a7be9137712c42bcdd960b19dd02f1d4a9703b1f31d7513", k.key(2));
        assertEquals(json, Nut.json().writeValueAsString(k));
    }

    @Test
    void keysetListedWithoutKeysHasDefaults() throws Exception {
        Keyset k = Nut.json().readValue("{\"id\":\"012fbb01a4e200c76df911eeba3b8fe1831202914b24664f4bccbd25852a6708f8\","
                + "\"unit\":\"sat\",\"active\":false,\"input_fee_ppk\":null,\"final_expiry\":null}", Keyset.class);
        assertFalse(k.active());
        assertEquals(0, k.inputFeePpk());
        assertTrue(k.finalExpiry().isEmpty());
        assertTrue(k.keys().isEmpty());
    }

    @Test
    void keysetRejectsBadAmountStrings() {
        for (String amount : new String[] { "0", "-1", "01", "1.0", "x", "18446744073709551616" }) {
            assertThrows(IllegalArgumentException.class, () -> Keyset.parseKeys(java.util.Map.of(amount,
                    "02194603ffa36356f4a56b7df9371fc3192472351453ec7398b8da8117e7c3e104")), amount);
        }
    }

    @Test
    void keysetRejectsKeysThatAreNotOnTheCurve() {
        // x = 5 has no point on secp256k1 (5^3 + 7 = 132 is not a square mod p).
        String offCurve = "02" + "0".repeat(63) + "5";
        assertThrows(IllegalArgumentException.class, () -> Keyset.parseKeys(java.util.Map.of("1", offCurve)));
    }

    /** tests/01-tests.md, transcribed by the crypto tests into nut01-pubkeys.json. */
    @Test
    void nut01InvalidKeysetsAreRejected() {
        JsonNode v = Vectors.load("nut01-pubkeys.json").get("invalid_keysets");
        assertEquals(2, v.size());
        for (JsonNode ks : v) {
            java.util.Map<String, String> keys = Nut.json().convertValue(ks.get("keys"),
                    new com.fasterxml.jackson.core.type.TypeReference<java.util.Map<String, String>>() {
                    });
            assertThrows(IllegalArgumentException.class, () -> Keyset.parseKeys(keys), ks.toString());
        }
    }

    @Test
    void nut01ValidKeysetsAreAcceptedWithUnsigned64BitAmounts() {
        JsonNode v = Vectors.load("nut01-pubkeys.json").get("valid_keysets");
        assertEquals(2, v.size());
        for (JsonNode ks : v) {
            java.util.Map<String, String> keys = Nut.json().convertValue(ks,
                    new com.fasterxml.jackson.core.type.TypeReference<java.util.Map<String, String>>() {
                    });
            java.util.SortedMap<Long, String> parsed = Keyset.parseKeys(keys);
            assertEquals(keys.size(), parsed.size());
            for (var e : keys.entrySet()) {
                assertEquals(e.getValue(), parsed.get(Long.parseUnsignedLong(e.getKey())));
            }
        }
        java.util.SortedMap<Long, String> big = Keyset.parseKeys(Nut.json().convertValue(v.get(1),
                new com.fasterxml.jackson.core.type.TypeReference<java.util.Map<String, String>>() {
                }));
        assertEquals(Long.MIN_VALUE, (long) big.lastKey(), "2^63 sorts last, as an unsigned amount");
        assertEquals(1L, (long) big.firstKey());
    }
}
