package org.fleetmesh.settlement.lightning.bolt12;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** bolt12-format-string-test.json: case, {@code +} continuations and whitespace. */
class Bolt12FormatStringVectorsTest {
    private static final String FILE = "bolt12-format-string-test.json";

    /** The reason each invalid vector states in its comment. */
    private static final Map<String, Reason> REASONS = Map.of(
            "Mixed case is invalid", Reason.MIXED_CASE,
            "+ must be surrounded by bech32 characters", Reason.INVALID_CONTINUATION);

    /** All valid strings are one offer: the first vector's. */
    private static final String CANONICAL = "lno1pqps7sjqpgtyzm3qv4uxzmtsd3jjqer9wd3hy6tsw35k7msjzfpy7nz5yqcnygrfdej"
            + "82um5wf5k2uckyypwa3eyt44h6txtxquqh7lz5djge4afgfjn7k4rgrkuag0jsd5xvxg";

    @TestFactory
    List<DynamicTest> everyVector() throws IOException, Bolt12Exception {
        JsonNode vectors = Bolt12Vectors.load(FILE);
        List<String> canonical = Bolt12.decodeOffer(CANONICAL).records().stream().map(Tlv::toString).toList();
        List<DynamicTest> tests = new ArrayList<>();
        int i = 0;
        for (JsonNode v : vectors) {
            String comment = v.get("comment").asText();
            String string = v.get("string").asText();
            boolean valid = v.get("valid").asBoolean();
            tests.add(dynamicTest(i++ + ": " + comment, () -> {
                if (valid) {
                    Offer offer = Bolt12.decodeOffer(string);
                    assertEquals(canonical, offer.records().stream().map(Tlv::toString).toList());
                } else {
                    Reason expected = REASONS.get(comment);
                    if (expected == null) {
                        throw new AssertionError("no expected reason recorded for the invalid vector '" + comment + "'");
                    }
                    Bolt12Exception e = assertThrows(Bolt12Exception.class, () -> Bolt12.decode(string));
                    assertEquals(expected, e.reason(), e.getMessage());
                }
            }));
        }
        assertEquals(12, tests.size(), "the vector file changed: review the expected reasons");
        return tests;
    }

    @Test
    void canonicalOfferFields() throws Bolt12Exception {
        Offer offer = Bolt12.decodeOffer(CANONICAL);
        assertEquals(1_000_000, offer.amount().getAsLong());
        assertEquals("An example description", offer.description().orElseThrow());
        assertEquals("BOLT 12 industries", offer.issuer().orElseThrow());
        assertEquals("02eec7245d6b7d2ccb30380bfbe2a3648cd7a942653f5aa340edcea1f283686619",
                offer.issuerId().orElseThrow().hex());
    }
}
