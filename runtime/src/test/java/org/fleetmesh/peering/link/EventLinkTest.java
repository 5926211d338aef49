package org.fleetmesh.peering.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.budget.ViolationPolicy;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantTerms;
import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.spi.peers.Evidence;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Node A's side of a link with peer B, over a recording wire, a recording intake and a clock the test moves. */
class EventLinkTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final NodeSecrets A = secrets(0x11, 0x12, 0x13);
    static final NodeSecrets B = secrets(0x14, 0x15, 0x16);
    static final NodeSecrets C = secrets(0x17, 0x18, 0x19);
    static final String A_DID = did(A);
    static final String B_DID = did(B);
    static final long T0_MILLIS = 1_767_225_600_000L;
    /** Tier 0: 4 events and 4 KiB per 10 s; tier 1: 40 events and 40 KiB; climb after 2 clean windows. */
    static final TierPolicy TIERS = new TierPolicy(List.of(new Tier(0, 4096, 4, 1, 1), new Tier(1, 40960, 40, 1, 1)),
            10, 2);
    /** Two violations are tolerated, one more lowers the rates, the fourth in 60 s quarantines for 30 s. */
    static final LinkPolicy POLICY = new LinkPolicy(TIERS, new ViolationPolicy(2, 1, 60), Duration.ofSeconds(30),
            Duration.ofHours(1), 10, 65536, Duration.ofHours(1));

    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final AtomicLong millis = new AtomicLong(T0_MILLIS);
    final MemoryLinkLedger ledger = new MemoryLinkLedger();
    final RecordingIntake intake = new RecordingIntake();
    EventLinks node;

    @BeforeEach
    void node() {
        node = new EventLinks(A_DID, A, POLICY, intake, ledger, Runnable::run, nanos::get, millis::get, 100);
    }

    static NodeSecrets secrets(int n, int a, int t) {
        return NodeSecrets.of(new SecretKey(fill(n)), new SecretKey(fill(a)), new SecretKey(fill(t)));
    }

    static byte[] fill(int b) {
        byte[] x = new byte[32];
        Arrays.fill(x, (byte) b);
        return x;
    }

    static String did(NodeSecrets s) {
        return NodeDidDocument.of(s.publicKeys(), NodeEndpoints.of("ws://x.example/", "ws://x.example/mesh",
                "http://x.example/didcomm")).did();
    }

    static PeerIdentity identity(NodeSecrets s) {
        return new PeerIdentity(did(s), s.publicKeys().transport(), Optional.of(s.publicKeys().nostr()));
    }

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
        millis.addAndGet(d.toMillis());
    }

    /** What the intake answers: every event accepted unless its id or signature is wrong. */
    static final class RecordingIntake implements Intake {
        final List<List<Event>> fromPeer = new ArrayList<>();
        final List<Event> own = new ArrayList<>();

        @Override
        public synchronized CompletionStage<List<Ingest.Outcome>> fromPeer(List<Event> events, String did) {
            fromPeer.add(events);
            return CompletableFuture.completedFuture(events.stream().map(e -> {
                String bad = Events.verify(e);
                return bad == null ? new Ingest.Outcome(e.id(), Ingest.Status.ACCEPTED, "")
                        : new Ingest.Outcome(e.id(), Ingest.Status.REFUSED, bad);
            }).toList());
        }

        @Override
        public synchronized CompletionStage<List<Ingest.Outcome>> own(Event event) {
            own.add(event);
            return CompletableFuture.completedFuture(List.of(new Ingest.Outcome(event.id(), Ingest.Status.ACCEPTED, "")));
        }

        synchronized int peerEvents() {
            return fromPeer.stream().mapToInt(List::size).sum();
        }
    }

    /** The link as the session sees it: what it sent, and how it ended. */
    static final class Wire implements EventLink.Wire {
        final PeerIdentity peer;
        final List<String> sent = new ArrayList<>();
        Refusal ended;

        Wire(PeerIdentity peer) {
            this.peer = peer;
        }

        @Override
        public void send(String text) {
            sent.add(text);
        }

        @Override
        public void end(Refusal refusal) {
            ended = refusal;
        }

        @Override
        public PeerIdentity peer() {
            return peer;
        }

        String last() {
            return sent.get(sent.size() - 1);
        }

        List<String> ofType(String type) {
            return sent.stream().filter(s -> s.startsWith("[\"" + type + "\"")).toList();
        }
    }

    /** B's side of the DIDComm grant messages. */
    static GrantMessages atB() {
        return new GrantMessages(B_DID, A_DID, B.agreement().bytes());
    }

    static List<String> events(int n, int from) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Events.sign(B.nostr().bytes(), 1_767_225_600L + from + i, 1, List.of(), "note " + (from + i)).json());
        }
        return out;
    }

    static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }

    @Test
    void onLinkUpTheNodeSignsStoresAndOffersTheTierDefaultGrant() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink session = node.open(w);
        assertEquals(1, intake.own.size(), "the grant is stored as the node's own event");
        Grant stored = Grant.parse(intake.own.get(0), T0_MILLIS / 1000);
        GrantTerms t = stored.terms();
        assertEquals(new GrantTerms(PeerIdentity.shortForm(A_DID), PeerIdentity.shortForm(B_DID), 4096, 4, 10, 0,
                T0_MILLIS / 1000 + 3600), t);
        assertEquals(A.publicKeys().nostr(), stored.grantor());

        GrantMessages.Received offer = atB().read(w.ofType("MESH-DIDCOMM").get(0));
        assertEquals(GrantMessages.OFFER, offer.type());
        assertEquals(stored.event().json(), offer.grant(T0_MILLIS / 1000).event().json());

        // B accepts: A records the agreement
        assertFalse(node.known(PeerIdentity.shortForm(B_DID)).orElseThrow().givenAccepted());
        session.receive(atB().accept(stored.event().id().hex(), offer.id(), T0_MILLIS / 1000));
        assertTrue(node.known(PeerIdentity.shortForm(B_DID)).orElseThrow().givenAccepted());
    }

    @Test
    void eventsWithinTheGrantAreIngestedAndAnsweredOneByOne() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        List<String> evs = new ArrayList<>(events(2, 0));
        String forged = evs.get(1).replace("note 1", "note X");
        evs.set(1, forged);
        evs.add("{\"kind\":\"not an event\"}");
        s.receive(EventFrame.encode(5, evs));
        assertEquals(2, intake.peerEvents(), "the unreadable event never reaches the relay");
        JsonNode answer = json(w.last());
        assertEquals("MESH-EVENTS-OK", answer.get(0).asText());
        assertEquals(5, answer.get(1).get("seq").asLong());
        JsonNode rows = answer.get(2);
        assertEquals(3, rows.size());
        assertEquals(json(evs.get(0)).get("id").asText(), rows.get(0).get(0).asText());
        assertTrue(rows.get(0).get(1).asBoolean());
        assertFalse(rows.get(1).get(1).asBoolean());
        assertTrue(rows.get(1).get(2).asText().startsWith("invalid:"), rows.get(1).toString());
        assertTrue(rows.get(2).get(0).isNull());
        assertTrue(rows.get(2).get(2).asText().startsWith("invalid:"), rows.get(2).toString());
        assertNull(w.ended);
    }

    @Test
    void overTheGrantNothingPastTheHeaderIsReadAndTheAnswerSaysWhenItRefills() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        s.receive(EventFrame.encode(1, events(4, 0)));
        assertEquals(4, intake.peerEvents());
        // the grant's 4 events are spent; the next frame's body is garbage, yet the answer is about the budget
        s.receive("[\"MESH-EVENTS\",{\"seq\":2,\"count\":1},[{\"not\":");
        JsonNode refused = json(w.last());
        assertEquals("MESH-EVENTS-REFUSED", refused.get(0).asText());
        assertEquals(2, refused.get(1).get("seq").asLong());
        assertEquals(2500, refused.get(1).get("retry_ms").asLong(), "one event of 4 per 10 s refills in 2.5 s");
        assertEquals("rate-limited: over the grant of 4096 bytes and 4 events per 10 s; refills in 2500 ms",
                refused.get(2).asText());
        assertEquals(4, intake.peerEvents(), "nothing of the refused frame reached the relay");
        advance(Duration.ofMillis(2500));
        s.receive(EventFrame.encode(3, events(1, 10)));
        assertEquals("MESH-EVENTS-OK", json(w.last()).get(0).asText());
        assertEquals(5, intake.peerEvents());
    }

    @Test
    void aFrameLargerThanTheWholeGrantIsToldItNeverFits() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        String big = "[\"MESH-EVENTS\",{\"seq\":1,\"count\":1},[{\"content\":\"" + "x".repeat(5000) + "\"}]]";
        s.receive(big);
        JsonNode refused = json(w.last());
        assertTrue(refused.get(1).get("retry_ms").isNull());
        assertTrue(refused.get(2).asText().startsWith("rate-limited: " + big.length() + " bytes and 1 events never fit"),
                refused.get(2).asText());
    }

    @Test
    void badInputIsRefusedWithAReasonAndTheLinkStays() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        s.receive("garbage");
        assertTrue(w.last().startsWith("[\"MESH-ERR\",\"malformed: not JSON (Unrecognized token 'garbage'"), w.last());
        s.receive("{\"an\":\"object\"}");
        assertEquals("[\"MESH-ERR\",\"malformed: a link message is a JSON array starting with its type\"]", w.last());
        s.receive("[\"MESH-EVENTS\",{\"seq\":8,\"count\":2},[{}]]");
        assertEquals("[\"MESH-EVENTS-REFUSED\",{\"seq\":8,\"retry_ms\":null},\"invalid: the header says 2 events, the"
                + " frame holds 1\"]", w.last());
        assertEquals(0, intake.peerEvents());
        advance(Duration.ofSeconds(61)); // a new violation period
        s.receive("[\"MESH-FOO\",1]");
        assertEquals("[\"MESH-ERR\",\"unsupported: message type \\\"MESH-FOO\\\" is not served on this link\"]", w.last());
        int before = w.sent.size();
        s.receive("[\"MESH-ERR\",\"whatever\"]");
        assertEquals(before, w.sent.size(), "a MESH-ERR is never answered");
        assertNull(w.ended, "three violations are within threshold plus tolerance");
        assertEquals(3, node.known(PeerIdentity.shortForm(B_DID)).orElseThrow().violationsTotal());
    }

    @Test
    void violationsPastThresholdAndToleranceQuarantineWithEvidenceAndRelinksAreRefusedUntilItEnds() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        String grantId = intake.own.get(0).id().hex();
        s.receive(EventFrame.encode(1, events(4, 0)));
        for (int i = 0; i < 3; i++) {
            s.receive(EventFrame.encode(2 + i, events(1, 10 + i)));
            assertNull(w.ended);
        }
        s.receive(EventFrame.encode(9, events(1, 20)));
        assertNotNull(w.ended);
        assertEquals(Refusal.Kind.QUARANTINED, w.ended.kind());
        assertTrue(w.ended.detail().startsWith("until 2026-01-01T00:00:30Z after 4 violations in 60 s of the grant "
                + grantId), w.ended.detail());
        GrantMessages.Received suspend = atB().read(w.ofType("MESH-DIDCOMM").get(1));
        assertEquals(GrantMessages.SUSPEND, suspend.type());
        assertEquals(grantId, suspend.text("grant_id"));

        String b = PeerIdentity.shortForm(B_DID);
        List<Evidence> evidence = ledger.evidence(b, 10);
        assertEquals(1, evidence.size());
        Evidence e = evidence.get(0);
        assertEquals("S3", e.severity());
        assertEquals(4, e.violations());
        assertEquals(grantId, e.grantId());
        assertEquals(intake.own.get(0).json(), e.grant());
        assertEquals(T0_MILLIS + 30_000, e.quarantinedUntil());
        JsonNode detail = json(e.detail());
        assertEquals(4, detail.get("refused_frames").asLong());
        assertEquals(4, detail.get("refused_events").asLong());
        assertEquals(4, detail.get("grant_events").asLong());
        assertEquals(T0_MILLIS + 30_000, ledger.load(b).orElseThrow().quarantinedUntil(), "the quarantine is persisted");

        // frames after the end are not read
        s.receive(EventFrame.encode(10, events(1, 30)));
        assertEquals(4, intake.peerEvents());

        // a node restarted on the same ledger still refuses the peer, until the quarantine ends
        EventLinks restarted = new EventLinks(A_DID, A, POLICY, intake, ledger, Runnable::run, nanos::get, millis::get,
                100);
        Wire again = new Wire(identity(B));
        restarted.open(again);
        assertEquals(Refusal.Kind.QUARANTINED, again.ended.kind());
        assertEquals("until 2026-01-01T00:00:30Z", again.ended.detail());
        assertTrue(restarted.quarantinedUntil(b).isPresent());
        advance(Duration.ofSeconds(30));
        Wire later = new Wire(identity(B));
        restarted.open(later);
        assertNull(later.ended);
        assertTrue(restarted.quarantinedUntil(b).isEmpty());
    }

    @Test
    void aRelinkRefillsNothing() throws Exception {
        Wire w = new Wire(identity(B));
        node.open(w).receive(EventFrame.encode(1, events(4, 0)));
        w = new Wire(identity(B));
        EventLink second = node.open(w);
        second.receive(EventFrame.encode(1, events(1, 10)));
        assertEquals("MESH-EVENTS-REFUSED", json(w.last()).get(0).asText());
    }

    @Test
    void aPingTooLongForTheHeartbeatIsMalformedNotAnUnservedType() {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        s.receive("[\"MESH-PING\"," + "[".repeat(300) + "]".repeat(300) + "]");
        assertEquals("[\"MESH-ERR\",\"malformed: MESH-PING is [\\\"MESH-PING\\\", {\\\"n\\\": <integer 0..2^53-1>}]\"]",
                w.last());
        assertNull(w.ended);
    }

    @Test
    void thePeerAndTheKeyItProvedAreKnownAfterItsLinkClosed() {
        String b = PeerIdentity.shortForm(B_DID);
        assertTrue(node.lastLinked(b).isEmpty(), "never linked");
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        assertEquals(identity(B).nostr(), node.lastLinked(b).orElseThrow().nostr(), "on its open link");
        s.closed();
        assertTrue(node.linked().isEmpty());
        assertEquals(identity(B).nostr(), node.lastLinked(b).orElseThrow().nostr(),
                "a finding signed after a quarantine closed the link still has the key the peer proved");
    }

    /** B's grant to A: 9,000 bytes and 90 events per 60 s, tier 1, valid 600 s from {@code now}. */
    static Grant grantOfB(long now) {
        return Grant.sign(new GrantTerms(PeerIdentity.shortForm(B_DID), PeerIdentity.shortForm(A_DID), 9000, 90, 60, 1,
                now + 600), B.nostr().bytes(), now);
    }

    @Test
    void aSuspendOfAnotherGrantThanTheOneInForceIsRefusedAndSuspendsNothing() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        long now = T0_MILLIS / 1000;
        Grant fromB = grantOfB(now);
        s.receive(atB().offer(fromB, Optional.empty(), now));
        assertEquals(GrantMessages.ACCEPT, atB().read(w.last()).type());
        s.receive(atB().suspend("00".repeat(32), "x\n22:00:00.000 ERROR [fake] injected", now + 60, now));
        assertEquals("[\"MESH-ERR\",\"invalid: DIDComm message: suspend names grant " + "00".repeat(32)
                + ", not the grant in force on this link\"]", w.last());
        advance(Duration.ofSeconds(11)); // the tiny test grant (4 KiB in 10 s) refills
        int before = w.sent.size();
        s.receive(atB().suspend(fromB.event().id().hex(), "quarantined", now + 60, now + 11));
        assertEquals(before, w.sent.size(), "the grant in force is suspended without an answer: " + w.last());
        assertNull(w.ended);
    }

    @Test
    void aPeersGrantIsVerifiedStoredAndAccepted() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        long now = T0_MILLIS / 1000;
        Grant fromB = grantOfB(now);
        s.receive(atB().offer(fromB, Optional.empty(), now));
        assertEquals(List.of(List.of(fromB.event())), intake.fromPeer, "stored like any event from the peer");
        GrantMessages.Received accept = atB().read(w.last());
        assertEquals(GrantMessages.ACCEPT, accept.type());
        assertEquals(fromB.event().id().hex(), accept.text("grant_id"));
        Map<String, Object> status = new HashMap<>();
        node.describe(PeerIdentity.shortForm(B_DID), status);
        @SuppressWarnings("unchecked")
        Map<String, Object> out = (Map<String, Object>) status.get("grant_out");
        assertEquals(90L, out.get("events"));
        assertTrue(node.known(PeerIdentity.shortForm(B_DID)).orElseThrow().pacer().paced());

        // a grant signed by another key than the one B proved is refused with the reason (after a refill: each
        // DIDComm message spends some of the tiny test grant's 4 KiB)
        advance(Duration.ofSeconds(10));
        Grant forged = Grant.sign(new GrantTerms(PeerIdentity.shortForm(B_DID), PeerIdentity.shortForm(A_DID), 9000, 90,
                60, 1, now + 600), C.nostr().bytes(), now);
        s.receive(atB().offer(forged, Optional.empty(), now));
        assertEquals("[\"MESH-ERR\",\"invalid: the grant is not signed by the Nostr key the peer proved on this link\"]",
                w.last());
        // and one for another link
        advance(Duration.ofSeconds(10));
        Grant elsewhere = Grant.sign(new GrantTerms(PeerIdentity.shortForm(B_DID), PeerIdentity.shortForm(did(C)), 9000,
                90, 60, 1, now + 600), B.nostr().bytes(), now);
        s.receive(atB().offer(elsewhere, Optional.empty(), now));
        assertTrue(w.last().startsWith("[\"MESH-ERR\",\"invalid: the grant's link is "), w.last());
        assertEquals(1, intake.fromPeer.size());
    }

    @Test
    void aDidcommMessageFromAnotherSenderIsRefused() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        GrantMessages fromC = new GrantMessages(did(C), A_DID, C.agreement().bytes());
        s.receive(fromC.accept("00", "t", T0_MILLIS / 1000));
        assertTrue(w.last().startsWith("[\"MESH-ERR\",\"invalid: DIDComm message: unresolvable DID: "
                + PeerIdentity.shortForm(did(C))), w.last());
        s.receive("[\"MESH-DIDCOMM\",{\"ciphertext\":1}]");
        assertTrue(w.last().startsWith("[\"MESH-ERR\",\"invalid: DIDComm message: malformed"), w.last());
    }

    @Test
    void cleanWindowsClimbATierAndTheRevisedGrantIsOffered() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        String b = PeerIdentity.shortForm(B_DID);
        node.windowEnded();
        assertEquals(0, node.known(b).orElseThrow().tier().level());
        node.windowEnded();
        assertEquals(1, node.known(b).orElseThrow().tier().level(), "two clean windows climb one tier");
        assertEquals(1, ledger.load(b).orElseThrow().tier(), "the tier is persisted");
        List<String> didcomm = w.ofType("MESH-DIDCOMM");
        GrantMessages.Received first = atB().read(didcomm.get(0));
        GrantMessages.Received revise = atB().read(didcomm.get(didcomm.size() - 1));
        assertEquals(GrantMessages.REVISE, revise.type());
        assertEquals(first.id(), revise.thread(), "a revision continues the first offer's thread");
        Grant g = revise.grant(T0_MILLIS / 1000);
        assertEquals(1, g.terms().tier());
        assertEquals(40, g.terms().eventsPerWindow());
        assertEquals(2, intake.own.size());

        // the tier-1 budget meters now; spending past it drops the peer back to tier 0 with a new grant
        s.receive(EventFrame.encode(1, events(10, 0)));
        assertEquals("MESH-EVENTS-OK", json(w.last()).get(0).asText());
        for (int i = 0; i < 4; i++) {
            s.receive(EventFrame.encode(2 + i, events(10, 100 + 10 * i)));
        }
        assertEquals("MESH-EVENTS-REFUSED", json(w.ofType("MESH-EVENTS-REFUSED").get(0)).get(0).asText());
        assertEquals(0, node.known(b).orElseThrow().tier().level(), "a violation drops a tier");
        List<String> after = w.ofType("MESH-DIDCOMM");
        assertEquals(0, atB().read(after.get(after.size() - 1)).grant(T0_MILLIS / 1000).terms().tier());
    }

    @Test
    void theStatusShowsTierGrantsUseViolationsAndStrain() throws Exception {
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        s.receive(EventFrame.encode(1, events(3, 0)));
        s.receive("garbage");
        Map<String, Object> status = new HashMap<>();
        node.describe(PeerIdentity.shortForm(B_DID), status);
        assertEquals(0, status.get("tier"));
        assertEquals(1L, status.get("violations"));
        @SuppressWarnings("unchecked")
        Map<String, Object> used = (Map<String, Object>) status.get("used");
        assertEquals(3L, used.get("in_events"));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> strain = (Map<String, Map<String, Object>>) status.get("strain");
        assertEquals(3L, strain.get("in").get("events"));
        assertTrue((Long) strain.get("in").get("bytes") > 300);
        assertNull(status.get("grant_out"));
        Map<String, Object> unknown = new HashMap<>();
        node.describe("did:key:z6MkunknownUnknown", unknown);
        assertTrue(unknown.containsKey("tier") && unknown.get("tier") == null);
    }

    @Test
    void peersHeldInMemoryAreBoundedAndAnEvictedOneComesBackAsItLeft() throws Exception {
        EventLinks small = new EventLinks(A_DID, A, POLICY, intake, ledger, Runnable::run, nanos::get, millis::get, 2);
        List<NodeSecrets> peers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            NodeSecrets p = secrets(0x30 + i, 0x40 + i, 0x50 + i);
            peers.add(p);
            EventLink l = small.open(new Wire(identity(p)));
            l.receive("garbage");
            l.closed();
            assertTrue(small.accounts().size() <= 2, "at most max-peers accounts in memory");
        }
        String first = PeerIdentity.shortForm(did(peers.get(0)));
        assertTrue(small.known(first).isEmpty(), "the first peer was evicted");
        assertEquals(1, ledger.load(first).orElseThrow().violations());
        small.open(new Wire(identity(peers.get(0))));
        assertEquals(1, small.known(first).orElseThrow().violationsTotal(), "reloaded as it left");
    }

    @Test
    void aRegisteredProtocolGetsItsMessagesUnpackedAndFromThePeerAndCanAnswer() throws Exception {
        String prefix = "https://fleetmesh.org/compute/1.0/";
        List<GrantMessages.Received> got = new ArrayList<>();
        List<EventLink> opened = new ArrayList<>();
        node.handle(prefix, new EventLinks.DidcommHandler() {
            @Override
            public void opened(EventLink link) {
                opened.add(link);
            }

            @Override
            public void received(EventLink link, GrantMessages.Received m) {
                got.add(m);
                link.send(prefix + "key", Optional.of(m.id()), JSON.createObjectNode().put("k", "v"));
            }
        });
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        assertEquals(List.of(s), opened, "told of the link");
        s.receive(atB().pack(prefix + "request", Optional.empty(), JSON.createObjectNode().put("x", 1),
                T0_MILLIS / 1000));
        assertEquals(1, got.size());
        assertEquals(prefix + "request", got.get(0).type());
        assertEquals(1, got.get(0).body().get("x").asInt());
        GrantMessages.Received answer = atB().read(w.last(), t -> t.startsWith(prefix));
        assertEquals(prefix + "key", answer.type());
        assertEquals(got.get(0).id(), answer.thread());
        assertNull(w.ended);
    }

    @Test
    void aDidcommTypeOfNoRegisteredProtocolIsStillRefused() throws Exception {
        node.handle("https://fleetmesh.org/compute/1.0/", new EventLinks.DidcommHandler() {
            @Override
            public void opened(EventLink link) {
            }

            @Override
            public void received(EventLink link, GrantMessages.Received m) {
                throw new AssertionError("not this one");
            }
        });
        Wire w = new Wire(identity(B));
        EventLink s = node.open(w);
        s.receive(atB().pack("https://example.org/other/1.0/x", Optional.empty(), JSON.createObjectNode(),
                T0_MILLIS / 1000));
        assertTrue(w.last().startsWith("[\"MESH-ERR\",\"invalid: DIDComm message: "), w.last());
        assertTrue(w.last().contains("unsupported: message type https://example.org/other/1.0/x is not served"),
                w.last());
    }
}
