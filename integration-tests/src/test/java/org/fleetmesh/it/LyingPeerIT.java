package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * A receiver that lies about custody is caught by the sender's checks (docs/spec/delivery.md, docs/spec/custody.md):
 * a test peer speaking the real protocol ({@link CustodyPeer}) receipts a frame but leaves an event out of its tree,
 * or rewrites a past leaf so its new checkpoint is inconsistent with one it signed. The node stores the evidence
 * ({@code missing} / {@code fork}, S2), halts forwarding to that peer, shows it in /mesh/status, and an operator's
 * resume lets the backlog go on.
 */
class LyingPeerIT {
    static MeshnodeProcess node;
    static Vertx vertx;
    static String readToken;
    static String writeToken;

    @BeforeAll
    static void start() throws Exception {
        node = MeshnodeProcess.start("lying", Delivered.env("[]"));
        vertx = Vertx.vertx();
        readToken = PeeringIT.token(node, "admin:read");
        writeToken = PeeringIT.token(node, "admin:write");
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
    void aReceiptThatLeavesAnEventOutOfTheTreeIsEvidenceOfMissingAndHaltsForwarding() throws Exception {
        caught(CustodyPeer.Lie.OMIT, "missing");
    }

    @Test
    void aCheckpointThatRewritesThePastIsEvidenceOfAForkAndHaltsForwarding() throws Exception {
        caught(CustodyPeer.Lie.FORK, "fork");
    }

    private void caught(CustodyPeer.Lie lie, String breach) throws Exception {
        try (CustodyPeer peer = new CustodyPeer(vertx, "liar-" + breach)) {
            Keys author = Keys.fresh();
            // this author's only: the node holds the other tests' events too, and a new peer gets the history
            peer.link(node, "[{\"kinds\":[1],\"authors\":[\"" + author.pubkey() + "\"]}]");
            String did = peer.shortDid();
            List<String> ids = new ArrayList<>(FederationIT.publish(node, author, 3));
            CustodyPeer.await(() -> peer.treeSize() == 3, "three events in the peer's tree");
            Delivered.awaitPeer(node, did, p -> Delivered.drained(p, 3), "three receipted");
            String verifiedHead = Delivered.peer(node, did).orElseThrow().path("custody").path("sent").path("head")
                    .asText();
            assertEquals(peer.headId().orElseThrow(), verifiedHead);

            peer.lie(lie);
            int framesBefore = peer.frames();
            ids.addAll(FederationIT.publish(node, author, 2));
            JsonNode halted = Delivered.awaitPeer(node, did, p -> p.path("custody").path("halted").isTextual(),
                    "a halt");
            String reason = halted.path("custody").path("halted").asText();
            assertTrue(reason.startsWith("custody: " + breach), reason);
            assertEquals(verifiedHead, halted.path("custody").path("sent").path("head").asText(),
                    "the lying receipt is not taken into the mirror");
            String lyingReceipt = peer.lyingReceipt();

            // the evidence: everything a third party needs to re-check it
            JsonNode evidence = evidence(did);
            assertEquals(did, evidence.path("peer").asText());
            JsonNode last = evidence.path("evidence").get(evidence.path("evidence").size() - 1);
            assertEquals("S2", last.path("severity").asText(), last.toString());
            assertEquals("custody: " + breach, last.path("reason").asText(), last.toString());
            JsonNode detail = last.path("detail");
            assertEquals("fleetmesh.custody-breach", detail.path("type").asText(), detail.toString());
            assertEquals(breach, detail.path("breach").asText(), detail.toString());
            assertEquals(peer.pubkey(), detail.path("receiver").asText());
            assertEquals(lyingReceipt, detail.path("receipt").path("id").asText(), "the receipt that lies");
            assertEquals(verifiedHead, detail.path("previous").path("id").asText(), "the last one verified");
            assertTrue(detail.path("frame").path("header").path("sig").isTextual(), "the signed frame header");
            if (lie == CustodyPeer.Lie.OMIT) {
                List<String> frameIds = new ArrayList<>();
                detail.path("frame").path("ids").forEach(i -> frameIds.add(i.asText()));
                assertTrue(frameIds.contains(peer.omitted()), "the frame carried the event left out: " + detail);
            }
            try (Connection db = MeshPeer.database(node); PreparedStatement ps = db.prepareStatement(
                    "select severity, reason from link_evidence where peer = ? order by id")) {
                ps.setString(1, did);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "the evidence is persisted");
                    assertEquals("S2", rs.getString(1));
                    assertEquals("custody: " + breach, rs.getString(2));
                }
            }

            // halted: an event published now waits in the queue and goes nowhere until the operator resumes
            Event held = author.note(Keys.now(), "held back");
            try (NostrClient c = NostrClient.connect(node)) {
                c.publishAndWait(held).assertAccepted();
            }
            Delivered.awaitPeer(node, did, p -> p.path("queue").asLong() >= 1, "the held event queued");
            int framesAtResume = peer.frames();
            // the two events went out (one frame or two, in flight together), nothing after the halt
            assertTrue(framesAtResume <= framesBefore + 2, framesBefore + " frames before the lie, " + framesAtResume);
            assertFalse(peer.forwarded.contains(held.id().hex()), "nothing is forwarded to a halted peer");

            peer.repent();
            HttpResponse<String> resumed = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                    .resolve("/mesh/peers/" + did + "/resume")).header("Authorization", "Bearer " + writeToken)
                    .POST(HttpRequest.BodyPublishers.noBody()));
            assertEquals(200, resumed.statusCode(), resumed.body());
            assertTrue(resumed.body().contains(breach), resumed.body());
            HttpResponse<String> again = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                    .resolve("/mesh/peers/" + did + "/resume")).header("Authorization", "Bearer " + writeToken)
                    .POST(HttpRequest.BodyPublishers.noBody()));
            assertEquals(409, again.statusCode(), "not halted any more: " + again.body());

            // the honest peer gets the backlog (the frame it lied about, resent, and the held event) under receipts
            ids.add(held.id().hex());
            CustodyPeer.await(() -> peer.treeSize() == 6, "the backlog in the peer's tree (" + peer.treeSize() + ")");
            JsonNode ok = Delivered.awaitPeer(node, did, p -> Delivered.drained(p, 6), "the backlog receipted");
            assertTrue(ok.path("custody").path("halted").isNull(), ok.toString());
            assertTrue(Set.copyOf(peer.forwarded).containsAll(ids), "every event reached the peer");
            assertTrue(peer.others.stream().noneMatch(m -> m.startsWith("test peer failed")), peer.others.toString());
        }
    }

    static JsonNode evidence(String did) {
        HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                .resolve("/mesh/peers/" + did + "/evidence")).header("Authorization", "Bearer " + readToken).GET());
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    @Test
    void theAdminApiAsksAPeerForItsOwnFiltersAndRefusesBadOnes() throws Exception {
        try (CustodyPeer peer = new CustodyPeer(vertx, "filters")) {
            peer.link(node, "[]");
            String did = peer.shortDid();
            String body = "{\"did\":\"" + peer.peer.did() + "\",\"url\":\"ws://127.0.0.1:1/mesh\",\"federate\":"
                    + "[{\"kinds\":[30023]}]}";
            HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(node.httpUri().resolve("/mesh/peers"))
                    .header("Authorization", "Bearer " + writeToken).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)));
            assertEquals(201, r.statusCode(), r.body());
            assertEquals(30023, NostrClient.tree(r.body()).path("federate").get(0).path("kinds").get(0).asInt());
            // the node tells the open link at once
            String asked = takeOther(peer, "[\"MESH-FEDERATE\",[{\"kinds\":[30023]");
            assertTrue(asked.contains("30023"), asked);
            JsonNode entry = Delivered.awaitPeer(node, did, p -> p.path("federate").path("wanted").size() == 1,
                    "the peer's own filters");
            assertEquals(30023, entry.path("federate").path("wanted").get(0).path("kinds").get(0).asInt());

            String tooMany = "[" + "{\"kinds\":[1]},".repeat(16) + "{\"kinds\":[1]}]";
            for (String bad : List.of("{\"kinds\":\"x\"}", "[{\"kinds\":\"x\"}]", tooMany)) {
                HttpResponse<String> refused = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                        .resolve("/mesh/peers")).header("Authorization", "Bearer " + writeToken)
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                                "{\"did\":\"" + peer.peer.did() + "\",\"url\":\"ws://127.0.0.1:1/mesh\",\"federate\":"
                                        + bad + "}")));
                assertEquals(400, refused.statusCode(), bad + ": " + refused.body());
                assertTrue(refused.body().contains("invalid: "), refused.body());
            }
            JsonNode still = Delivered.peer(node, did).orElseThrow();
            assertEquals(30023, still.path("federate").path("wanted").get(0).path("kinds").get(0).asInt(),
                    "a refused change leaves the filters as they were");
        }
    }

    @Test
    void aPeerAskingForMoreFiltersThanTheBoundIsRefusedAndKeepsWhatItAskedBefore() throws Exception {
        try (CustodyPeer peer = new CustodyPeer(vertx, "greedy")) {
            peer.link(node, "[{\"kinds\":[7]}]");
            String did = peer.shortDid();
            Delivered.awaitPeer(node, did, p -> p.path("federate").path("offered").size() == 1, "its first filters");
            String seventeen = "[" + "{\"kinds\":[1]},".repeat(16) + "{\"kinds\":[1]}]";
            peer.send("[\"MESH-FEDERATE\"," + seventeen + "]");
            String err = takeOther(peer, "[\"MESH-ERR\"");
            assertTrue(err.contains("invalid: MESH-FEDERATE"), err);
            peer.send("[\"MESH-FEDERATE\",[{\"kinds\":\"x\"}]]");
            assertTrue(takeOther(peer, "[\"MESH-ERR\"").contains("invalid: MESH-FEDERATE"));
            JsonNode entry = Delivered.peer(node, did).orElseThrow();
            assertEquals(1, entry.path("federate").path("offered").size(), entry.toString());
            assertEquals(7, entry.path("federate").path("offered").get(0).path("kinds").get(0).asInt());
            // the link carries on: a good change is taken
            peer.send("[\"MESH-FEDERATE\",[{\"kinds\":[1]},{\"kinds\":[7]}]]");
            Delivered.awaitPeer(node, did, p -> p.path("federate").path("offered").size() == 2, "the new filters");
        }
    }

    @Test
    void evidenceIsReadInBoundedPagesWithARight() throws Exception {
        String did = "did:peer:4zQmNNPJUM8fqAjuEuUbDHh6qRTGY9r8QQab2J9JaitaK7xU";
        for (String limit : List.of("0", "1001", "x")) {
            HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                    .resolve("/mesh/peers/" + did + "/evidence?limit=" + limit))
                    .header("Authorization", "Bearer " + readToken).GET());
            assertEquals(400, r.statusCode(), limit + ": " + r.body());
            assertTrue(r.body().contains("invalid: limit"), r.body());
        }
        HttpResponse<String> none = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                .resolve("/mesh/peers/" + did + "/evidence?limit=5")).header("Authorization", "Bearer " + readToken)
                .GET());
        assertEquals(200, none.statusCode(), none.body());
        assertEquals(0, NostrClient.tree(none.body()).path("evidence").size());
        HttpResponse<String> anonymous = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                .resolve("/mesh/peers/" + did + "/evidence")).GET());
        assertEquals(401, anonymous.statusCode(), "evidence needs admin:read, even from loopback");
        HttpResponse<String> readOnly = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                .resolve("/mesh/peers/" + did + "/resume")).header("Authorization", "Bearer " + readToken)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(403, readOnly.statusCode(), "resume needs admin:write: " + readOnly.body());
    }

    /** The next message the node sent the peer that it does not serve itself and starts with {@code prefix}. */
    static String takeOther(CustodyPeer peer, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            String m = peer.others.poll(100, TimeUnit.MILLISECONDS);
            if (m != null && m.startsWith(prefix)) {
                return m;
            }
        }
        throw new AssertionError("no " + prefix + " from the node within 20 s; queued: " + peer.others);
    }
}
