package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.link.GrantMessages;
import org.fleetmesh.standing.Finding;
import org.fleetmesh.standing.FindingEvidence;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.vertx.core.Vertx;

/**
 * Findings a node receives are re-checked before they move anything (docs/spec/findings.md, standing.md): a finding
 * with a bad signature is refused and kept as ignored; a well-signed one whose evidence does not hold is stored and
 * served but weighs nothing, and costs its publisher (a linked peer) a false-finding of the node's own, which moves
 * the publisher's view_transit and suspends its grant; a compute finding moves view_compute only; and a swarm of 100
 * fresh keys publishing findings against an honest peer moves nothing, makes the node sign at most its stranger
 * budget of penalties, and leaves at most {@code max-findings} records. The peers are test peers speaking the real
 * link protocol ({@link CustodyPeer}) with keys of their own, so the test can sign as them.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FindingsIT {
    static final int MAX_FINDINGS = 80;
    static final int STRANGER_PENALTIES = 5;
    static MeshnodeProcess node;
    static Vertx vertx;
    static CustodyPeer honest;
    static CustodyPeer publisher;
    static CustodyPeer worker;
    static String readToken;
    static String writeToken;
    static String nodeDid;

    @BeforeAll
    static void start() throws Exception {
        node = MeshnodeProcess.start("findings", Delivered.env("[]",
                "FLEETMESH_STANDING_MAX_FINDINGS", Integer.toString(MAX_FINDINGS),
                "FLEETMESH_STANDING_RECOMPUTE_INTERVAL", "300ms",
                // were a fresh key's word worth anything, the swarm's attested findings would sink the honest peer
                "FLEETMESH_STANDING_WEIGHT_ATTESTED", "1.0",
                "FLEETMESH_STANDING_STRANGER_PENALTIES_PER_MINUTE", Integer.toString(STRANGER_PENALTIES)));
        vertx = Vertx.vertx();
        readToken = PeeringIT.token(node, "admin:read");
        writeToken = PeeringIT.token(node, "admin:write");
        nodeDid = PeeringIT.did(node);
        honest = new CustodyPeer(vertx, "honest").link(node, "[]");
        publisher = new CustodyPeer(vertx, "publisher").link(node, "[]");
        worker = new CustodyPeer(vertx, "worker").link(node, "[]");
        for (CustodyPeer p : List.of(honest, publisher, worker)) {
            Delivered.awaitPeer(node, p.shortDid(), e -> e.path("state").asText().equals("up"), "a link");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (CustodyPeer p : new CustodyPeer[] { honest, publisher, worker }) {
            if (p != null) {
                p.close();
            }
        }
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        if (node != null) {
            node.close();
        }
    }

    static Standings.Signer signer(CustodyPeer p) {
        return new Standings.Signer(p.peer.secrets.nostr().bytes(), PubKey.ofHex(p.pubkey()));
    }

    @Test
    @Order(1)
    void aForgedFindingIsKeptIgnoredAndItsPublisherIsPenalized() throws Exception {
        PubKey honestKey = PubKey.ofHex(honest.pubkey());
        Standings.Signer as = signer(publisher);
        Event counted = Standings.budgetFinding(as, publisher.peer.did(), honestKey, honest.peer.did(), 3, "forged");
        Event lie = Standings.budgetFinding(as, publisher.peer.did(), honestKey, honest.peer.did(), 0, "no violation");
        try (NostrClient c = NostrClient.connect(node)) {
            // a bad signature: the relay refuses it, the standing book keeps it as ignored
            c.send("[\"EVENT\"," + Keys.withBrokenSignature(counted) + "]");
            c.expectOk(counted.id().hex()).assertRefused("invalid: bad signature");
            JsonNode h = Standings.awaitSubject(node, honest.shortDid(),
                    s -> Standings.detail(s, counted.id().hex() + ":refused:").isPresent(), "the forged finding");
            JsonNode forged = Standings.detail(h, counted.id().hex()).orElseThrow();
            assertFalse(forged.path("counted").asBoolean(), forged.toString());
            assertTrue(forged.path("why").asText().contains("bad signature"), forged.toString());

            // well signed, its evidence false (no violation counted): stored and served, weighs nothing
            c.publishAndWait(lie).assertAccepted();
            List<JsonNode> served = c.query("lie", FilterSpec.of().ids(lie));
            assertEquals(1, served.size(), "the false finding is stored like any event");
            h = Standings.awaitSubject(node, honest.shortDid(), s -> Standings.detail(s, lie.id().hex()).isPresent(),
                    "the false finding");
            JsonNode ignored = Standings.detail(h, lie.id().hex()).orElseThrow();
            assertFalse(ignored.path("counted").asBoolean(), ignored.toString());
            assertTrue(ignored.path("why").asText().contains("FALSE"), ignored.toString());
            assertTrue(ignored.path("why").asText().contains("no violation"), ignored.toString());
            assertEquals(0, h.path("findings").path("counted").asInt(), h.toString());
            assertEquals(1.0, h.path("view_transit").asDouble(), h.toString());

            // its publisher gets the node's own S2 false-finding: counted, view_transit down to 1 - 0.5
            JsonNode p = Standings.awaitSubject(node, publisher.shortDid(),
                    s -> s.path("findings").path("counted").asInt() == 1, "a counted false-finding");
            JsonNode penalty = Standings.details(p, d -> d.path("counted").asBoolean()).get(0);
            assertEquals("false-finding", penalty.path("rule").asText(), penalty.toString());
            assertEquals("S2", penalty.path("severity").asText());
            assertEquals("transit", penalty.path("scope").asText());
            assertEquals(nodeDid, penalty.path("observer").asText(), "the node's own finding");
            assertEquals(0.5, p.path("view_transit").asDouble(), 1e-3, p.toString());
            assertEquals(1.0, p.path("view_compute").asDouble(), p.toString());
            // signed by the node and served: the evidence embeds the false finding for anyone to re-check
            List<JsonNode> signed = c.query("penalty", FilterSpec.of().ids(penalty.path("id").asText()));
            assertEquals(1, signed.size());
            assertEquals(1804, signed.get(0).path("kind").asInt());
            JsonNode evidence = NostrClient.tree(signed.get(0).path("content").asText());
            assertEquals(FindingEvidence.FALSE_FINDING, evidence.path("type").asText());
            assertEquals(lie.id().hex(), evidence.path("finding").path("id").asText());
            assertEquals(publisher.pubkey(), tag(signed.get(0), "p"));

            // 0.5 is below suspend-below 0.6: the node suspends its grant to the publisher and tells it
            JsonNode status = Delivered.awaitPeer(node, publisher.shortDid(), e -> e.path("suspended").isTextual(),
                    "a suspended grant");
            assertEquals(0.5, status.path("view_transit").asDouble(), 1e-3, status.toString());
            assertTrue(status.path("suspended").asText().contains("suspend-below"), status.toString());
            assertTrue(status.path("quarantined_until").isNull(), "suspended, not quarantined: " + status);
            String suspend = takeGrantMessage(publisher, GrantMessages.SUSPEND);
            assertTrue(suspend != null, "the publisher is told its grant is suspended");
            JsonNode hs = Delivered.peer(node, honest.shortDid()).orElseThrow();
            assertEquals(1.0, hs.path("view_transit").asDouble(), hs.toString());
            assertFalse(hs.has("suspended"), hs.toString());

            // a second false finding within the minute: kept, but no second penalty (one per publisher and minute)
            Event again = Standings.budgetFinding(as, publisher.peer.did(), honestKey, honest.peer.did(), 0, "again");
            c.publishAndWait(again).assertAccepted();
            barrier(c);
            JsonNode after = Standings.subject(Standings.standing(node), publisher.shortDid()).orElseThrow();
            assertEquals(1, after.path("findings").path("counted").asInt(), after.toString());
        }
    }

    @Test
    @Order(2)
    void aPeerThatRelaysAMalformedOrForgedFindingIsHeldToIt() throws Exception {
        try (MeshPeer sloppy = new MeshPeer(vertx, "sloppy")) {
            sloppy.link(node);
            sloppy.exchange();
            byte[] secret = sloppy.secrets.nostr().bytes();
            // a kind 1804 event that is no finding (no tags), and a finding whose signature is broken
            Event malformed = Events.sign(secret, Keys.now(), 1804, List.of(List.of("p", honest.pubkey())), "{}");
            Event forged = Standings.budgetFinding(new Standings.Signer(secret, PubKey.ofHex(
                    sloppy.secrets.publicKeys().nostr().hex())), sloppy.did(), PubKey.ofHex(honest.pubkey()),
                    honest.peer.did(), 2, "relayed");
            sloppy.send(sloppy.frame(1, List.of(malformed.json(), Keys.withBrokenSignature(forged))));
            // custody on: the node answers with its signed receipt, which names what it refused and why
            String receipt = sloppy.takeType("MESH-RECEIPT");
            assertTrue(receipt.contains(forged.id().hex()) && receipt.contains("invalid: bad signature"), receipt);
            assertFalse(receipt.contains("\"" + malformed.id().hex() + "\",\"invalid"), "the malformed one is stored");
            try (NostrClient c = NostrClient.connect(node)) {
                assertEquals(1, c.query("malformed", FilterSpec.of().ids(malformed)).size(), "stored and served");
            }

            // two S1 of the node's own: the malformed finding it published (signed, verifiable by anyone), and the
            // forgery it relayed (the node's word: kept here, not published)
            JsonNode s = Standings.awaitSubject(node, sloppy.shortDid(),
                    x -> x.path("findings").path("counted").asInt() == 2, "two S1 against the relaying peer");
            assertEquals(0.8, s.path("view_transit").asDouble(), 1e-3, s.toString());
            List<String> rules = new ArrayList<>();
            for (JsonNode d : Standings.details(s, d -> d.path("counted").asBoolean())) {
                assertEquals("S1", d.path("severity").asText(), d.toString());
                assertEquals(nodeDid, d.path("observer").asText(), d.toString());
                rules.add(d.path("rule").asText());
            }
            assertTrue(rules.containsAll(List.of("malformed-finding", "relayed-bad-signature")), rules.toString());
            JsonNode h = Standings.subject(Standings.standing(node), honest.shortDid()).orElseThrow();
            assertTrue(Standings.detail(h, forged.id().hex() + ":refused:").isPresent(), "the forgery kept: " + h);
            assertEquals(1.0, h.path("view_transit").asDouble(), h.toString());
            JsonNode status = Delivered.awaitPeer(node, sloppy.shortDid(),
                    e -> e.path("view_transit").asDouble() < 0.9, "the lower view in /mesh/status");
            assertFalse(status.has("suspended"), "0.8 only demotes: " + status);
        }
    }

    @Test
    @Order(3)
    void aComputeFindingMovesViewComputeOnly() throws Exception {
        Standings.Signer w = signer(worker);
        String module = "aa".repeat(32);
        String input = "bb".repeat(32);
        Event first = statement(w, module, input, "cc".repeat(32));
        Event second = statement(w, module, input, "dd".repeat(32));
        JsonNode before = Delivered.peer(node, worker.shortDid()).orElseThrow();

        ObjectNode body = (ObjectNode) NostrClient.tree(FindingEvidence.computeEquivocation(first, second));
        body.put("subject", worker.peer.did());
        assertEquals(401, post(body, null).statusCode(), "admin:write is needed, also from loopback");
        assertEquals(403, post(body, readToken).statusCode());
        ObjectNode notEquivocal = (ObjectNode) NostrClient.tree(FindingEvidence.computeEquivocation(first,
                sameResult(w, module, input, "cc".repeat(32))));
        notEquivocal.put("subject", worker.peer.did());
        HttpResponse<String> refused = post(notEquivocal, writeToken);
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("same result"), refused.body());
        ObjectNode noSubject = body.deepCopy();
        noSubject.remove("subject");
        assertEquals(400, post(noSubject, writeToken).statusCode());

        HttpResponse<String> made = post(body, writeToken);
        assertEquals(201, made.statusCode(), made.body());
        JsonNode answer = NostrClient.tree(made.body());
        assertEquals("compute", answer.path("scope").asText(), answer.toString());
        assertEquals("S2", answer.path("severity").asText());
        assertEquals("VERIFIED", answer.path("verdict").asText());

        JsonNode s = Standings.awaitSubject(node, worker.shortDid(), x -> x.path("view_compute").asDouble() < 1.0,
                "a lower view_compute");
        assertEquals(0.5, s.path("view_compute").asDouble(), 1e-3, s.toString());
        assertEquals(1.0, s.path("view_transit").asDouble(), "a compute finding never touches transit: " + s);
        assertEquals(answer.path("id").asText(), Standings.details(s, d -> d.path("counted").asBoolean()).get(0)
                .path("id").asText());
        // no action: compute views drive nothing (yet); the peer's tier and grant are as they were
        JsonNode status = Delivered.awaitPeer(node, worker.shortDid(), e -> e.path("view_compute").asDouble() < 1.0,
                "view_compute in /mesh/status");
        assertEquals(1.0, status.path("view_transit").asDouble(), status.toString());
        assertFalse(status.has("suspended"), status.toString());
        assertTrue(status.path("quarantined_until").isNull(), status.toString());
        assertTrue(status.path("tier").asInt() >= before.path("tier").asInt(), before + " then " + status);
        try (NostrClient c = NostrClient.connect(node)) {
            List<JsonNode> served = c.query("compute", FilterSpec.of().ids(answer.path("id").asText()));
            assertEquals(1, served.size());
            assertEquals("compute", tag(served.get(0), "scope"));
            assertEquals(worker.pubkey(), tag(served.get(0), "p"));
        }
    }

    /**
     * A penalty embeds the finding it is about, so one about a finding over the content limit cannot be signed: it
     * must not use the publisher's minute either (an outside audit found an oversized malformed finding first left the
     * publisher's next malformed finding of that minute without a penalty).
     */
    @Test
    @Order(4)
    void anOversizedMalformedFindingFirstDoesNotShieldTheNextOne() throws Exception {
        Standings.Signer k = Standings.Signer.fresh();
        Event shape = Standings.budgetFinding(k, k.did(), PubKey.ofHex(honest.pubkey()), honest.peer.did(), 3, "shape");
        String pad = "{\"type\":\"fleetmesh.budget\",\"pad\":\"" + "x".repeat(Finding.MAX_CONTENT_BYTES) + "\"}";
        Event oversized = Events.sign(k.secret(), Keys.now(), Finding.KIND, shape.tags(), pad);
        Event small = Events.sign(k.secret(), Keys.now(), Finding.KIND, shape.tags(), "{}");
        try (NostrClient c = NostrClient.connect(node)) {
            c.publishAndWait(oversized).assertAccepted();
            c.publishAndWait(small).assertAccepted();
            barrier(c);
        }
        JsonNode s = Standings.awaitSubject(node, k.did(),
                x -> x.path("findings").path("counted").asInt() >= 1, "a penalty for the small malformed finding");
        List<JsonNode> counted = Standings.details(s, d -> d.path("counted").asBoolean());
        assertEquals(1, counted.size(), s.toString());
        assertEquals("malformed-finding", counted.get(0).path("rule").asText(), s.toString());
        try (NostrClient c = NostrClient.connect(node)) {
            JsonNode penalty = c.query("penalty", FilterSpec.of().ids(counted.get(0).path("id").asText())).get(0);
            assertTrue(penalty.path("content").asText().contains(small.id().hex()), "about the small one: " + penalty);
        }
    }

    @Test
    @Order(5)
    void aSwarmOfFreshKeysPublishingFindingsAgainstAnHonestPeerMovesNothing() throws Exception {
        PubKey honestKey = PubKey.ofHex(honest.pubkey());
        long verifiedBefore = Standings.standing(node).path("findings").path("verified").asLong();
        int sent = 0;
        List<String> swarm = new ArrayList<>();
        try (NostrClient c = NostrClient.connect(node)) {
            for (int i = 0; i < 100; i++) {
                Standings.Signer k = Standings.Signer.fresh();
                swarm.add(k.did());
                // attested: the grant checks, the counts are the key's word
                c.publishAndWait(Standings.budgetFinding(k, k.did(), honestKey, honest.peer.did(), 20, "swarm " + i))
                        .assertAccepted();
                sent++;
                if (i % 4 == 0) {
                    // false: each earns its publisher a penalty, within the strangers' budget
                    c.publishAndWait(Standings.budgetFinding(k, k.did(), honestKey, honest.peer.did(), 0, "lie " + i))
                            .assertAccepted();
                    sent++;
                }
            }
        }
        long expected = verifiedBefore + sent;
        Standings.await(node, d -> d.path("findings").path("verified").asLong() >= expected, "every finding checked");
        // a recompute after the last one: the book is trimmed to max-findings
        MeshnodeProcess.sleep(1000);
        JsonNode doc = Standings.await(node, d -> records(d) <= MAX_FINDINGS, "at most max-findings records");

        JsonNode h = Standings.subject(doc, honest.shortDid()).orElseThrow();
        assertEquals(1.0, h.path("view_transit").asDouble(), h.toString());
        assertEquals(1.0, h.path("view_compute").asDouble(), h.toString());
        assertEquals(0, h.path("findings").path("counted").asInt(), h.toString());
        List<JsonNode> tierZero = Standings.details(h, d -> d.path("why").asText().contains("observer tier 0"));
        assertFalse(tierZero.isEmpty(), "the swarm's attested findings weigh nothing: " + h);
        JsonNode status = Delivered.peer(node, honest.shortDid()).orElseThrow();
        assertEquals(1.0, status.path("view_transit").asDouble(), status.toString());
        assertFalse(status.has("suspended"), status.toString());
        assertTrue(status.path("quarantined_until").isNull(), status.toString());

        // what a stranger can make the node sign: at most the strangers' budget per minute
        int penalized = 0;
        for (JsonNode s : doc.path("subjects")) {
            if (swarm.contains(s.path("did").asText()) && s.path("findings").path("counted").asInt() > 0) {
                penalized++;
            }
        }
        assertTrue(penalized >= 1 && penalized <= 2 * STRANGER_PENALTIES, penalized + " swarm keys penalized");
        // what counts is kept first: the publisher's penalty from the first test survives the trim
        JsonNode p = Standings.subject(doc, publisher.shortDid()).orElseThrow();
        assertEquals(0.5, p.path("view_transit").asDouble(), 1e-3, p.toString());
        assertTrue(records(doc) <= MAX_FINDINGS, records(doc) + " records");
        assertTrue(records(doc) >= MAX_FINDINGS / 2, "the book was filled and trimmed, not emptied: " + records(doc));
    }

    /** Records in the standing document (counted and ignored, every subject). */
    static int records(JsonNode doc) {
        int n = 0;
        for (JsonNode s : doc.path("subjects")) {
            n += s.path("findings").path("counted").asInt() + s.path("findings").path("ignored").asInt();
        }
        return n;
    }

    /**
     * Waits until a bad-signature finding sent now is recorded: findings are checked in order on one thread, so every
     * finding sent before it has been dealt with.
     */
    static void barrier(NostrClient c) {
        Standings.Signer k = Standings.Signer.fresh();
        Event b = Standings.budgetFinding(k, k.did(), PubKey.ofHex(honest.pubkey()), honest.peer.did(), 1, "barrier");
        c.send("[\"EVENT\"," + Keys.withBrokenSignature(b) + "]");
        c.expectOk(b.id().hex()).assertRefused("invalid: bad signature");
        Standings.awaitSubject(node, honest.shortDid(), s -> Standings.detail(s, b.id().hex() + ":refused:")
                .isPresent(), "the barrier");
    }

    /** A job statement (the compute-equivocation evidence's shape) signed by {@code w}. */
    static Event statement(Standings.Signer w, String module, String input, String output) {
        return Events.sign(w.secret(), Keys.now(), 1, List.of(List.of("module", module), List.of("input", input),
                List.of("output", output)), "job result " + output.substring(0, 8));
    }

    /** Another statement of the same result (a different event: other content). */
    static Event sameResult(Standings.Signer w, String module, String input, String output) {
        return Events.sign(w.secret(), Keys.now(), 1, List.of(List.of("module", module), List.of("input", input),
                List.of("output", output)), "the same result, stated again");
    }

    static HttpResponse<String> post(JsonNode body, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(node.httpUri().resolve("/mesh/findings"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return PeeringIT.send(b);
    }

    static String tag(JsonNode event, String name) {
        for (JsonNode t : event.path("tags")) {
            if (t.path(0).asText().equals(name)) {
                return t.path(1).asText();
            }
        }
        return null;
    }

    /** The next DIDComm grant message of {@code type} the node sent the peer (decrypted), within 20 s. */
    static String takeGrantMessage(CustodyPeer p, String type) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            String m = p.others.poll(100, TimeUnit.MILLISECONDS);
            if (m != null && m.startsWith("[\"MESH-DIDCOMM\"") && p.peer.grants.read(m).type().equals(type)) {
                return m;
            }
        }
        throw new AssertionError("no " + type + " from the node within 20 s; queued: " + p.others);
    }
}
