package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.PubKey;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A sampling round against an in-memory peer relay (NIP-01 REQ semantics: newest first, lowest id on ties, limit):
 * an honest peer earns nothing, a withholder is caught at the rate the math predicts with evidence that verifies, a
 * claim with a false root is a mismatch, and rounds without a verdict say why.
 */
class SamplingRoundTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final NodeEndpoints ENDPOINTS = NodeEndpoints.of("ws://127.0.0.1:1/", "ws://127.0.0.1:1/mesh",
            "http://127.0.0.1:1/didcomm");
    private static final NodeSecrets PEER = secrets(1);
    private static final String PEER_DID = NodeDidDocument.of(PEER.publicKeys(), ENDPOINTS).did();
    private static final String SELF_DID = NodeDidDocument.of(secrets(4).publicKeys(), ENDPOINTS).did();
    private static final byte[] AUTHOR = fill(9);
    private static final long NOW = 1_800_000_000L;
    private static final long GRACE = 300;
    private static final Shard SHARD = new Shard("notes", new Filter(null, null, Set.of(1), Map.of(), null, null, null),
            Shard.Mode.ASSERTED);
    private static final SamplingRound.Settings SETTINGS = new SamplingRound.Settings(46, GRACE, 1000, 64, 5);

    private static byte[] fill(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    private static NodeSecrets secrets(int b) {
        return NodeSecrets.of(new SecretKey(fill(b)), new SecretKey(fill(b + 1)), new SecretKey(fill(b + 2)));
    }

    private static List<Event> notes(int n, long from) {
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Events.sign(AUTHOR, from + i / 4, 1, List.of(), "note " + from + " " + i));
        }
        return out;
    }

    private static Storage storage(Collection<Event> events) {
        SortedVector.Builder b = SortedVector.builder();
        events.forEach(e -> b.insert(e.createdAt(), Id.of(e.id().toBytes())));
        return b.seal();
    }

    /** A NIP-01 relay over a list of events, minus the ones it hides. */
    static class MemoryRelay implements SamplingRound.PeerRelay {
        final List<Event> events = new ArrayList<>();
        final Set<EventId> hidden = new HashSet<>();
        final List<String> requests = new ArrayList<>();
        boolean eose = true;

        @Override
        public SamplingRound.Answer req(String subscription, String message, int maxEvents) {
            requests.add(message);
            ClientMessage.Req req;
            try {
                req = (ClientMessage.Req) new MessageParser(MessageParser.Limits.DEFAULT).parse(message);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertEquals(subscription, req.subscriptionId());
            Map<EventId, Event> out = new HashMap<>();
            for (Filter f : req.filters()) {
                List<Event> m = events.stream().filter(e -> !hidden.contains(e.id()) && f.matches(e))
                        .sorted(Comparator.comparingLong(Event::createdAt).reversed()
                                .thenComparing(e -> e.id().hex()))
                        .limit(f.limit() == null ? Long.MAX_VALUE : f.limit()).toList();
                m.forEach(e -> out.put(e.id(), e));
            }
            return new SamplingRound.Answer(new ArrayList<>(out.values()), eose, eose ? null : "connection closed");
        }
    }

    /** This node: holds {@code events}. */
    static SamplingRound.Local local(List<Event> events) {
        Map<EventId, Event> byId = new HashMap<>();
        events.forEach(e -> byId.put(e.id(), e));
        return new SamplingRound.Local() {
            @Override
            public Storage items(Claim claim, long latest) {
                return storage(events.stream().filter(e -> e.createdAt() <= latest && claim.shard().filter().matches(e))
                        .toList());
            }

            @Override
            public Map<EventId, Event> events(Collection<EventId> ids) {
                Map<EventId, Event> out = new HashMap<>();
                ids.forEach(id -> {
                    if (byId.containsKey(id)) {
                        out.put(id, byId.get(id));
                    }
                });
                return out;
            }
        };
    }

    /** The peer claims what it serves: an honest claim over its visible set. */
    private static Event honestClaim(MemoryRelay peer, Shard shard, long at) {
        List<Event> visible = peer.events.stream().filter(e -> !peer.hidden.contains(e.id()) && e.kind() != Claim.KIND
                && shard.filter().matches(e) && e.createdAt() <= at).toList();
        return Claim.sign(shard, ShardFigures.of(storage(visible)), at, PEER.nostr().bytes());
    }

    private static List<PubKey> keys() throws EvidenceException {
        return SamplingRound.subjectKeys(PEER_DID);
    }

    private SamplingRound.Outcome round(MemoryRelay peer, List<Event> mine, Random random) throws EvidenceException {
        return new SamplingRound(SETTINGS, random, SELF_DID).run(PEER_DID, keys(), peer, local(mine), id -> false, NOW);
    }

    @Test
    void anHonestPeerEarnsNothing() throws Exception {
        List<Event> all = notes(500, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        SamplingRound.Outcome o = round(peer, all, new Random(1));
        assertEquals(1, o.claims());
        assertEquals(1, o.asserted());
        assertEquals(46, o.samples());
        assertEquals(0, o.missing());
        assertEquals(1, o.checked().size(), "the claim was fetched whole and matched");
        assertTrue(o.found().isEmpty(), o.found().toString());
        assertTrue(o.problems().isEmpty(), o.problems().toString());
    }

    @Test
    void theSamplesAreAnOrdinaryIdLookup() throws Exception {
        List<Event> all = notes(100, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        round(peer, all, new Random(2));
        String sample = peer.requests.stream().filter(r -> r.contains("\"ids\"")).findFirst().orElseThrow();
        JsonNode r = JSON.readTree(sample);
        assertEquals(3, r.size(), "one filter: " + sample);
        assertEquals(Set.of("ids"), fieldNames(r.get(2)), "only ids: " + sample);
        assertEquals(46, r.get(2).get("ids").size());
        assertTrue(r.get(1).asText().matches("[0-9a-z]{8}"), "a client-like subscription id: " + sample);
    }

    private static Set<String> fieldNames(JsonNode o) {
        Set<String> out = new HashSet<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void anEventItsAuthorDeletedThereIsNotWithholding() throws Exception {
        // the peer honoured its author's NIP-09 deletion of an event this node still holds (the kind 5 never reached
        // this node: federation and replication carry the shard's kinds only): its absence is no evidence
        List<Event> all = notes(40, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        Event gone = all.get(7);
        peer.hidden.add(gone.id());
        peer.events.add(Events.sign(AUTHOR, NOW - 3600, 5, List.of(List.of("e", gone.id().hex())), ""));
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        SamplingRound.Outcome o = round(peer, all, new Random(7));
        assertEquals(40, o.samples(), "every event is drawn, the deleted one too");
        assertEquals(0, o.missing());
        assertTrue(o.found().isEmpty(), o.found().toString());
        assertTrue(o.problems().toString().contains("deleted there by their authors"), o.problems().toString());
    }

    @Test
    void aDeletionByAnotherKeyExcusesNothing() throws Exception {
        List<Event> all = notes(40, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        Event gone = all.get(7);
        peer.hidden.add(gone.id());
        peer.events.add(Events.sign(fill(10), NOW - 3600, 5, List.of(List.of("e", gone.id().hex())), ""));
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        SamplingRound.Outcome o = round(peer, all, new Random(7));
        assertEquals(1, o.missing());
        assertEquals(1, o.found().size());
        assertEquals(gone.id(), Withholding.verify(o.found().get(0).json(), GRACE).event().id());
    }

    @Test
    void aDeletionInTheAuthorsNameWithABadSignatureExcusesNothing() throws Exception {
        List<Event> all = notes(40, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        Event gone = all.get(7);
        peer.hidden.add(gone.id());
        List<List<String>> tags = List.of(List.of("e", gone.id().hex()));
        Event real = Events.sign(AUTHOR, NOW - 3600, 5, tags, "");
        Event other = Events.sign(fill(10), NOW - 3600, 5, tags, "");
        // the author's pubkey and the right id, another key's signature: a withholder's forgery
        peer.events.add(new Event(real.id(), real.pubkey(), real.createdAt(), 5, real.tags(), real.content(), other.sig()));
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        SamplingRound.Outcome o = round(peer, all, new Random(7));
        assertEquals(1, o.missing());
        assertEquals(gone.id(), Withholding.verify(o.found().get(0).json(), GRACE).event().id());
    }

    @Test
    void aWithholderIsCaughtWithEvidenceThatVerifies() throws Exception {
        List<Event> all = notes(200, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        for (int i = 0; i < 40; i++) {
            peer.hidden.add(all.get(i * 5).id()); // 20% withheld: a round of 46 misses with p < 1e-4
        }
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        SamplingRound.Outcome o = round(peer, all, new Random(3));
        assertTrue(o.missing() > 0);
        assertEquals(Math.min(5, o.missing()), o.found().size());
        for (SamplingRound.Found f : o.found()) {
            Withholding w = Withholding.verify(f.json(), GRACE);
            assertTrue(peer.hidden.contains(w.event().id()));
            assertTrue(f.reason().startsWith("withholding: shard notes, event "));
        }
        assertEquals(1, o.checked().size(), "its own claim matches what it serves");
    }

    @Test
    void theRoundCatchesAtTheRateTheMathPredicts() throws Exception {
        int n = 400, w = 4, k = 46, rounds = 1500;
        List<Event> all = notes(n, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        for (int i = 0; i < w; i++) {
            peer.hidden.add(all.get(i * 97).id());
        }
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        SamplingRound.Settings s = new SamplingRound.Settings(k, GRACE, 0, 64, 1);
        Random random = new Random(4);
        SamplingRound.Local mine = local(all);
        List<PubKey> keys = keys();
        int caught = 0;
        for (int r = 0; r < rounds; r++) {
            SamplingRound.Outcome o = new SamplingRound(s, random, SELF_DID).run(PEER_DID, keys, peer, mine, id -> true,
                    NOW);
            assertEquals(k, o.samples());
            if (o.missing() > 0) {
                caught++;
            }
        }
        double p = Detection.detect(n, w, k);
        double sigma = Math.sqrt(p * (1 - p) / rounds);
        double rate = (double) caught / rounds;
        System.out.printf("SamplingRound n=%d w=%d k=%d: %d rounds, caught in %.4f, exact %.4f, sigma %.4f%n", n, w, k,
                rounds, rate, p, sigma);
        assertTrue(Math.abs(rate - p) <= 5 * sigma, "rate " + rate + ", exact " + p + ", sigma " + sigma);
    }

    @Test
    void aClaimWithAFalseRootIsAMismatch() throws Exception {
        List<Event> all = notes(120, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        ShardFigures real = ShardFigures.of(storage(all));
        byte[] root = real.root();
        root[31] ^= 0x40;
        peer.events.add(Claim.sign(SHARD, new ShardFigures(real.count(), real.fingerprint(), root), NOW - 10,
                PEER.nostr().bytes()));
        SamplingRound.Outcome o = round(peer, all, new Random(5));
        assertEquals(0, o.missing());
        assertEquals(1, o.found().size(), o.problems().toString());
        assertEquals("claim mismatch: shard notes", o.found().get(0).reason());
        ClaimMismatch m = ClaimMismatch.verify(o.found().get(0).json());
        assertEquals("fingerprint", m.identifiedBy());
        assertEquals(120, m.served().size());
        // fetched once: a later round skips the claim it checked
        SamplingRound.Outcome again = new SamplingRound(SETTINGS, new Random(6), SELF_DID).run(PEER_DID, keys(), peer,
                local(all), o.checked()::contains, NOW);
        assertTrue(again.found().isEmpty());
        assertTrue(again.checked().isEmpty());
    }

    @Test
    void eventsThatArriveAfterTheClaimAreNoMismatch() throws Exception {
        List<Event> all = notes(120, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        peer.events.addAll(notes(3, NOW - 5000)); // old events that reached the peer after it claimed
        SamplingRound.Outcome o = round(peer, all, new Random(7));
        assertTrue(o.found().isEmpty(), o.found().toString());
    }

    @Test
    void aPagedRelayIsReadWholeOrNotJudged() throws Exception {
        List<Event> all = notes(120, NOW - 7200);
        MemoryRelay capped = new MemoryRelay() {
            @Override
            public SamplingRound.Answer req(String subscription, String message, int maxEvents) {
                SamplingRound.Answer a = super.req(subscription, message, maxEvents);
                List<Event> newest = a.events().stream().sorted(Comparator.comparingLong(Event::createdAt).reversed())
                        .limit(50).toList();
                return new SamplingRound.Answer(newest, a.eose(), a.problem());
            }
        };
        capped.events.addAll(all);
        ShardFigures real = ShardFigures.of(storage(all));
        byte[] root = real.root();
        root[0] ^= 1;
        capped.events.add(Claim.sign(SHARD, new ShardFigures(real.count(), real.fingerprint(), root), NOW - 10,
                PEER.nostr().bytes()));
        SamplingRound.Outcome o = round(capped, all, new Random(8));
        assertTrue(o.found().isEmpty(), "a relay that pages at 50 shows no complete set: " + o.found());
        assertTrue(o.checked().isEmpty());
    }

    @Test
    void replicatedClaimsAreNotSampled() throws Exception {
        List<Event> all = notes(100, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all.subList(0, 50));
        Shard replicated = new Shard("notes", SHARD.filter(), Shard.Mode.REPLICATED);
        peer.events.add(honestClaim(peer, replicated, NOW - 10));
        SamplingRound.Outcome o = round(peer, all, new Random(9));
        assertEquals(1, o.claims());
        assertEquals(0, o.asserted());
        assertEquals(0, o.samples());
        assertTrue(o.found().isEmpty());
    }

    @Test
    void eventsWithinTheGraceAreNotSampled() throws Exception {
        List<Event> recent = notes(100, NOW - 200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.add(honestClaim(peer, SHARD, NOW - 10)); // the peer has none of them yet
        SamplingRound.Outcome o = round(peer, recent, new Random(10));
        assertEquals(1, o.asserted());
        assertEquals(0, o.samples());
        assertTrue(o.found().isEmpty());
    }

    @Test
    void anAnswerWithoutEoseIsNoVerdict() throws Exception {
        List<Event> all = notes(100, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        peer.events.add(honestClaim(peer, SHARD, NOW - 10));
        peer.hidden.addAll(all.stream().map(Event::id).toList());
        peer.eose = false;
        SamplingRound.Outcome o = round(peer, all, new Random(11));
        assertTrue(o.found().isEmpty());
        assertEquals(0, o.samples());
        assertFalse(o.problems().isEmpty());
        assertTrue(o.problems().stream().anyMatch(p -> p.contains("no EOSE")), o.problems().toString());
    }

    @Test
    void claimsByOtherKeysAndBrokenClaimsAreIgnored() throws Exception {
        List<Event> all = notes(100, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.add(Claim.sign(SHARD, ShardFigures.of(storage(all)), NOW - 10, fill(77)));
        SamplingRound.Outcome o = round(peer, all, new Random(12));
        assertEquals(0, o.claims());
        assertTrue(o.found().isEmpty());
    }

    @Test
    void aClaimDatedAheadOfThisNodesClockIsNotJudged() throws Exception {
        List<Event> all = notes(100, NOW - 7200);
        MemoryRelay peer = new MemoryRelay();
        peer.events.addAll(all);
        peer.hidden.addAll(all.stream().map(Event::id).toList());
        peer.events.add(Claim.sign(SHARD, ShardFigures.of(storage(all)), NOW + 100, PEER.nostr().bytes()));
        SamplingRound.Outcome o = round(peer, all, new Random(13));
        assertTrue(o.found().isEmpty(), "evidence observed before its claim would not verify");
        assertTrue(o.problems().stream().anyMatch(p -> p.contains("100 s ahead")), o.problems().toString());
    }
}
