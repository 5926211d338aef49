package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * A real S2 crosses the mesh and each node weighs it by its own rules (docs/spec/findings.md, standing.md): a test
 * peer linked to A forks its receipt chain ({@link CustodyPeer.Lie#FORK}); A records the custody evidence, signs an
 * S2 finding from it and, its own view of the rogue below quarantine-below, quarantines it (its link ends, a relink is
 * refused). The finding is pushed to B (A-B-C, a line), which re-checks it, counts it and pushes it on to C, which
 * re-checks it too. B and C weigh S2 differently and end with different views of the rogue.
 */
class StandingIT {
    static MeshnodeProcess a;
    static MeshnodeProcess b;
    static MeshnodeProcess c;
    static Vertx vertx;

    /** Short tier windows: a linked peer climbs to tier 1 (an observer that counts) within seconds. */
    static Map<String, String> env(String s2, String... more) {
        Map<String, String> env = Delivered.env("[]", "FLEETMESH_GRANTS_WINDOW", "2s", "FLEETMESH_GRANTS_CLIMB_AFTER",
                "1", "FLEETMESH_STANDING_RECOMPUTE_INTERVAL", "300ms", "FLEETMESH_STANDING_WEIGHT_S2", s2);
        for (int i = 0; i + 1 < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        // A: its own S2 weighs 0.9, 1 - 0.9 is below quarantine-below 0.2
        a = MeshnodeProcess.start("standing-a", env("0.9"));
        // B: a peer's S2 weighs 0.6 x weight.peer 0.5 x A's view here (1.0): the rogue at 0.7
        b = MeshnodeProcess.start("standing-b", env("0.6"));
        // C: never linked to A, it counts any observer whose evidence it re-checked (its rule): 0.2 x 0.5, 0.9
        c = MeshnodeProcess.start("standing-c", env("0.2", "FLEETMESH_STANDING_MIN_OBSERVER_TIER", "0"));
        String aDid = PeeringIT.did(a);
        String bDid = PeeringIT.did(b);
        String cDid = PeeringIT.did(c);
        HttpResponse<String> r = PeeringIT.addPeer(b, PeeringIT.token(b, "admin:write"), aDid, PeeringIT.mesh(a));
        assertEquals(201, r.statusCode(), r.body());
        r = PeeringIT.addPeer(c, PeeringIT.token(c, "admin:write"), bDid, PeeringIT.mesh(b));
        assertEquals(201, r.statusCode(), r.body());
        PeeringIT.awaitLinked(a, aDid, b, bDid);
        PeeringIT.awaitLinked(b, bDid, c, cDid);
    }

    @AfterAll
    static void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        for (MeshnodeProcess n : new MeshnodeProcess[] { a, b, c }) {
            if (n != null) {
                n.close();
            }
        }
    }

    @Test
    void aForkedReceiptChainIsAFindingEachNodeVerifiesAndWeighsByItsOwnRules() throws Exception {
        String aDid = PeeringIT.did(a);
        String aPubkey = PeeringIT.status(a).path("pubkey").asText();
        try (CustodyPeer rogue = new CustodyPeer(vertx, "rogue")) {
            Keys author = Keys.fresh();
            rogue.link(a, "[{\"kinds\":[1],\"authors\":[\"" + author.pubkey() + "\"]}]");
            String did = rogue.shortDid();
            FederationIT.publish(a, author, 2);
            CustodyPeer.await(() -> rogue.treeSize() == 2, "two events in the rogue's tree");
            Delivered.awaitPeer(a, did, p -> Delivered.drained(p, 2), "two receipted");
            rogue.lie(CustodyPeer.Lie.FORK);
            FederationIT.publish(a, author, 2);
            Delivered.awaitPeer(a, did, p -> p.path("custody").path("halted").isTextual(), "a halt");

            // A: its own finding, counted at its own weight; the rogue is quarantined
            JsonNode atA = Standings.awaitSubject(a, did, s -> s.path("findings").path("counted").asInt() == 1,
                    "A's finding");
            JsonNode own = Standings.details(atA, d -> d.path("counted").asBoolean()).get(0);
            String finding = own.path("id").asText();
            assertEquals("custody-fork", own.path("rule").asText(), own.toString());
            assertEquals("S2", own.path("severity").asText());
            assertEquals(aDid, own.path("observer").asText());
            assertEquals(0.1, atA.path("view_transit").asDouble(), 1e-3, atA.toString());
            assertEquals(1.0, atA.path("view_compute").asDouble(), atA.toString());
            // quarantined: told its grant is suspended, the link ends, a relink is refused; persisted per DID
            String suspend = FindingsIT.takeGrantMessage(rogue, org.fleetmesh.peering.link.GrantMessages.SUSPEND);
            assertTrue(suspend != null, "its grant suspended as the link ends");
            String ended = LyingPeerIT.takeOther(rogue, "[\"MESH-ERR\",\"quarantined: until ");
            assertTrue(ended.contains("quarantine-below"), ended);
            rogue.peer.closed.get(20, TimeUnit.SECONDS);
            CustodyPeer.await(() -> quarantinedUntil(did) > System.currentTimeMillis() + 30 * 60_000,
                    "the rogue's quarantine for the hour, persisted");
            try {
                rogue.peer.link(a);
                LyingPeerIT.takeOther(rogue, "[\"MESH-ERR\",\"quarantined: until ");
                rogue.peer.closed.get(20, TimeUnit.SECONDS); // a relink is ended at once: quarantined
            } catch (java.util.concurrent.ExecutionException refused) {
                // or refused in the handshake: quarantined
            }

            // B and C: the same finding, re-checked and weighed each by its own rules
            JsonNode atB = counted(b, did, finding);
            JsonNode atC = counted(c, did, finding);
            assertEquals(0.7, atB.path("view_transit").asDouble(), 1e-3, atB.toString());
            assertEquals(0.9, atC.path("view_transit").asDouble(), 1e-3, atC.toString());
            assertNotEquals(atB.path("view_transit").asDouble(), atC.path("view_transit").asDouble());
            // pushed on by B (new to it, verified), not back to A; C has no other peer to push it to: the flood ends
            assertEquals(1, Standings.standing(b).path("findings").path("pushed").asInt(), "B pushed it to C");
            assertEquals(0, Standings.standing(c).path("findings").path("pushed").asInt(), "C pushed it nowhere");
            for (MeshnodeProcess n : List.of(b, c)) {
                try (NostrClient client = NostrClient.connect(n)) {
                    List<JsonNode> stored = client.query("finding", FilterSpec.of().ids(finding));
                    assertEquals(1, stored.size(), n + " stores and serves the finding");
                    assertEquals(aPubkey, stored.get(0).path("pubkey").asText(), "signed by A");
                    assertEquals(1804, stored.get(0).path("kind").asInt());
                }
            }
        }
    }

    /** The rogue's quarantine end in A's link ledger, epoch ms (0 when none). */
    static long quarantinedUntil(String did) {
        try (java.sql.Connection db = MeshPeer.database(a); java.sql.PreparedStatement ps = db.prepareStatement(
                "select quarantined_until from link_peer where peer = ?")) {
            ps.setString(1, did);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until {@code n} counts {@code finding} (by A) against {@code subject}; the subject's entry. */
    static JsonNode counted(MeshnodeProcess n, String subject, String finding) {
        String aDid = PeeringIT.did(a);
        JsonNode s = Standings.awaitSubject(n, subject, x -> Standings.detail(x, finding)
                .map(d -> d.path("counted").asBoolean()).orElse(false), "A's finding counted");
        JsonNode d = Standings.detail(s, finding).orElseThrow();
        assertEquals(aDid, d.path("observer").asText(), d.toString());
        assertEquals(1, s.path("findings").path("counted").asInt(), s.toString());
        return s;
    }
}
