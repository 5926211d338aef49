package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.peering.PeerLinks.State;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** The /mesh/status document: the names, the sessions' members, null for what is absent. */
class MeshStatusTest {
    private static final Instant SINCE = Instant.ofEpochSecond(Nodes.T0);

    @Test
    void everyNamedMemberIsPresentAndTheSessionsFillTheirs() {
        String b = PeerIdentity.shortForm(Nodes.B.did());
        PeerLinks.View up = new PeerLinks.View(b, b, true, Optional.of(URI.create("ws://b/mesh")), State.UP, SINCE,
                Optional.of(1.23456), 1, Optional.of(Role.INITIATOR), 0, Optional.empty(), Optional.empty());
        LinkSessions sessions = new LinkSessions() {
            @Override
            public LinkSession open(MeshLink link) {
                throw new AssertionError();
            }

            @Override
            public void describe(String peerKey, Map<String, Object> into) {
                into.put("tier", 2);
                into.put("grant_in", Map.of("events", 100));
            }
        };
        JsonNode s = MeshStatus.of("did:peer:4zA", "ab".repeat(32), List.of(up), sessions);
        assertEquals("did:peer:4zA", s.path("did").asText());
        assertEquals("ab".repeat(32), s.path("pubkey").asText());
        JsonNode p = s.path("peers").get(0);
        for (String member : List.of("did", "url", "state", "since", "rtt_ms", "tier", "grant_in", "grant_out", "used",
                "violations", "strain")) {
            assertTrue(p.has(member), member);
        }
        assertEquals(b, p.path("did").asText());
        assertEquals("up", p.path("state").asText());
        assertEquals("2026-01-01T00:00:00Z", p.path("since").asText());
        assertEquals(1.235, p.path("rtt_ms").asDouble());
        assertEquals(2, p.path("tier").asInt());
        assertEquals(100, p.path("grant_in").path("events").asInt());
        assertTrue(p.path("grant_out").isNull());
        assertTrue(p.path("strain").isNull());
        assertEquals("initiator", p.path("role").asText());
    }

    @Test
    void aPeerWithoutLinkOrUrlHasNulls() {
        PeerLinks.View down = new PeerLinks.View("did:key:z6Mk", "did:key:z6Mk", false, Optional.empty(), State.DOWN,
                SINCE, Optional.empty(), 0, Optional.empty(), 0, Optional.empty(), Optional.of("link closed"));
        JsonNode p = MeshStatus.of("d", "p", List.of(down), LinkSessions.UNSUPPORTED).path("peers").get(0);
        assertTrue(p.path("url").isNull());
        assertTrue(p.path("rtt_ms").isNull());
        assertTrue(p.path("tier").isNull());
        assertTrue(p.path("role").isNull());
        assertEquals("down", p.path("state").asText());
        assertEquals("link closed", p.path("last_error").asText());
    }
}
