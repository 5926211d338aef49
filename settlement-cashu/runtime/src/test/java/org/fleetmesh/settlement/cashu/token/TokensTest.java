package org.fleetmesh.settlement.cashu.token;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.nut.Base64Url;
import org.fleetmesh.settlement.cashu.nut.Cbor;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.ProofDleq;
import org.fleetmesh.settlement.cashu.nut.Vectors;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class TokensTest {
    static final JsonNode V = Vectors.load("nut00-tokens.json");
    static final String C = "02bc9097997d81afb2cc7346b5e4345a9346bd2a506eb7958598a72f0cf85163ea";

    /** The Token a V3 JSON vector describes. */
    static Token fromV3Json(JsonNode json) throws Exception {
        List<Proof> proofs = new ArrayList<>();
        for (JsonNode p : json.get("token").get(0).get("proofs")) {
            proofs.add(Nut.json().treeToValue(p, Proof.class));
        }
        return new Token(json.get("token").get(0).get("mint").asText(), text(json, "unit"), text(json, "memo"),
                proofs);
    }

    /** The Token a V4 JSON vector (bytes as hex) describes. */
    static Token fromV4Json(JsonNode json) {
        List<Proof> proofs = new ArrayList<>();
        for (JsonNode g : json.get("t")) {
            for (JsonNode p : g.get("p")) {
                proofs.add(new Proof(p.get("a").asLong(), g.get("i").asText(), p.get("s").asText(),
                        p.get("c").asText(), null, null));
            }
        }
        return new Token(json.get("m").asText(), json.get("u").asText(), text(json, "d"), proofs);
    }

    static String text(JsonNode n, String f) {
        return n.hasNonNull(f) ? n.get(f).asText() : null;
    }

    static String message(String token) {
        return assertThrows(TokenException.class, () -> Tokens.decode(token)).getMessage();
    }

    @Test
    void v3EncodeVectorIsByteIdentical() throws Exception {
        for (JsonNode v : V.get("v3_encode")) {
            assertEquals(v.get("token").asText(), Tokens.encodeV3(fromV3Json(v.get("json"))), v.get("name").asText());
        }
    }

    @Test
    void v3ValidVectorsDecode() throws Exception {
        assertEquals(3, V.get("v3_valid").size());
        for (JsonNode v : V.get("v3_valid")) {
            assertEquals(fromV3Json(v.get("json")), Tokens.decode(v.get("token").asText()), v.get("name").asText());
        }
    }

    @Test
    void v3InvalidVectorsFailWithTheirReason() {
        assertEquals(2, V.get("v3_invalid").size());
        for (JsonNode v : V.get("v3_invalid")) {
            assertEquals(v.get("reason").asText(), message(v.get("token").asText()), v.get("name").asText());
        }
    }

    @Test
    void v4EncodeVectorsAreByteIdentical() {
        assertEquals(2, V.get("v4_encode").size());
        for (JsonNode v : V.get("v4_encode")) {
            // The vectors disagree on base64 padding (one has it, one not); we write none.
            String expected = v.get("token").asText().replace("=", "");
            assertEquals(expected, Tokens.encodeV4(fromV4Json(v.get("json"))), v.get("name").asText());
        }
    }

    @Test
    void v4VectorsDecode() throws Exception {
        for (JsonNode v : V.get("v4_encode")) {
            assertEquals(fromV4Json(v.get("json")), Tokens.decode(v.get("token").asText()), v.get("name").asText());
        }
    }

    @Test
    void v4BinaryVectorRoundTrips() throws Exception {
        for (JsonNode v : V.get("v4_binary")) {
            Token t = fromV4Json(v.get("json"));
            assertEquals(v.get("hex").asText(), Hex.encode(Tokens.encodeBinary(t)));
            assertEquals(t, Tokens.decodeBinary(Hex.decodeLower(v.get("hex").asText())));
        }
    }

    @Test
    void multiKeysetV4KeepsEachProofsKeysetAndTheAmount() throws Exception {
        Token t = Tokens.decode(V.get("v4_encode").get(1).get("token").asText());
        assertEquals(List.of("00ffd48b8f5ecf80", "00ad268c4d1f5826", "00ad268c4d1f5826"),
                t.proofs().stream().map(Proof::id).toList());
        assertEquals(4, t.amount());
    }

    @Test
    void cashuUriPrefixIsAccepted() throws Exception {
        String token = V.get("v4_encode").get(0).get("token").asText();
        assertEquals(Tokens.decode(token), Tokens.decode("cashu:" + token));
        assertEquals(Tokens.decode(token), Tokens.decode("  cashu:" + token + "\n"));
    }

    @Test
    void unknownVersionIsAnUnknownPrefix() {
        assertEquals("invalid token: unknown prefix", message("cashuCabc"));
    }

    @Test
    void truncatedTokensFailAsTruncated() {
        String v4 = V.get("v4_encode").get(1).get("token").asText();
        assertEquals("invalid token: truncated", message(v4.substring(0, v4.length() - 40)));
        String v3 = V.get("v3_encode").get(0).get("token").asText();
        assertEquals("invalid token: truncated", message(v3.substring(0, v3.length() - 40)));
        assertEquals("invalid token: truncated", message("cashuB"));
    }

    @Test
    void badBase64FailsAsBadBase64() {
        assertEquals("invalid token: bad base64", message("cashuBo2F0g!!"));
        assertEquals("invalid token: bad base64", message("cashuBo"));
    }

    @Test
    void zeroAndNegativeAmountsAreRejected() {
        assertEquals("invalid token: proof amount must be positive", message(v4With(0L)));
        assertEquals("invalid token: proof amount must be positive", message(v4With(-5L)));
    }

    @Test
    void amountsBeyondALongAreRejected() {
        byte[] cbor = Cbor.encode(v4Map(1L));
        String hex = Hex.encode(cbor).replace("616101", "61611bffffffffffffffff");
        assertEquals("invalid token: proof amount does not fit 64 bits",
                message("cashuB" + Base64Url.encode(Hex.decodeLower(hex), false)));
    }

    @Test
    void totalAmountOverflowIsRejected() {
        Map<String, Object> m = v4Map(Long.MAX_VALUE);
        @SuppressWarnings("unchecked")
        List<Object> p = (List<Object>) ((Map<String, Object>) ((List<Object>) m.get("t")).get(0)).get("p");
        p.add(p.get(0));
        assertEquals("invalid token: token amount overflows",
                message("cashuB" + Base64Url.encode(Cbor.encode(m), false)));
    }

    @Test
    void unknownV4FieldsAreIgnored() throws Exception {
        Map<String, Object> m = v4Map(1L);
        m.put("x", List.of(1L, "future"));
        assertEquals(1, Tokens.decode("cashuB" + Base64Url.encode(Cbor.encode(m), false)).amount());
    }

    @Test
    void v4FieldsOfTheWrongTypeAreRejected() {
        Map<String, Object> m = v4Map(1L);
        m.put("m", 7L);
        assertEquals("invalid token: m must be text", message("cashuB" + Base64Url.encode(Cbor.encode(m), false)));
    }

    @Test
    void v4RoundTripsDleqAndWitness() throws Exception {
        String h = "ab".repeat(32);
        Proof p = new Proof(8, "00ad268c4d1f5826", "secret", C, new ProofDleq(h, h, h), "{\"signatures\":[]}");
        Token t = new Token("https://mint.example", "sat", null, List.of(p));
        assertEquals(t, Tokens.decode(Tokens.encodeV4(t)));
        assertEquals(t, Tokens.decode(Tokens.encodeV3(t)));
    }

    @Test
    void trailingSlashesOfTheMintAreStripped() throws Exception {
        Token t = new Token("https://mint.example//", "sat", null, List.of(proof("a", 1)));
        assertEquals("https://mint.example", Tokens.decode(Tokens.encodeV4(t)).mint());
    }

    @Test
    void mintMustBeAnHttpUrl() {
        Token t = new Token("file:///etc/passwd", "sat", null, List.of(proof("a", 1)));
        assertEquals("invalid token: mint URL must be an http(s) URL", message(Tokens.encodeV4(t)));
    }

    @Test
    void v3FromSeveralMintsIsRejected() throws Exception {
        String json = "{\"token\":[{\"mint\":\"https://a.example\",\"proofs\":[" + proofJson("a") + "]},"
                + "{\"mint\":\"https://b.example\",\"proofs\":[" + proofJson("b") + "]}]}";
        assertEquals("invalid token: tokens from several mints are not supported", message(v3(json)));
    }

    @Test
    void v3EntriesOfTheSameMintAreMerged() throws Exception {
        String json = "{\"token\":[{\"mint\":\"https://a.example\",\"proofs\":[" + proofJson("a") + "]},"
                + "{\"mint\":\"https://a.example/\",\"proofs\":[" + proofJson("b") + "]}],\"unit\":\"sat\"}";
        Token t = Tokens.decode(v3(json));
        assertEquals(2, t.proofs().size());
        assertEquals("sat", t.unit());
    }

    @Test
    void v3StrictTypesAreEnforced() {
        String json = "{\"token\":[{\"mint\":\"https://a.example\",\"proofs\":[" + proofJson("a").replace("1,", "\"1\",")
                + "]}]}";
        assertTrue(message(v3(json)).startsWith("invalid token: "));
        String zero = "{\"token\":[{\"mint\":\"https://a.example\",\"proofs\":[" + proofJson("a").replace(":1,", ":0,")
                + "]}]}";
        assertEquals("invalid token: proof amount must be positive", message(v3(zero)));
    }

    @Test
    void tooManyProofsAreRejected() {
        List<Proof> many = new ArrayList<>();
        for (int i = 0; i <= Tokens.MAX_PROOFS; i++) {
            many.add(proof("s" + i, 1));
        }
        String token = Tokens.encodeV4(new Token("https://a.example", "sat", null, many));
        assertEquals("invalid token: more than 10000 proofs", message(token));
    }

    @Test
    void tooLongTokensAreRejected() {
        assertTrue(message("cashuB" + "A".repeat(Tokens.MAX_TOKEN_CHARS)).contains("longer than"));
    }

    @Test
    void shortKeysetIdsResolveToTheOneFullIdTheyStart() throws Exception {
        String full = "01" + "ab".repeat(32);
        Token t = new Token("https://a.example", "sat", null,
                List.of(new Proof(1, full.substring(0, 16), "s", C, null, null)));
        assertEquals(full, t.resolveKeysetIds(List.of(full, "01" + "cd".repeat(32))).proofs().get(0).id());
        String other = full.substring(0, 16) + "ff".repeat(25);
        assertEquals("invalid token: short keyset id " + full.substring(0, 16) + " is ambiguous",
                assertThrows(TokenException.class, () -> t.resolveKeysetIds(List.of(full, other))).getMessage());
        assertThrows(TokenException.class, () -> t.resolveKeysetIds(List.of()));
    }

    @Test
    void v1IdsAreNotMistakenForShortIds() throws Exception {
        Token t = new Token("https://a.example", "sat", null, List.of(proof("a", 1)));
        assertEquals(t, t.resolveKeysetIds(List.of()));
    }

    static Proof proof(String secret, long amount) {
        return new Proof(amount, "009a1f293253e41e", secret, C, null, null);
    }

    static String proofJson(String secret) {
        return "{\"amount\":1,\"id\":\"009a1f293253e41e\",\"secret\":\"" + secret + "\",\"C\":\"" + C + "\"}";
    }

    static String v3(String json) {
        return "cashuA" + Base64Url.encode(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), false);
    }

    static Map<String, Object> v4Map(long amount) {
        Map<String, Object> proof = new LinkedHashMap<>();
        proof.put("a", amount);
        proof.put("s", "secret");
        proof.put("c", Hex.decodeLower(C));
        Map<String, Object> group = new LinkedHashMap<>();
        group.put("i", Hex.decodeLower("00ad268c4d1f5826"));
        group.put("p", new ArrayList<>(List.of(proof)));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", new ArrayList<>(List.of(group)));
        m.put("m", "http://localhost:3338");
        m.put("u", "sat");
        return m;
    }

    static String v4With(long amount) {
        return "cashuB" + Base64Url.encode(Cbor.encode(v4Map(amount)), false);
    }
}
