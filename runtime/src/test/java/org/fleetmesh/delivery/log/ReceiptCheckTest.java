package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.fleetmesh.delivery.log.CustodyBreach.Kind;
import org.fleetmesh.delivery.log.ReceiptCheck.Breach;
import org.fleetmesh.delivery.log.ReceiptCheck.Frame;
import org.fleetmesh.delivery.log.ReceiptCheck.Mirror;
import org.fleetmesh.delivery.log.ReceiptCheck.Ok;
import org.fleetmesh.delivery.log.ReceiptCheck.Result;
import org.fleetmesh.delivery.log.TestReceiver.Answer;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The sender's checks: an honest receiver passes every frame; each lie of a receiver is named by its breach kind,
 * and the evidence rechecks on its own (CustodyBreach.verify).
 */
class ReceiptCheckTest {
    private static final long NOW = 1_767_225_600_000L;

    private static Result check(Mirror mirror, Frame frame, Set<EventId> already, Event receipt, List<byte[]> consistency,
            List<EventId> appended) {
        return ReceiptCheck.check(mirror, frame, already, receipt, consistency, appended, NOW);
    }

    private static Result check(Mirror mirror, Frame frame, Answer a) {
        return check(mirror, frame, Set.of(), a.receipt().event(), a.consistency(), a.appended());
    }

    /** The result is a breach of {@code kind}, and its evidence shows that breach to a third party. */
    private static Breach assertBreach(Kind kind, Result r) {
        Breach b = assertInstanceOf(Breach.class, r, "expected a " + kind.word() + " breach");
        assertEquals(kind, b.kind(), b.detail());
        CustodyBreach.Verdict v = CustodyBreach.verify(b.evidence());
        assertTrue(v.holds(), "evidence does not recheck: " + v.why() + "\n" + b.evidence());
        assertEquals(kind, v.kind());
        JsonNode o = LogJson.read(b.evidence(), "evidence");
        assertEquals("fleetmesh.custody-breach", o.get("type").asText());
        assertEquals(kind.word(), o.get("breach").asText());
        assertEquals(TestReceiver.PEER, o.get("peer").asText());
        for (String member : new String[] { "detail", "receiver", "sender", "receipt", "previous", "consistency", "appended",
                "frame", "compact_range", "expected", "at" }) {
            assertTrue(o.has(member), member);
        }
        return b;
    }

    /** A receipt the receiver signs with whatever fields a lie needs. */
    private static Event lie(EventId prev, long seq, long size, byte[] root, long bytes) {
        return Receipt.sign(TestReceiver.RECEIVER_SECRET, 1_767_225_700L, TestReceiver.SENDER, prev, seq, size, root, bytes,
                List.of(), TestReceiver.ZERO_AUX).event();
    }

    @Test
    void anHonestReceiverPassesFramesWithDuplicatesRefusalsAndEmptyAppends() {
        TestReceiver rx = new TestReceiver();
        Mirror mirror = rx.mirror(0);

        Frame f1 = TestReceiver.frame(1, 0, 1, 2);
        Ok ok1 = assertInstanceOf(Ok.class, check(mirror, f1, rx.take(f1)));
        assertEquals(3, ok1.range().size());
        assertEquals(List.of(TestReceiver.id(0), TestReceiver.id(1), TestReceiver.id(2)),
                ok1.appended().stream().map(ReceiptCheck.FrameEvent::id).toList());
        mirror = mirror.next(ok1);

        // 2 is already a leaf, 4 is refused, 3 appears twice
        Frame f2 = TestReceiver.frame(2, 2, 3, 3, 4);
        Answer a2 = rx.take(f2, Set.of(TestReceiver.id(4)));
        Ok ok2 = assertInstanceOf(Ok.class, check(mirror, f2, Set.of(TestReceiver.id(2)), a2.receipt().event(),
                a2.consistency(), a2.appended()));
        assertEquals(List.of(TestReceiver.id(3)), ok2.appended().stream().map(ReceiptCheck.FrameEvent::id).toList());
        assertEquals(List.of(new Receipt.Rejected(TestReceiver.id(4), "invalid: bad signature")), ok2.rejected());
        assertEquals(200 + 0 + 200 + 1 + 200 + 2 + 200 + 3, ok2.receipt().bytes());
        mirror = mirror.next(ok2);

        // nothing appended: same size, empty proof, still a receipt
        Frame f3 = TestReceiver.frame(3, 4);
        Answer a3 = rx.take(f3, Set.of(TestReceiver.id(4)));
        Ok ok3 = assertInstanceOf(Ok.class, check(mirror, f3, a3));
        assertEquals(4, ok3.range().size());
        assertEquals(List.of(), a3.consistency());
        mirror = mirror.next(ok3);

        // a catch-up receipt of a frame the sender no longer holds
        Answer a4 = rx.take(TestReceiver.frame(4, 5, 6, 7, 8, 9));
        Ok ok4 = assertInstanceOf(Ok.class, check(mirror, null, Set.of(), a4.receipt().event(), a4.consistency(), a4.appended()));
        assertArrayEquals(Merkle.root(ReceiptCheck.leafHashes(rx.leaves)), ok4.range().root());
    }

    @Test
    void forgedAndMisSignedReceiptsAreSignatureBreaches() {
        TestReceiver rx = new TestReceiver();
        Frame f = TestReceiver.frame(1, 0, 1);
        Answer a = rx.take(f);
        Event e = a.receipt().event();
        Event edited = new Event(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content().replace("\n2\n", "\n3\n"), e.sig());
        assertBreach(Kind.SIGNATURE, check(rx.mirror(0), f, Set.of(), edited, a.consistency(), a.appended()));
        Event otherSigner = Events.sign(TestReceiver.SENDER_SECRET, e.createdAt(), e.kind(), e.tags(), e.content());
        assertBreach(Kind.SIGNATURE, check(rx.mirror(0), f, Set.of(), otherSigner, a.consistency(), a.appended()));
        Event wrongKind = Events.sign(TestReceiver.RECEIVER_SECRET, e.createdAt(), 1, e.tags(), e.content());
        assertBreach(Kind.SIGNATURE, check(rx.mirror(0), f, Set.of(), wrongKind, a.consistency(), a.appended()));
    }

    @Test
    void wrongSenderWrongSeqAndBadContentAreFormatBreaches() {
        TestReceiver rx = new TestReceiver();
        Frame f = TestReceiver.frame(1, 0, 1);
        Answer a = rx.take(f);
        Event e = a.receipt().event();
        // receipted to someone else (origin and p agree with each other, not with this sender)
        Event toOther = Receipt.sign(TestReceiver.RECEIVER_SECRET, e.createdAt(), TestReceiver.RECEIVER, null, 1, 2,
                a.receipt().root(), a.receipt().bytes(), List.of(), TestReceiver.ZERO_AUX).event();
        assertBreach(Kind.FORMAT, check(rx.mirror(0), f, Set.of(), toOther, a.consistency(), a.appended()));
        assertBreach(Kind.FORMAT, check(rx.mirror(0), TestReceiver.frame(2, 0, 1), Set.of(), e, a.consistency(), a.appended()));
        Event noCheckpoint = Events.sign(TestReceiver.RECEIVER_SECRET, e.createdAt(), e.kind(), e.tags(), "hello");
        assertBreach(Kind.FORMAT, check(rx.mirror(0), f, Set.of(), noCheckpoint, a.consistency(), a.appended()));
    }

    @Test
    void brokenPrevLinksArePrevBreaches() {
        TestReceiver rx = new TestReceiver();
        Frame f1 = TestReceiver.frame(1, 0);
        Answer a1 = rx.take(f1);
        Receipt r1 = a1.receipt();
        assertBreach(Kind.PREV, check(rx.mirror(0), f1, Set.of(),
                lie(TestReceiver.id(50), 1, r1.size(), r1.root(), r1.bytes()), a1.consistency(), a1.appended()));
        Frame f2 = TestReceiver.frame(2, 1);
        Answer a2 = rx.take(f2);
        Receipt r2 = a2.receipt();
        Mirror m1 = rx.mirror(1);
        assertBreach(Kind.PREV, check(m1, f2, Set.of(), lie(null, 2, r2.size(), r2.root(), r2.bytes()), a2.consistency(),
                a2.appended()));
        assertBreach(Kind.PREV, check(m1, f2, Set.of(), lie(TestReceiver.id(50), 2, r2.size(), r2.root(), r2.bytes()),
                a2.consistency(), a2.appended()));
        assertInstanceOf(Ok.class, check(m1, f2, a2));
    }

    @Test
    void inconsistentCheckpointsAreForkBreaches() {
        TestReceiver rx = new TestReceiver();
        rx.take(TestReceiver.frame(1, 0, 1, 2));
        Frame f2 = TestReceiver.frame(2, 3, 4);
        Answer a2 = rx.take(f2);
        Mirror m1 = rx.mirror(1);
        EventId prev = m1.head().id();
        Receipt r2 = a2.receipt();
        // a smaller tree
        assertBreach(Kind.FORK, check(m1, f2, Set.of(), lie(prev, 2, 2, Merkle.root(ReceiptCheck.leafHashes(rx.leaves.subList(0, 2))),
                r2.bytes()), List.of(), List.of()));
        // the same size with another root (a rewritten past)
        assertBreach(Kind.FORK, check(m1, f2, Set.of(), lie(prev, 2, 3, MerkleTest.flip(m1.head().root(), 3), r2.bytes()),
                List.of(), List.of()));
        // a proof that does not verify
        List<byte[]> bent = new ArrayList<>(a2.consistency());
        bent.set(0, MerkleTest.flip(bent.get(0), 1));
        assertBreach(Kind.FORK, check(m1, f2, Set.of(), r2.event(), bent, a2.appended()));
        // a tree that does not extend the previous one: rewrite leaf 0 and grow
        List<EventId> rewritten = new ArrayList<>(rx.leaves);
        rewritten.set(0, TestReceiver.id(77));
        CompactRange other = CompactRange.empty().appendAll(ReceiptCheck.leafHashes(rewritten));
        assertBreach(Kind.FORK, check(m1, f2, Set.of(), lie(prev, 2, 5, other.root(), r2.bytes()), a2.consistency(),
                a2.appended()));
    }

    @Test
    void countsThatDoNotAddUpAreCountsBreaches() {
        TestReceiver rx = new TestReceiver();
        rx.take(TestReceiver.frame(1, 0, 1));
        Mirror m1 = rx.mirror(1);
        EventId prev = m1.head().id();
        Frame f2 = TestReceiver.frame(2, 2, 3);
        Answer a2 = rx.take(f2);
        Receipt r2 = a2.receipt();
        // events tag differs from the size
        Event e = r2.event();
        List<List<String>> tags = new ArrayList<>(e.tags());
        tags.set(4, List.of("events", "5"));
        assertBreach(Kind.COUNTS, check(m1, f2, Set.of(), Events.sign(TestReceiver.RECEIVER_SECRET, e.createdAt(), e.kind(),
                tags, e.content()), a2.consistency(), a2.appended()));
        // one appended id fewer than the tree grew
        assertBreach(Kind.COUNTS, check(m1, f2, Set.of(), e, a2.consistency(), a2.appended().subList(0, 1)));
        // wrong cumulative bytes
        assertBreach(Kind.COUNTS, check(m1, f2, Set.of(), lie(prev, 2, r2.size(), r2.root(), r2.bytes() + 1), a2.consistency(),
                a2.appended()));
        // an appended id that the frame did not carry
        List<EventId> foreign = List.of(TestReceiver.id(2), TestReceiver.id(60));
        CompactRange fr = m1.range().appendAll(ReceiptCheck.leafHashes(foreign));
        assertBreach(Kind.COUNTS, check(m1, f2, Set.of(), lie(prev, 2, 4, fr.root(), r2.bytes()),
                m1.range().consistencyProof(ReceiptCheck.leafHashes(foreign)), foreign));
        // appended out of frame order
        List<EventId> swapped = List.of(TestReceiver.id(3), TestReceiver.id(2));
        CompactRange sr = m1.range().appendAll(ReceiptCheck.leafHashes(swapped));
        assertBreach(Kind.COUNTS, check(m1, f2, Set.of(), lie(prev, 2, 4, sr.root(), r2.bytes()),
                m1.range().consistencyProof(ReceiptCheck.leafHashes(swapped)), swapped));
        // a leaf appended a second time
        Frame f2b = TestReceiver.frame(2, 1, 2);
        List<EventId> again = List.of(TestReceiver.id(1), TestReceiver.id(2));
        CompactRange ar = m1.range().appendAll(ReceiptCheck.leafHashes(again));
        assertBreach(Kind.COUNTS, check(m1, f2b, Set.of(TestReceiver.id(1)), lie(prev, 2, 4, ar.root(), 200 + 1 + 200 + 2 + 401 + 200),
                m1.range().consistencyProof(ReceiptCheck.leafHashes(again)), again));
    }

    @Test
    void aReceiverThatDropsAReceiptedEventIsAMissingBreach() {
        TestReceiver rx = new TestReceiver();
        rx.take(TestReceiver.frame(1, 0, 1));
        Mirror m1 = rx.mirror(1);
        EventId prev = m1.head().id();
        Frame f2 = TestReceiver.frame(2, 2, 3, 4);
        // the receiver says it appended 2, 3, 4 but its tree holds 2, 99, 4 (3 dropped, the count kept)
        List<EventId> claimed = List.of(TestReceiver.id(2), TestReceiver.id(3), TestReceiver.id(4));
        List<byte[]> real = ReceiptCheck.leafHashes(List.of(TestReceiver.id(2), TestReceiver.id(99), TestReceiver.id(4)));
        CompactRange tree = m1.range().appendAll(real);
        long bytes = m1.bytes() + 202 + 203 + 204;
        Breach b = assertBreach(Kind.MISSING, check(m1, f2, Set.of(), lie(prev, 2, 5, tree.root(), bytes),
                m1.range().consistencyProof(real), claimed));
        assertTrue(b.detail().contains("root"), b.detail());

        // the receiver leaves 3 out of its tree and out of its answer, neither appended nor rejected
        List<EventId> partial = List.of(TestReceiver.id(2), TestReceiver.id(4));
        CompactRange pt = m1.range().appendAll(ReceiptCheck.leafHashes(partial));
        Breach b2 = assertBreach(Kind.MISSING, check(m1, f2, Set.of(), lie(prev, 2, 4, pt.root(), m1.bytes() + 202 + 204),
                m1.range().consistencyProof(ReceiptCheck.leafHashes(partial)), partial));
        assertTrue(b2.detail().contains(TestReceiver.id(3).hex()), b2.detail());
    }

    @Test
    void aHeadBehindOrOffTheVerifiedChainIsARollback() {
        TestReceiver rx = new TestReceiver();
        rx.take(TestReceiver.frame(1, 0, 1));
        rx.take(TestReceiver.frame(2, 2));
        Mirror m2 = rx.mirror(2);
        Receipt first = rx.chain.get(0).receipt();
        assertNull(ReceiptCheck.checkHead(m2, 3, m2.head().id(), m2.head().event(), NOW));
        assertNull(ReceiptCheck.checkHead(m2, 4, TestReceiver.id(5), null, NOW), "ahead: the sender asks again");
        assertNull(ReceiptCheck.checkHead(rx.mirror(0), 0, null, null, NOW));
        for (Breach b : new Breach[] { ReceiptCheck.checkHead(m2, 2, first.id(), first.event(), NOW),
                ReceiptCheck.checkHead(m2, 3, TestReceiver.id(5), null, NOW), ReceiptCheck.checkHead(m2, 0, null, null, NOW) }) {
            assertNotNull(b);
            assertEquals(Kind.ROLLBACK, b.kind());
            CustodyBreach.Verdict v = CustodyBreach.verify(b.evidence());
            assertTrue(v.holds(), v.why());
        }
    }

    @Test
    void afterTheWholeCatchUpAHeadAheadOfTheMirrorIsARollback() throws Exception {
        TestReceiver rx = new TestReceiver();
        rx.take(TestReceiver.frame(1, 0, 1));
        rx.take(TestReceiver.frame(2, 2));
        Mirror m1 = rx.mirror(1);
        EventId ahead = rx.chain.get(1).receipt().id();
        assertNull(ReceiptCheck.checkHead(m1, 3, ahead, null, true, NOW), "more to come");
        assertNull(ReceiptCheck.checkHead(m1, 2, m1.head().id(), null, false, NOW), "the verified head");
        Breach b = ReceiptCheck.checkHead(m1, 3, ahead, null, false, NOW);
        assertNotNull(b);
        assertEquals(Kind.ROLLBACK, b.kind());
        assertTrue(CustodyBreach.verify(b.evidence()).holds(), b.evidence());
        ObjectNode o = (ObjectNode) LogJson.MAPPER.readTree(b.evidence());
        assertFalse(o.get("head").get("more").asBoolean());
        ((ObjectNode) o.get("head")).put("more", true);
        assertFalse(CustodyBreach.verify(o.toString()).holds(), "with more to come it is no breach");
    }

    @Test
    void evidenceThatDoesNotShowItsBreachDoesNotHold() throws Exception {
        TestReceiver rx = new TestReceiver();
        rx.take(TestReceiver.frame(1, 0, 1));
        Mirror m1 = rx.mirror(1);
        Frame f2 = TestReceiver.frame(2, 2, 3);
        Answer a2 = rx.take(f2);
        List<EventId> partial = List.of(TestReceiver.id(2));
        CompactRange pt = m1.range().appendAll(ReceiptCheck.leafHashes(partial));
        Breach b = assertBreach(Kind.MISSING, check(m1, f2, Set.of(), lie(m1.head().id(), 2, 3, pt.root(), m1.bytes() + 202),
                m1.range().consistencyProof(ReceiptCheck.leafHashes(partial)), partial));

        ObjectNode o = (ObjectNode) LogJson.MAPPER.readTree(b.evidence());
        // named as another kind
        ObjectNode renamed = o.deepCopy();
        renamed.put("breach", "fork");
        assertFalse(CustodyBreach.verify(renamed.toString()).holds());
        // the honest receipt in the place of the lie
        ObjectNode honest = o.deepCopy();
        honest.set("receipt", LogJson.MAPPER.readTree(a2.receipt().event().json()));
        honest.set("appended", LogJson.MAPPER.valueToTree(a2.appended().stream().map(EventId::hex).toList()));
        honest.set("consistency", LogJson.MAPPER.valueToTree(a2.consistency().stream().map(org.fleetmesh.nostr.Hex::encode).toList()));
        CustodyBreach.Verdict v = CustodyBreach.verify(honest.toString());
        assertFalse(v.holds(), v.why());
        // the event added to "already" by whoever edits the evidence: the breach no longer shows
        ObjectNode claimed = o.deepCopy();
        ((ObjectNode) claimed.get("frame")).set("already", LogJson.MAPPER.valueToTree(List.of(TestReceiver.id(3).hex())));
        assertFalse(CustodyBreach.verify(claimed.toString()).holds());
        // a previous receipt that is not the receiver's
        ObjectNode forgedPrev = o.deepCopy();
        ((ObjectNode) forgedPrev.get("previous")).put("content", "edited");
        assertFalse(CustodyBreach.verify(forgedPrev.toString()).holds());
        // a compact range that is not the previous tree
        ObjectNode range = o.deepCopy();
        range.set("compact_range", LogJson.MAPPER.valueToTree(List.of("00".repeat(32))));
        assertFalse(CustodyBreach.verify(range.toString()).holds());
        assertFalse(CustodyBreach.verify("{}").holds());
        assertFalse(CustodyBreach.verify("not json").holds());
    }
}
