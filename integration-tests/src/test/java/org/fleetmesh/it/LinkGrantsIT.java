package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantTerms;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.peering.link.GrantMessages;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * Grants and budgets on the link of one packaged node, against peers written in the test (real handshake, fresh
 * keys): the grant offered in DIDComm and served to REQ, events answered one by one, bad input after MESH-OK refused
 * with a reason, and a flooder quarantined past the violation threshold, with evidence persisted and no relink until
 * the quarantine ends. Small budgets and a short quarantine by configuration.
 */
class LinkGrantsIT {
    static final int TIER0_EVENTS = 20;
    static final long QUARANTINE_SECONDS = 8;
    static MeshnodeProcess node;
    static Vertx vertx;

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("link-grants", Map.of(
                "FLEETMESH_DELIVERY_RECEIPTS", "false",
                "FLEETMESH_GRANTS_WINDOW", "10s",
                "FLEETMESH_GRANTS_TIER_BYTES", "262144,1048576",
                "FLEETMESH_GRANTS_TIER_EVENTS", TIER0_EVENTS + ",200",
                "FLEETMESH_GRANTS_CLIMB_AFTER", "1000",
                "FLEETMESH_GRANTS_VIOLATION_THRESHOLD", "3",
                "FLEETMESH_GRANTS_VIOLATION_TOLERANCE", "2",
                "FLEETMESH_GRANTS_QUARANTINE", QUARANTINE_SECONDS + "s",
                "FLEETMESH_GRANTS_MAX_FRAME_BYTES", "65536"));
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        if (node != null) {
            node.close();
        }
    }

    @Test
    void theNodeOffersItsSignedGrantInDidcommAcceptsOursAndServesBothToReq() throws Exception {
        try (MeshPeer peer = new MeshPeer(vertx, "grant")) {
            peer.link(node);
            String nodeDid = peer.link.peer().orElseThrow().did();
            String nodeKey = peer.link.peer().orElseThrow().nostr().orElseThrow().hex();
            GrantMessages.Received offer = peer.grants.read(peer.takeType(EventFrame.DIDCOMM));
            assertEquals(GrantMessages.OFFER, offer.type());
            long now = System.currentTimeMillis() / 1000;
            Grant g = offer.grant(now);
            assertEquals(nodeKey, g.grantor().hex(), "signed by the node's Nostr key");
            assertEquals(PeerIdentity.shortForm(nodeDid), g.terms().grantorDid());
            assertEquals(peer.shortDid(), g.terms().granteeDid());
            assertEquals(0, g.terms().tier(), "a fresh peer is in tier 0");
            assertEquals(TIER0_EVENTS, g.terms().eventsPerWindow());
            assertEquals(10, g.terms().windowSeconds());
            peer.send(peer.grants.accept(g.event().id().hex(), offer.id(), now));

            // our grant to the node: verified, stored, accepted
            Grant ours = Grant.sign(new GrantTerms(peer.shortDid(), PeerIdentity.shortForm(nodeDid), 100_000, 100, 60, 0,
                    now + 3600), peer.secrets.nostr().bytes(), now);
            peer.send(peer.grants.offer(ours, Optional.empty(), now));
            GrantMessages.Received accept = peer.grants.read(peer.takeType(EventFrame.DIDCOMM));
            assertEquals(GrantMessages.ACCEPT, accept.type());
            assertEquals(ours.event().id().hex(), accept.text("grant_id"));

            try (NostrClient c = NostrClient.connect(node)) {
                List<JsonNode> served = c.query("g", FilterSpec.of().kinds(Grant.KIND).tag('d', peer.shortDid()));
                assertEquals(1, served.size(), served.toString());
                assertEquals(g.event().id().hex(), served.get(0).get("id").asText());
                List<JsonNode> theirs = c.query("o", FilterSpec.of().kinds(Grant.KIND).authors(
                        peer.secrets.publicKeys().nostr().hex()));
                assertEquals(List.of(ours.event().id().hex()), theirs.stream().map(e -> e.get("id").asText()).toList());
            }
        }
    }

    @Test
    void eventsWithinTheGrantAreStoredAndAnsweredOneByOne() throws Exception {
        try (MeshPeer peer = new MeshPeer(vertx, "events")) {
            peer.link(node);
            peer.exchange();
            List<String> notes = peer.notes(3, 0);
            notes.set(1, notes.get(1).replace("note 1", "note one")); // its id no longer matches
            peer.send(peer.frame(1, notes));
            JsonNode ok = MeshPeer.json(peer.takeType(EventFrame.EVENTS_OK));
            assertEquals(1, ok.get(1).get("seq").asLong());
            JsonNode rows = ok.get(2);
            assertEquals(3, rows.size());
            assertTrue(rows.get(0).get(1).asBoolean(), rows.toString());
            assertFalse(rows.get(1).get(1).asBoolean(), rows.toString());
            assertTrue(rows.get(1).get(2).asText().startsWith("invalid:"), rows.toString());
            assertTrue(rows.get(2).get(1).asBoolean(), rows.toString());
            // the same again: duplicates, still OK true
            peer.send(peer.frame(2, List.of(notes.get(0))));
            JsonNode dup = MeshPeer.json(peer.takeType(EventFrame.EVENTS_OK)).get(2).get(0);
            assertTrue(dup.get(1).asBoolean());
            assertTrue(dup.get(2).asText().startsWith("duplicate:"), dup.toString());
            try (NostrClient c = NostrClient.connect(node)) {
                assertEquals(2, c.query("n", FilterSpec.of().kinds(1).authors(peer.secrets.publicKeys().nostr().hex()))
                        .size());
            }
        }
    }

    @Test
    void badInputAfterMeshOkIsRefusedWithAReasonAndTheNodeCarriesOn() throws Exception {
        try (MeshPeer peer = new MeshPeer(vertx, "bad")) {
            peer.link(node);
            peer.exchange();
            peer.takeType(EventFrame.DIDCOMM); // the offer
            peer.send("garbage");
            assertTrue(peer.takeType("MESH-ERR").startsWith("[\"MESH-ERR\",\"malformed: not JSON"));
            peer.send("[\"MESH-EVENTS\",{\"seq\":4,\"count\":3},[{}]]");
            assertEquals("[\"MESH-EVENTS-REFUSED\",{\"seq\":4,\"retry_ms\":null},\"invalid: the header says 3 events,"
                    + " the frame holds 1\"]", peer.takeType(EventFrame.REFUSED));
            peer.send("[\"MESH-EVENTS\",{\"seq\":5,\"count\":1},[{\"content\":\"" + "x".repeat(70_000) + "\"}]]");
            String oversize = peer.takeType(EventFrame.REFUSED);
            assertTrue(oversize.contains("invalid: a frame is at most 65536 bytes"), oversize);
            peer.send("[\"MESH-DIDCOMM\",{\"ciphertext\":\"x\"}]");
            assertTrue(peer.takeType("MESH-ERR").startsWith("[\"MESH-ERR\",\"invalid: DIDComm message:"));
            // four violations: within threshold plus tolerance, so the link stays and a good frame is taken
            peer.send(peer.frame(6, peer.notes(1, 0)));
            JsonNode ok = MeshPeer.json(peer.takeType(EventFrame.EVENTS_OK));
            assertTrue(ok.get(2).get(0).get(1).asBoolean(), ok.toString());
            assertFalse(peer.closed.isDone());
            assertTrue(node.isAlive());
            assertTrue(node.relayInfo().contains("\"self\""), "the relay still answers NIP-11");

            // and the operator sees them in the metrics (refreshed every 5 s)
            String row = "fleetmesh_link_violations{peer=\"" + peer.shortDid() + "\"} 4.0";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            String metrics = "";
            while (System.nanoTime() < deadline && !metrics.contains(row)) {
                Thread.sleep(500);
                metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        node.httpUri().resolve("/q/metrics")).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            }
            assertTrue(metrics.contains(row), "no " + row + " in /q/metrics");
            assertTrue(metrics.contains("fleetmesh_link_budget_granted{peer=\"" + peer.shortDid()
                    + "\",resource=\"events\"} " + TIER0_EVENTS + ".0"), "the grant is in the metrics: "
                    + metrics.lines().filter(l -> l.startsWith("fleetmesh_link_budget_granted")).toList());
            assertTrue(metrics.contains("fleetmesh_link_strain{direction=\"in\",measure=\"events\",peer=\""
                    + peer.shortDid() + "\"}"), "the strain is in the metrics");
        }
    }

    @Test
    void aFlooderIsRateLimitedThenQuarantinedWithEvidenceAndCannotRelinkUntilItEnds() throws Exception {
        try (MeshPeer peer = new MeshPeer(vertx, "flooder")) {
            peer.link(node);
            peer.exchange();
            String grantId = Grant.parse(peer.grants.read(peer.takeType(EventFrame.DIDCOMM)).grant(
                    System.currentTimeMillis() / 1000).event(), System.currentTimeMillis() / 1000).event().id().hex();
            List<String> notes = peer.notes(TIER0_EVENTS + 10, 0);
            peer.send(peer.frame(1, notes.subList(0, TIER0_EVENTS)));
            assertEquals(TIER0_EVENTS, MeshPeer.json(peer.takeType(EventFrame.EVENTS_OK)).get(2).size());
            // the grant is spent: each further frame is refused rate-limited and counts; the sixth ends the link
            for (int i = 0; i < 5; i++) {
                peer.send(peer.frame(2 + i, notes.subList(TIER0_EVENTS + i, TIER0_EVENTS + i + 1)));
                String refused = peer.takeType(EventFrame.REFUSED);
                JsonNode r = MeshPeer.json(refused);
                assertEquals(2 + i, r.get(1).get("seq").asLong());
                assertTrue(r.get(1).get("retry_ms").asLong() > 0, refused);
                assertTrue(r.get(2).asText().startsWith("rate-limited: over the grant of 262144 bytes and "
                        + TIER0_EVENTS + " events per 10 s; refills in "), refused);
            }
            long before = System.currentTimeMillis();
            peer.send(peer.frame(7, notes.subList(TIER0_EVENTS + 5, TIER0_EVENTS + 6)));
            String err = peer.take(m -> m.startsWith("[\"MESH-ERR\""), "the quarantine");
            assertTrue(err.startsWith("[\"MESH-ERR\",\"quarantined: until "), err);
            assertTrue(err.contains("after 6 violations in 60 s of the grant " + grantId), err);
            peer.closed.get(10, TimeUnit.SECONDS);

            try (Connection db = MeshPeer.database(node)) {
                // the ledger is written off the link's thread: wait (up to 30 s) for the evidence and the quarantine
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (true) {
                    try (PreparedStatement ps = db.prepareStatement("select (select count(*) from link_evidence where"
                            + " peer = ?), (select count(*) from link_peer where peer = ? and quarantined_until > ?"
                            + " and violations >= 6)")) {
                        ps.setString(1, peer.shortDid());
                        ps.setString(2, peer.shortDid());
                        ps.setLong(3, System.currentTimeMillis());
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            if (rs.getLong(1) > 0 && rs.getLong(2) > 0) {
                                break;
                            }
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        break; // the assertions below say what is missing
                    }
                    Thread.sleep(100);
                }
                try (PreparedStatement ps = db.prepareStatement("select severity, violations, grant_id, grant_event,"
                        + " detail, quarantined_until from link_evidence where peer = ?")) {
                    ps.setString(1, peer.shortDid());
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next(), "an evidence record is persisted");
                        assertEquals("S3", rs.getString(1));
                        assertEquals(6, rs.getInt(2));
                        assertEquals(grantId, rs.getString(3));
                        assertTrue(rs.getString(4).contains(grantId));
                        JsonNode detail = MeshPeer.json(rs.getString(5));
                        assertEquals(6, detail.get("refused_frames").asLong());
                        assertEquals(TIER0_EVENTS, detail.get("grant_events").asLong());
                        long until = rs.getLong(6);
                        assertTrue(until >= before + QUARANTINE_SECONDS * 1000 - 1000, Instant.ofEpochMilli(until).toString());
                    }
                }
                try (PreparedStatement ps = db.prepareStatement("select quarantined_until, violations from link_peer"
                        + " where peer = ?")) {
                    ps.setString(1, peer.shortDid());
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next(), "the quarantine is persisted per DID");
                        assertTrue(rs.getLong(1) > System.currentTimeMillis());
                        assertEquals(6, rs.getLong(2));
                    }
                }
            }

            // relinking during the quarantine: the handshake completes, then the node ends the link at once
            peer.link(node);
            String again = peer.take(m -> m.startsWith("[\"MESH-ERR\""), "the quarantine on relink");
            assertTrue(again.startsWith("[\"MESH-ERR\",\"quarantined: until "), again);
            peer.closed.get(10, TimeUnit.SECONDS);

            // after it ends, the peer links and its events are taken again
            long wait = before + QUARANTINE_SECONDS * 1000 + 500 - System.currentTimeMillis();
            if (wait > 0) {
                Thread.sleep(wait);
            }
            peer.link(node);
            peer.exchange();
            peer.takeType(EventFrame.DIDCOMM);
            peer.send(peer.frame(8, peer.notes(1, 500)));
            JsonNode ok = MeshPeer.json(peer.takeType(EventFrame.EVENTS_OK));
            assertTrue(ok.get(2).get(0).get(1).asBoolean(), ok.toString());
        }
    }
}
