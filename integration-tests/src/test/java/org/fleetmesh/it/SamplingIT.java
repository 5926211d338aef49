package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.shards.ClaimMismatch;
import org.fleetmesh.shards.Detection;
import org.fleetmesh.shards.Shard;
import org.fleetmesh.shards.ShardFigures;
import org.fleetmesh.shards.Withholding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * Sampling catches a peer that asserts a shard while withholding part of it (docs/spec/sampling.md): a real meshnode
 * declares a {@link RoguePeer} (a real NIP-01 relay with node keys, serving 99% of a 1,000-event shard it asserts
 * whole) and samples it every second with the default 46 samples; the rogue is caught within the rounds the math
 * predicts for P(miss) <= 1e-6, the evidence from the admin API verifies with {@link Withholding#verify}, and the
 * samples reached the rogue as ordinary id lookups. A second shard whose claim names a root of no set it serves is a
 * claim mismatch. A third shard, which the node does not declare, is sampled from the node's store.
 */
class SamplingIT {
    static final int N = 1000;
    static final int WITHHELD = 10;
    static final int K = 46;
    static final long GRACE = 60;
    static MeshnodeProcess node;
    static Vertx vertx;
    static RoguePeer rogue;
    static String readToken;
    static Keys author = Keys.fresh();
    static Keys other = Keys.fresh();
    static Keys third = Keys.fresh();
    static List<Event> undeclared = new ArrayList<>();
    static List<Event> shard = new ArrayList<>();
    static Set<EventId> withheld = new HashSet<>();
    static Event withholdingClaim;
    static Event falseClaim;

    static Shard shard(String id, Keys k) {
        return new Shard(id, new Filter(null, Set.of(PubKey.ofHex(k.pubkey())), Set.of(1), Map.of(), null, null, null),
                Shard.Mode.ASSERTED);
    }

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        rogue = new RoguePeer(vertx, "withholder");
        long now = Keys.now();
        for (int i = 0; i < N; i++) {
            shard.add(author.note(now - 7200 + i, "sampled " + i));
        }
        Random r = new Random(13);
        while (withheld.size() < WITHHELD) {
            withheld.add(shard.get(r.nextInt(N)).id());
        }
        rogue.serve(shard);
        rogue.withhold(withheld);
        withholdingClaim = rogue.claim(shard("it-sampled", author), now);
        // a second shard, served whole, claimed with its fingerprint and a root of no set
        List<Event> second = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            second.add(other.note(now - 5000 + i, "second " + i));
        }
        rogue.serve(second);
        Event honest = rogue.claim(shard("it-second", other), now);
        ShardFigures real = org.fleetmesh.shards.Claim.read(honest).figures();
        byte[] root = real.root();
        root[0] ^= 1;
        falseClaim = rogue.claim(shard("it-second", other), new ShardFigures(real.count(), real.fingerprint(), root),
                now + 1);

        // a third shard the node does not declare (drawn from its store): 20% withheld
        for (int i = 0; i < 200; i++) {
            undeclared.add(third.note(now - 4000 + i, "undeclared " + i));
        }
        rogue.serve(undeclared);
        List<EventId> hidden = new ArrayList<>();
        for (int i = 0; i < 200; i += 5) {
            hidden.add(undeclared.get(i).id());
        }
        rogue.withhold(hidden);
        rogue.claim(shard("it-undeclared", third), now);

        node = MeshnodeProcess.start("sampling", Delivered.env("[]", "FLEETMESH_PEERS", rogue.peerSetting(),
                "FLEETMESH_SAMPLING_INTERVAL", "1s", "FLEETMESH_SAMPLING_SAMPLES", Integer.toString(K),
                "FLEETMESH_SAMPLING_GRACE", GRACE + "s", "FLEETMESH_SHARDS",
                "[{\"id\":\"it-sampled\",\"filter\":{\"kinds\":[1],\"authors\":[\"" + author.pubkey()
                        + "\"]},\"mode\":\"asserted\"}]"));
        readToken = PeeringIT.token(node, "admin:read");
        try (NostrClient c = NostrClient.connect(node)) {
            List<Event> all = new ArrayList<>(shard);
            all.addAll(undeclared);
            for (Event e : all) {
                c.publish(e);
            }
            for (Event e : all) {
                c.expectOk(e.id().hex()).assertAccepted();
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
        if (rogue != null) {
            rogue.close();
        }
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    static String subject() {
        return PeerIdentity.shortForm(rogue.did());
    }

    static List<JsonNode> evidence(String type) {
        HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(node.httpUri()
                .resolve("/mesh/peers/" + subject() + "/evidence")).header("Authorization", "Bearer " + readToken).GET());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode all = NostrClient.tree(r.body());
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : all.path("evidence")) {
            if (type.equals(e.path("detail").path("type").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    static List<JsonNode> awaitEvidence(String type, Predicate<List<JsonNode>> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        List<JsonNode> last = List.of();
        while (System.nanoTime() < deadline) {
            last = evidence(type);
            if (done.test(last)) {
                return last;
            }
            MeshnodeProcess.sleep(200);
        }
        throw new AssertionError("no " + type + " evidence within 180 s; status: "
                + Delivered.peer(node, subject()).map(JsonNode::toString).orElse("none") + "\n" + node.logTail(40));
    }

    @Test
    void aOnePercentWithholderIsCaughtWithinTheRoundsTheMathPredicts() throws Exception {
        long predicted = Detection.roundsFor(N, WITHHELD, K, 1e-6);
        assertEquals(30, predicted, "ln(1e-6) / ln(C(990,46)/C(1000,46))");
        List<JsonNode> found = awaitEvidence("withholding",
                l -> l.stream().anyMatch(e -> e.path("reason").asText().contains("shard it-sampled,")));
        found = found.stream().filter(e -> e.path("reason").asText().contains("shard it-sampled,")).toList();

        // which sample round first asked the rogue for an event it withholds: counted at the rogue itself
        // the rounds' id lookups for this shard (those for the others hold other authors' events)
        List<String> asked = rogue.idRequests().stream()
                .filter(r -> shard.stream().anyMatch(e -> r.contains(e.id().hex()))).toList();
        int firstHit = -1;
        for (int i = 0; i < asked.size() && firstHit < 0; i++) {
            for (EventId w : withheld) {
                if (asked.get(i).contains(w.hex())) {
                    firstHit = i + 1;
                    break;
                }
            }
        }
        assertTrue(firstHit >= 1, "a sample asked for a withheld event");
        assertTrue(firstHit <= predicted, "caught in round " + firstHit + ", the math allows " + predicted);
        System.out.printf("SamplingIT: 1%% withholder (n=%d, w=%d, k=%d) caught in round %d; bound for P(miss)<=1e-6: %d"
                + "; P(detect) per round %.4f%n", N, WITHHELD, K, firstHit, predicted, Detection.detect(N, WITHHELD, K));

        JsonNode record = found.get(0);
        assertEquals("S2", record.path("severity").asText(), record.toString());
        assertTrue(record.path("reason").asText().startsWith("withholding: shard it-sampled, event "), record.toString());
        Withholding w = Withholding.verify(record.path("detail").toString(), GRACE);
        assertTrue(withheld.contains(w.event().id()), "the evidence names a withheld event");
        assertEquals(withholdingClaim.id(), w.claim().event().id());
        assertEquals(rogue.did(), w.subject());
        assertEquals(PeeringIT.status(node).path("did").asText(), PeerIdentity.shortForm(w.observer()));

        // the samples were ordinary id lookups on unauthenticated connections
        for (String m : rogue.received) {
            assertFalse(m.startsWith("[\"AUTH\""), m);
            assertFalse(m.startsWith("[\"EVENT\""), m);
        }
        for (String req : asked) {
            JsonNode r = NostrClient.tree(req);
            assertEquals(3, r.size(), req);
            assertEquals(1, r.get(2).size(), "only ids: " + req);
            assertTrue(r.get(2).path("ids").size() <= K, req);
        }

        JsonNode sampling = Delivered.awaitPeer(node, subject(), p -> p.path("sampling").path("evidence").asLong() >= 1,
                "sampling evidence in the status").path("sampling");
        assertTrue(sampling.path("rounds").asLong() >= firstHit, sampling.toString());
        assertTrue(sampling.path("samples").asLong() >= K, sampling.toString());
        assertTrue(sampling.path("missing").asLong() >= 1, sampling.toString());
        assertTrue(sampling.path("last_round").isNumber(), sampling.toString());
        assertEquals(3, sampling.path("asserted").asLong(), sampling.toString());
    }

    @Test
    void aShardThisNodeDoesNotDeclareIsSampledFromItsStore() throws Exception {
        List<JsonNode> found = awaitEvidence("withholding",
                l -> l.stream().anyMatch(e -> e.path("reason").asText().contains("shard it-undeclared,")));
        JsonNode record = found.stream().filter(e -> e.path("reason").asText().contains("shard it-undeclared,"))
                .findFirst().orElseThrow();
        Withholding w = Withholding.verify(record.path("detail").toString(), GRACE);
        assertEquals("it-undeclared", w.claim().shard().id());
        assertTrue(undeclared.stream().anyMatch(e -> e.id().equals(w.event().id())));

        // bounded: one record per false claim, however many rounds find more of its 40 withheld events
        long rounds = Delivered.peer(node, subject()).orElseThrow().path("sampling").path("rounds").asLong();
        JsonNode later = Delivered.awaitPeer(node, subject(),
                p -> p.path("sampling").path("rounds").asLong() >= rounds + 3, "three more rounds").path("sampling");
        assertTrue(later.path("missing").asLong() > 1, later.toString());
        long records = evidence("withholding").stream()
                .filter(e -> e.path("reason").asText().contains("shard it-undeclared,")).count();
        assertEquals(1, records, "one withholding record for the one claim of it-undeclared");
    }

    @Test
    void aClaimWhoseRootIsOfNoServedSetIsAMismatch() throws Exception {
        JsonNode record = awaitEvidence("claim-mismatch", l -> !l.isEmpty()).get(0);
        assertEquals("S2", record.path("severity").asText());
        assertEquals("claim mismatch: shard it-second", record.path("reason").asText(), record.toString());
        ClaimMismatch m = ClaimMismatch.verify(record.path("detail").toString());
        assertEquals(falseClaim.id(), m.claim().event().id());
        assertEquals("fingerprint", m.identifiedBy());
        assertEquals(60, m.served().size());
        // the honest claim of the withheld shard is never a mismatch: it describes what the rogue serves
        assertTrue(evidence("claim-mismatch").stream()
                .noneMatch(e -> e.path("reason").asText().contains("it-sampled")));
    }

    @Test
    void aBadSamplingSettingStopsTheStartWithItsReason() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> MeshnodeProcess.start("sampling-bad", Map.of("FLEETMESH_SAMPLING_SAMPLES", "0")).close());
        assertTrue(e.getMessage().contains("fleetmesh.sampling (samples, grace, check-max): samples per round are 1..1000"),
                e.getMessage());
    }
}
