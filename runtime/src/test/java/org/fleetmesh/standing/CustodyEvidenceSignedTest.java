package org.fleetmesh.standing;

import static org.fleetmesh.standing.TestFindings.AT;
import static org.fleetmesh.standing.TestFindings.OBSERVER;
import static org.fleetmesh.standing.TestFindings.OBSERVER_DID;
import static org.fleetmesh.standing.TestFindings.OBSERVER_KEY;
import static org.fleetmesh.standing.TestFindings.SUBJECT_KEY;
import static org.fleetmesh.standing.TestFindings.THIRD;
import static org.fleetmesh.standing.TestFindings.THIRD_DID;
import static org.fleetmesh.standing.TestFindings.THIRD_KEY;
import static org.fleetmesh.standing.TestFindings.ZERO_AUX;
import static org.fleetmesh.standing.TestFindings.id;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.CustodyBreach;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.delivery.log.ReceiptCheck;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.spi.standing.FindingRecord;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Custody evidence is VERIFIED only when the receiver's own signed receipts show the breach (docs/spec/custody.md §4,
 * findings.md §4): evidence anyone can write about anyone (an unsigned receipt, someone's genuine receipts beside a
 * frame, appended ids, a proof or a "previous" of the writer's choosing) is at most the observer's word (ATTESTED),
 * which {@code POST /mesh/findings} refuses and which moves no one's standing at the default weights. The innocent
 * here is THIRD: the observer never linked to it, and THIRD signed nothing for it that contradicts itself.
 */
class CustodyEvidenceSignedTest {
    private static final FindingVerifier VERIFIER = new FindingVerifier(TestFindings.GRACE);
    private static final byte[] ROGUE = TestFindings.fill(0x51);
    private static final String THIRD_SHORT = PeerIdentity.shortForm(THIRD_DID);

    private static List<byte[]> leaves(List<EventId> ids) {
        return ids.stream().map(Merkle::leafHash).toList();
    }

    private static final List<EventId> FIRST = List.of(id(0), id(1), id(2));
    private static final List<EventId> SECOND = List.of(id(3), id(4));
    private static final CompactRange R1 = CompactRange.empty().appendAll(leaves(FIRST));
    private static final CompactRange R2 = R1.appendAll(leaves(SECOND));

    /** THIRD's honest first receipt to the observer (events 0..2, 603 bytes). */
    private static Receipt r1(byte[] receiver) {
        return Receipt.sign(receiver, AT, OBSERVER_KEY, null, 1, 3, R1.root(), 603, List.of(), ZERO_AUX);
    }

    /** THIRD's honest second receipt, chained to the first (events 3, 4 appended, 203 + 204 bytes). */
    private static Receipt r2(byte[] receiver, Receipt r1) {
        return Receipt.sign(receiver, AT + 1, OBSERVER_KEY, r1.id(), 2, 5, R2.root(), 603 + 203 + 204, List.of(),
                ZERO_AUX);
    }

    private static ReceiptCheck.Frame frame(long seq, List<EventId> ids) {
        List<ReceiptCheck.FrameEvent> evs = new ArrayList<>();
        for (EventId i : ids) {
            evs.add(new ReceiptCheck.FrameEvent(i, 200 + Integer.parseInt(idNumber(i)), 0));
        }
        return new ReceiptCheck.Frame(seq, "{\"seq\":" + seq + ",\"count\":" + evs.size() + "}", evs);
    }

    private static String idNumber(EventId e) {
        for (int i = 0; i < 16; i++) {
            if (id(i).equals(e)) {
                return Integer.toString(i);
            }
        }
        return "99";
    }

    private static ReceiptCheck.Mirror mirror(Receipt head, CompactRange range) {
        return new ReceiptCheck.Mirror(THIRD_KEY, OBSERVER_KEY, THIRD_SHORT, head, range);
    }

    private static String breach(String kind, ReceiptCheck.Mirror m, ReceiptCheck.Frame f, Event receipt,
            List<byte[]> consistency, List<EventId> appended) {
        ReceiptCheck.Result r = ReceiptCheck.check(m, f, Set.of(), receipt, consistency, appended, (AT + 2) * 1000);
        assertTrue(r instanceof ReceiptCheck.Breach, "expected a breach: " + r);
        ReceiptCheck.Breach b = (ReceiptCheck.Breach) r;
        assertEquals(kind, b.kind().word(), b.detail());
        return b.evidence();
    }

    /** The observer's finding against THIRD with this evidence. */
    private static Event finding(String evidence) {
        Draft d = FindingEvidence.draft(evidence);
        return Finding.sign(OBSERVER_DID, THIRD_KEY, THIRD_DID, d.severity(), d.scope(), d.rule(), evidence, AT + 100,
                OBSERVER.nostr().bytes(), ZERO_AUX);
    }

    /** THIRD's view_transit at a node that holds this finding from a tier 1 peer, at the default weights. */
    private static double viewOfThird(Event finding, Check c) {
        long now = finding.createdAt() * 1000;
        FindingRecord r = FindingRecords.of(finding, c, false, now);
        return Standing.compute(List.of(r), StandingPolicy.defaults(), o -> 1, now)
                .transit(THIRD_SHORT);
    }

    /** The evidence holds as the observer saw it, but is only its word: never VERIFIED, weighs nothing elsewhere. */
    private static void onlyTheObserversWord(String evidence) {
        CustodyBreach.Verdict v = CustodyBreach.verify(evidence);
        assertTrue(v.holds(), v.why());
        assertFalse(v.signed(), "nothing THIRD signed shows it: " + v.why());
        Event f = finding(evidence);
        Check c = VERIFIER.check(f);
        assertEquals(Verdict.ATTESTED, c.verdict(), c.reason());
        assertTrue(c.reason().contains("the observer's word"), c.reason());
        // POST /mesh/findings asks this and signs only VERIFIED evidence
        Check posted = VERIFIER.checkEvidence(FindingEvidence.CUSTODY_BREACH, evidence, THIRD_KEY, THIRD_DID,
                OBSERVER_KEY, OBSERVER_DID);
        assertEquals(Verdict.ATTESTED, posted.verdict(), posted.reason());
        assertEquals(1.0, viewOfThird(f, c), "THIRD's standing does not move: " + c.reason());
    }

    private static void shownBySignatures(String evidence) {
        CustodyBreach.Verdict v = CustodyBreach.verify(evidence);
        assertTrue(v.holds() && v.signed(), v.why());
        Event f = finding(evidence);
        Check c = VERIFIER.check(f);
        assertEquals(Verdict.VERIFIED, c.verdict(), c.reason());
        assertEquals(1 - 0.5 * 0.5, viewOfThird(f, c), 1e-9, "a tier 1 peer's S2 counts at weight.peer");
    }

    @Test
    void anUnsignedReceiptNamingAnotherDidIsNotVerified() {
        // the audit's case: a receipt with id and sig of zeros, pubkey 11..., then the evidence renamed to THIRD
        Receipt rogue = r1(ROGUE);
        String ev = breach("signature", mirror(null, CompactRange.empty()), frame(1, FIRST), rogue.event(), List.of(),
                FIRST);
        ObjectNode o = FindingEvidence.object(ev);
        ObjectNode receipt = (ObjectNode) o.get("receipt");
        receipt.put("id", "0".repeat(64));
        receipt.put("pubkey", "11".repeat(32));
        receipt.put("sig", "0".repeat(128));
        assertEquals(THIRD_KEY.hex(), o.get("receiver").asText());
        assertEquals(THIRD_SHORT, o.get("peer").asText());
        onlyTheObserversWord(o.toString());
        // signed by someone else than the receiver: the same
        onlyTheObserversWord(ev);
    }

    @Test
    void aGenuineReceiptOfTheSubjectToAnotherSenderIsNoFormatEvidence() {
        // THIRD's real receipt to SUBJECT, presented as if it answered the observer's frame: "p is not this sender"
        Receipt toOther = Receipt.sign(THIRD.nostr().bytes(), AT, SUBJECT_KEY, null, 1, 3, R1.root(), 603, List.of(),
                ZERO_AUX);
        onlyTheObserversWord(breach("format", mirror(null, CompactRange.empty()), frame(1, FIRST), toOther.event(),
                List.of(), FIRST));
        // THIRD's real receipt beside a frame of the observer's with another seq
        onlyTheObserversWord(breach("format", mirror(null, CompactRange.empty()), frame(7, FIRST),
                r1(THIRD.nostr().bytes()).event(), List.of(), FIRST));
    }

    @Test
    void genuineReceiptsBesideWhatOnlyTheObserverVouchesForAreNotVerified() {
        byte[] t = THIRD.nostr().bytes();
        Receipt r1 = r1(t);
        Receipt r2 = r2(t, r1);
        List<byte[]> proof = R1.consistencyProof(leaves(SECOND));
        // prev: a "previous" left out, so the second receipt looks like a first one naming a prev
        onlyTheObserversWord(breach("prev", mirror(null, CompactRange.empty()), frame(2, SECOND), r2.event(),
                List.of(), SECOND));
        // prev: two receipts of the chain out of order
        onlyTheObserversWord(breach("prev", mirror(r2, R2), frame(1, FIRST), r1.event(), List.of(), FIRST));
        // fork: a consistency proof of the observer's making
        byte[] junk = new byte[32];
        Arrays.fill(junk, (byte) 7);
        onlyTheObserversWord(breach("fork", mirror(r1, R1), frame(2, SECOND), r2.event(), List.of(junk, junk),
                SECOND));
        // counts: fewer appended ids than the tree grew by
        onlyTheObserversWord(breach("counts", mirror(r1, R1), frame(2, SECOND), r2.event(), proof,
                SECOND.subList(0, 1)));
        // counts: a frame whose sizes the observer wrote
        ReceiptCheck.Frame heavier = new ReceiptCheck.Frame(2, "{\"seq\":2}", List.of(
                new ReceiptCheck.FrameEvent(id(3), 999, 0), new ReceiptCheck.FrameEvent(id(4), 204, 0)));
        onlyTheObserversWord(breach("counts", mirror(r1, R1), heavier, r2.event(), proof, SECOND));
        // missing: appended ids (and a frame) other than those THIRD appended
        List<EventId> others = List.of(id(4), id(3));
        onlyTheObserversWord(breach("missing", mirror(r1, R1), frame(2, others), r2.event(), proof, others));
        // missing: a frame event the observer says it sent
        onlyTheObserversWord(breach("missing", mirror(r1, R1), frame(2, List.of(id(3), id(4), id(9))), r2.event(),
                proof, SECOND));
        // rollback: a head THIRD never announced in a signed message
        ReceiptCheck.Breach rollback = ReceiptCheck.checkHead(mirror(r2, R2), 3, r1.id(), r1.event(), false,
                (AT + 2) * 1000);
        onlyTheObserversWord(rollback.evidence());
    }

    @Test
    void aForkTheSubjectSignedIsVerified() {
        byte[] t = THIRD.nostr().bytes();
        Receipt r1 = r1(t);
        // a smaller tree, chained to the first receipt
        Receipt shrank = Receipt.sign(t, AT + 1, OBSERVER_KEY, r1.id(), 2, 2, Merkle.root(leaves(FIRST.subList(0, 2))),
                603, List.of(), ZERO_AUX);
        shownBySignatures(breach("fork", mirror(r1, R1), frame(2, SECOND), shrank.event(), List.of(), SECOND));
        // the same size with another root, chained to the first receipt
        Receipt rewritten = Receipt.sign(t, AT + 1, OBSERVER_KEY, r1.id(), 2, 3,
                Merkle.root(leaves(List.of(id(9), id(1), id(2)))), 603, List.of(), ZERO_AUX);
        shownBySignatures(breach("fork", mirror(r1, R1), frame(2, List.of()), rewritten.event(), List.of(),
                List.of()));
        // a first receipt of size 0 whose root is not the empty tree's
        Receipt notEmpty = Receipt.sign(t, AT, OBSERVER_KEY, null, 1, 0, R1.root(), 0, List.of(), ZERO_AUX);
        shownBySignatures(breach("fork", mirror(null, CompactRange.empty()), frame(1, List.of()), notEmpty.event(),
                List.of(), List.of()));
    }

    @Test
    void countsTheSubjectSignedAreVerified() {
        byte[] t = THIRD.nostr().bytes();
        Receipt r1 = r1(t);
        // a receipt whose events tag is not its tree size
        List<List<String>> tags = new ArrayList<>();
        for (List<String> tag : r1.event().tags()) {
            tags.add(tag.get(0).equals("events") ? List.of("events", "4") : tag);
        }
        Event selfContradicting = Events.sign(t, AT, Receipt.KIND, tags, r1.event().content());
        shownBySignatures(breach("counts", mirror(null, CompactRange.empty()), frame(1, FIRST), selfContradicting,
                List.of(), FIRST));
        // bytes that shrank, chained to the first receipt (a catch-up receipt, the frame no longer held)
        Receipt fewer = Receipt.sign(t, AT + 1, OBSERVER_KEY, r1.id(), 2, 3, R1.root(), 500, List.of(), ZERO_AUX);
        shownBySignatures(breach("counts", mirror(r1, R1), null, fewer.event(), List.of(), List.of()));
        // other bytes at the same size, with the frame
        Receipt more = Receipt.sign(t, AT + 1, OBSERVER_KEY, r1.id(), 2, 3, R1.root(), 700, List.of(), ZERO_AUX);
        shownBySignatures(breach("counts", mirror(r1, R1), frame(2, List.of()), more.event(), List.of(), List.of()));
    }

    @Test
    void theHonestReceiptsThemselvesPass() {
        byte[] t = THIRD.nostr().bytes();
        Receipt r1 = r1(t);
        ReceiptCheck.Result first = ReceiptCheck.check(mirror(null, CompactRange.empty()), frame(1, FIRST), Set.of(),
                r1.event(), List.of(), FIRST, AT * 1000);
        assertTrue(first instanceof ReceiptCheck.Ok, first.toString());
        ReceiptCheck.Result second = ReceiptCheck.check(mirror(r1, R1), frame(2, SECOND), Set.of(),
                r2(t, r1).event(), R1.consistencyProof(leaves(SECOND)), SECOND, AT * 1000);
        assertTrue(second instanceof ReceiptCheck.Ok, second.toString());
    }
}
