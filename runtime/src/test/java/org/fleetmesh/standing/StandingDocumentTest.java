package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class StandingDocumentTest {

    @Test
    void everySubjectWithItsViewsAndItsFindingsCountedAndIgnoredWithTheContractNames() {
        List<Counted> counted = List.of(new Counted("c1", "did:peer:4zA", "S2", "transit", "custody-fork", "VERIFIED", 0.5),
                new Counted("c2", "did:peer:4zB", "S1", "transit", "custody-reset", "ATTESTED", 0.05));
        List<Ignored> ignored = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            ignored.add(new Ignored("i" + i, "pubkey:ab", "S3", "transit", "budget", "ATTESTED", "observer tier 0"));
        }
        Views v = new Views(Map.of("did:peer:4zX", new SubjectView("did:peer:4zX", "ab".repeat(32), 0.45, 1.0,
                counted, ignored), "did:peer:4zY", new SubjectView("did:peer:4zY", null, 1.0, 0.5, List.of(),
                        List.of())));
        JsonNode doc = StandingDocument.of(v, 50);
        assertEquals(2, doc.path("subjects").size());
        JsonNode x = doc.path("subjects").get(0);
        assertEquals("did:peer:4zX", x.path("did").asText());
        assertEquals("ab".repeat(32), x.path("pubkey").asText());
        assertEquals(0.45, x.path("view_transit").asDouble());
        assertEquals(1.0, x.path("view_compute").asDouble());
        assertEquals(2, x.path("findings").path("counted").asInt());
        assertEquals(60, x.path("findings").path("ignored").asInt());
        JsonNode details = x.path("findings").path("details");
        assertEquals(50, details.size(), "details are capped");
        assertEquals("c1", details.get(0).path("id").asText(), "counted first");
        assertTrue(details.get(0).path("counted").asBoolean());
        assertEquals(0.5, details.get(0).path("weight").asDouble());
        assertEquals("custody-fork", details.get(0).path("rule").asText());
        assertEquals("did:peer:4zA", details.get(0).path("observer").asText());
        assertEquals("VERIFIED", details.get(0).path("verdict").asText());
        assertEquals("ATTESTED", details.get(1).path("verdict").asText());
        JsonNode third = details.get(2);
        assertFalse(third.path("counted").asBoolean());
        assertEquals("observer tier 0", third.path("why").asText());
        assertEquals("ATTESTED", third.path("verdict").asText());
        assertFalse(third.has("weight"));
        assertTrue(doc.path("subjects").get(1).path("pubkey").isNull());
    }
}
