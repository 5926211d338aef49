package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Withholding and claim-mismatch evidence (docs/spec/sampling.md): verify accepts what a sampling round records and
 * refuses each tampering a third party could catch.
 */
class SamplingEvidenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final NodeEndpoints ENDPOINTS = NodeEndpoints.of("ws://127.0.0.1:1/", "ws://127.0.0.1:1/mesh",
            "http://127.0.0.1:1/didcomm");
    private static final NodeSecrets PEER = secrets(1);
    private static final NodeSecrets OTHER = secrets(4);
    private static final String PEER_DID = NodeDidDocument.of(PEER.publicKeys(), ENDPOINTS).did();
    private static final String OBSERVER_DID = NodeDidDocument.of(OTHER.publicKeys(), ENDPOINTS).did();
    private static final byte[] AUTHOR = fill(9);
    private static final long CLAIMED_AT = 1_800_000_000L;
    private static final long GRACE = 300;
    private static final Shard SHARD = new Shard("notes", new Filter(null, null, Set.of(1), Map.of(), null, null, null),
            Shard.Mode.ASSERTED);

    private static byte[] fill(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    private static NodeSecrets secrets(int b) {
        return NodeSecrets.of(new SecretKey(fill(b)), new SecretKey(fill(b + 1)), new SecretKey(fill(b + 2)));
    }

    private static Event note(long createdAt, String content) {
        return Events.sign(AUTHOR, createdAt, 1, List.of(), content);
    }

    private static List<Event> set(int n) {
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(note(CLAIMED_AT - 3600 + i, "event " + i));
        }
        return out;
    }

    private static List<Item> items(List<Event> events) {
        return events.stream().map(e -> new Item(e.createdAt(), Id.of(e.id().toBytes()))).sorted().toList();
    }

    private static Claim claim(Shard shard, List<Item> items, long createdAt, byte[] secret) throws ClaimException {
        return Claim.read(Claim.sign(shard, ClaimMismatch.figuresOf(items), createdAt, secret));
    }

    /** A peer asserting a shard of ten events, serving nine: the withheld one and the evidence of it. */
    private static String withholding(Event withheld, Claim claim, long grace) {
        List<Event> served = set(10).subList(1, 10);
        List<EventId> asked = new ArrayList<>(served.stream().map(Event::id).toList().subList(0, 3));
        asked.add(withheld.id());
        String req = Withholding.request("k3x9", asked);
        return new Withholding(PEER_DID, OBSERVER_DID, claim, withheld, req,
                Set.copyOf(asked.subList(0, 3)), true, grace, CLAIMED_AT + 60).json();
    }

    private static String realWithholding() throws Exception {
        List<Event> all = set(10);
        Claim claim = claim(SHARD, items(all.subList(1, 10)), CLAIMED_AT, PEER.nostr().bytes());
        return withholding(all.get(0), claim, GRACE);
    }

    private static String edit(String json, Consumer<ObjectNode> change) throws Exception {
        ObjectNode o = (ObjectNode) JSON.readTree(json);
        change.accept(o);
        return o.toString();
    }

    private static void refused(String json, String why) {
        EvidenceException e = assertThrows(EvidenceException.class, () -> Withholding.verify(json));
        assertTrue(e.getMessage().contains(why), "expected \"" + why + "\", got: " + e.getMessage());
    }

    @Test
    void realWithholdingEvidenceVerifies() throws Exception {
        String json = realWithholding();
        Withholding w = Withholding.verify(json);
        assertEquals(PEER_DID, w.subject());
        assertEquals(set(10).get(0).id(), w.event().id());
        assertEquals("notes", w.claim().shard().id());
        assertEquals(GRACE, w.grace());
        assertEquals(json, w.json(), "verify reads back what json wrote");
        JsonNode o = JSON.readTree(json);
        assertEquals("withholding", o.get("type").asText());
        assertEquals("S2", o.get("severity").asText());
        assertEquals("REQ", o.get("request").get(0).asText());
    }

    @Test
    void aTamperedClaimIsRefused() throws Exception {
        String json = realWithholding();
        refused(edit(json, o -> {
            ObjectNode c = (ObjectNode) o.get("claim");
            String sig = c.get("sig").asText();
            c.put("sig", (sig.charAt(0) == '0' ? "1" : "0") + sig.substring(1));
        }), "claim");
        refused(edit(json, o -> ((ObjectNode) o.get("claim")).put("kind", 1)), "claim");
        refused(edit(json, o -> o.put("claim", "nope")), "claim");
    }

    @Test
    void aReplicatedClaimPromisesNothing() throws Exception {
        List<Event> all = set(10);
        Shard replicated = new Shard("notes", SHARD.filter(), Shard.Mode.REPLICATED);
        Claim claim = claim(replicated, items(all.subList(1, 10)), CLAIMED_AT, PEER.nostr().bytes());
        refused(withholding(all.get(0), claim, GRACE), "not asserted");
    }

    @Test
    void aClaimNotSignedByTheSubjectIsRefused() throws Exception {
        List<Event> all = set(10);
        Claim claim = claim(SHARD, items(all.subList(1, 10)), CLAIMED_AT, OTHER.nostr().bytes());
        refused(withholding(all.get(0), claim, GRACE), "not a Nostr key of the subject");
        refused(edit(realWithholding(), o -> o.put("subject", OBSERVER_DID)), "not a Nostr key of the subject");
        refused(edit(realWithholding(), o -> o.put("subject", "did:example:123")), "does not resolve");
    }

    @Test
    void aTamperedEventIsRefused() throws Exception {
        String json = realWithholding();
        refused(edit(json, o -> {
            ObjectNode e = (ObjectNode) o.get("event");
            String sig = e.get("sig").asText();
            e.put("sig", (sig.charAt(0) == '0' ? "1" : "0") + sig.substring(1));
        }), "event: invalid");
        refused(edit(json, o -> ((ObjectNode) o.get("event")).put("content", "changed")), "event: invalid");
    }

    @Test
    void anEventOutsideTheShardIsRefused() throws Exception {
        List<Event> all = set(10);
        Claim claim = claim(SHARD, items(all.subList(1, 10)), CLAIMED_AT, PEER.nostr().bytes());
        Event reaction = Events.sign(AUTHOR, CLAIMED_AT - 3600, 7, List.of(), "+");
        refused(withholding(reaction, claim, GRACE), "does not match the claim's filter");
    }

    @Test
    void anEventWithinTheGraceIsRefused() throws Exception {
        List<Event> all = set(10);
        Claim claim = claim(SHARD, items(all.subList(1, 10)), CLAIMED_AT, PEER.nostr().bytes());
        Event late = note(CLAIMED_AT - GRACE + 1, "late");
        refused(withholding(late, claim, GRACE), "is not at least 300 s before");
        // the grace written in the evidence counts, and a verifier may ask for more
        String json = realWithholding();
        refused(edit(json, o -> o.put("grace", 4000)), "is not at least 4000 s before");
        assertThrows(EvidenceException.class, () -> Withholding.verify(json, 600));
        Withholding.verify(json, 300);
    }

    @Test
    void aRequestThatDidNotAskForTheEventIsRefused() throws Exception {
        String json = realWithholding();
        refused(edit(json, o -> {
            ArrayNode r = (ArrayNode) o.get("request");
            ArrayNode ids = (ArrayNode) r.get(2).get("ids");
            ids.remove(ids.size() - 1);
        }), "request");
        refused(edit(json, o -> ((ObjectNode) o.get("request").get(2)).put("limit", 1)), "request");
        refused(edit(json, o -> ((ObjectNode) o.get("request").get(2)).putArray("kinds").add(7)), "request");
        refused(edit(json, o -> ((ArrayNode) o.get("request")).set(0, JSON.getNodeFactory().textNode("COUNT"))),
                "request");
        refused(edit(json, o -> o.remove("request")), "request");
    }

    @Test
    void anAnswerThatHoldsTheEventOrDidNotEndIsRefused() throws Exception {
        String json = realWithholding();
        String withheld = set(10).get(0).id().hex();
        refused(edit(json, o -> ((ArrayNode) o.get("answer").get("ids")).add(withheld)), "returned the event");
        refused(edit(json, o -> ((ObjectNode) o.get("answer")).put("eose", false)), "EOSE");
        refused(edit(json, o -> ((ObjectNode) o.get("answer")).remove("eose")), "eose");
        refused(edit(json, o -> ((ArrayNode) o.get("answer").get("ids")).add("xyz")), "answer.ids");
    }

    @Test
    void anObservationBeforeTheClaimIsRefused() throws Exception {
        refused(edit(realWithholding(), o -> o.put("observed_at", CLAIMED_AT - 1)), "before the claim");
    }

    @Test
    void theTypeAndSeverityAreChecked() throws Exception {
        refused(edit(realWithholding(), o -> o.put("type", "claim-mismatch")), "type");
        refused(edit(realWithholding(), o -> o.put("severity", "S1")), "severity");
        refused("[]", "object");
        refused("{", "not JSON");
    }

    // claim mismatch

    private static Claim claimWith(List<Item> items, long count, boolean fakeFingerprint, boolean fakeRoot)
            throws ClaimException {
        ShardFigures real = ClaimMismatch.figuresOf(items);
        byte[] fp = real.fingerprint();
        byte[] root = real.root();
        if (fakeFingerprint) {
            fp[0] ^= 1;
        }
        if (fakeRoot) {
            root[0] ^= 1;
        }
        return Claim.read(Claim.sign(SHARD, new ShardFigures(count, fp, root), CLAIMED_AT, PEER.nostr().bytes()));
    }

    private static String mismatch(Claim claim, List<Item> served) {
        String req = "[{\"kinds\":[1],\"until\":" + CLAIMED_AT + ",\"limit\":1001}]";
        return new ClaimMismatch(PEER_DID, OBSERVER_DID, claim, req, served, CLAIMED_AT + 5).json();
    }

    /** The peer serves ten events and claims their fingerprint with a root of no set. */
    private static String realMismatch() throws Exception {
        List<Item> served = items(set(10));
        Claim claim = claimWith(served, 10, false, true);
        assertTrue(ClaimMismatch.mismatches(claim, served));
        return mismatch(claim, served);
    }

    private static void mismatchRefused(String json, String why) {
        EvidenceException e = assertThrows(EvidenceException.class, () -> ClaimMismatch.verify(json));
        assertTrue(e.getMessage().contains(why), "expected \"" + why + "\", got: " + e.getMessage());
    }

    @Test
    void aClaimWithAFalseRootFingerprintOrCountIsEvidence() throws Exception {
        String json = realMismatch();
        ClaimMismatch m = ClaimMismatch.verify(json);
        assertEquals("fingerprint", m.identifiedBy());
        assertEquals(10, m.figures().count());
        assertFalse(Arrays.equals(m.figures().root(), m.claim().figures().root()));
        assertEquals(json, m.json());
        List<Item> served = items(set(10));
        ClaimMismatch byRoot = ClaimMismatch.verify(mismatch(claimWith(served, 10, true, false), served));
        assertEquals("root", byRoot.identifiedBy());
        ClaimMismatch count = ClaimMismatch.verify(mismatch(claimWith(served, 11, false, false), served));
        assertEquals("root", count.identifiedBy());
    }

    @Test
    void aSetThatChangedSinceTheClaimIsNeverEvidence() throws Exception {
        List<Event> all = set(11);
        Claim claim = claim(SHARD, items(all.subList(0, 10)), CLAIMED_AT, PEER.nostr().bytes());
        List<Item> more = items(all);
        List<Item> swapped = items(all.subList(1, 11)); // one came, one went (a replacement): same count
        assertFalse(ClaimMismatch.mismatches(claim, more), "an event arrived after the claim");
        assertFalse(ClaimMismatch.mismatches(claim, items(all.subList(0, 9))), "an event went after the claim");
        assertFalse(ClaimMismatch.mismatches(claim, swapped), "one came and one went");
        assertFalse(ClaimMismatch.mismatches(claim, items(all.subList(0, 10))), "the claimed set itself");
        mismatchRefused(mismatch(claim, more), "not evidence");
        mismatchRefused(mismatch(claim, swapped), "not evidence");
        mismatchRefused(mismatch(claim, items(all.subList(0, 10))), "has the claim's figures");
    }

    @Test
    void aTamperedServedListIsRefused() throws Exception {
        String json = realMismatch();
        mismatchRefused(edit(json, o -> {
            ArrayNode s = (ArrayNode) o.get("served");
            JsonNode first = s.remove(0);
            s.add(first);
        }), "Negentropy order");
        mismatchRefused(edit(json, o -> ((ArrayNode) o.get("served").get(9)).set(0,
                JSON.getNodeFactory().numberNode(CLAIMED_AT + 1))), "after the claim");
        mismatchRefused(edit(json, o -> ((ObjectNode) o.get("figures")).put("root", "00".repeat(32))), "figures");
        mismatchRefused(edit(json, o -> ((ArrayNode) o.get("served")).remove(0)), "figures");
        mismatchRefused(edit(json, o -> ((ArrayNode) o.get("served")).add("x")), "served");
        mismatchRefused(edit(json, o -> o.put("identified_by", "root")), "identified_by");
        mismatchRefused(edit(json, o -> o.put("subject", OBSERVER_DID)), "not a Nostr key of the subject");
        mismatchRefused(edit(json, o -> o.put("type", "withholding")), "type");
        mismatchRefused(edit(json, o -> o.put("observed_at", CLAIMED_AT - 1)), "before the claim");
    }
}
