package org.fleetmesh.settlement.cashu.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.Vectors;
import org.fleetmesh.settlement.cashu.token.TokenException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

/** tests/18-tests.md (nut18-requests.json). */
class PaymentRequestTest {
    static final JsonNode V = Vectors.load("nut18-requests.json");

    @SuppressWarnings("unchecked")
    static List<List<String>> tags(JsonNode n) {
        return n == null ? null : Nut.json().convertValue(n, List.class);
    }

    static String text(JsonNode n, String f) {
        return n.hasNonNull(f) ? n.get(f).asText() : null;
    }

    /** The request a vector's JSON describes. */
    static PaymentRequest fromJson(JsonNode j) {
        List<Transport> ts = null;
        if (j.has("t")) {
            ts = new ArrayList<>();
            for (JsonNode t : j.get("t")) {
                ts.add(new Transport(t.get("t").asText(), t.get("a").asText(), tags(t.get("g"))));
            }
        }
        List<String> mints = null;
        if (j.has("m")) {
            mints = new ArrayList<>();
            for (JsonNode m : j.get("m")) {
                mints.add(m.asText());
            }
        }
        Nut10Option nut10 = j.has("nut10") ? new Nut10Option(j.get("nut10").get("k").asText(),
                j.get("nut10").get("d").asText(), tags(j.get("nut10").get("t"))) : null;
        return new PaymentRequest(text(j, "i"), j.has("a") ? OptionalLong.of(j.get("a").asLong()) : OptionalLong.empty(),
                text(j, "u"), j.has("s") ? j.get("s").asBoolean() : null, mints, text(j, "d"), ts, nut10);
    }

    @Test
    void vectorsDecodeToTheirJson() throws Exception {
        assertEquals(6, V.get("requests").size());
        for (JsonNode v : V.get("requests")) {
            assertEquals(fromJson(v.get("json")), PaymentRequest.decode(v.get("encoded").asText()),
                    v.get("name").asText());
        }
    }

    @Test
    void vectorsEncodeByteIdentically() {
        for (JsonNode v : V.get("requests")) {
            // "Complete Payment Request" is written in the standard base64 alphabet; NUT-18 says URL-safe.
            String expected = v.get("encoded").asText().replace('+', '-').replace('/', '_');
            assertEquals(expected, fromJson(v.get("json")).encode(), v.get("name").asText());
        }
    }

    @Test
    void unknownPrefixIsRejected() {
        assertEquals("invalid payment request: unknown prefix",
                assertThrows(TokenException.class, () -> PaymentRequest.decode("creqBabc")).getMessage());
    }

    @Test
    void truncatedRequestIsRejected() {
        String enc = V.get("requests").get(1).get("encoded").asText().replace("=", "");
        assertEquals("invalid payment request: truncated", assertThrows(TokenException.class,
                () -> PaymentRequest.decode(enc.substring(0, enc.length() - 8))).getMessage());
    }

    @Test
    void amountNeedsAUnit() {
        assertThrows(IllegalArgumentException.class,
                () -> new PaymentRequest(null, OptionalLong.of(5), null, null, null, null, null, null));
    }

    @Test
    void payloadJsonHasTheNut18Shape() throws Exception {
        String c = "02698c4e2b5f9534cd0687d87513c759790cf829aa5739184a3e3735471fbda904";
        PaymentRequestPayload p = new PaymentRequestPayload("b7a90176", null, "https://mint.example", "sat",
                List.of(new Proof(8, "009a1f293253e41e", "s", c, null, null)));
        String json = Nut.json().writeValueAsString(p);
        assertEquals("{\"id\":\"b7a90176\",\"mint\":\"https://mint.example\",\"unit\":\"sat\",\"proofs\":[{\"amount\":8,"
                + "\"id\":\"009a1f293253e41e\",\"secret\":\"s\",\"C\":\"" + c + "\"}]}", json);
        assertEquals(p, Nut.json().readValue(json, PaymentRequestPayload.class));
        assertThrows(JsonProcessingException.class,
                () -> Nut.json().readValue(json.replace("\"mint\":\"https://mint.example\",", ""),
                        PaymentRequestPayload.class));
    }
}
