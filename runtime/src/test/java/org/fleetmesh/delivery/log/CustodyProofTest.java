package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

/** Custody proofs: every leaf of a receipted tree proves offline, and each mutation is refused with a reason. */
class CustodyProofTest {

    private static TestReceiver receiverWith13Leaves() {
        TestReceiver r = new TestReceiver();
        r.take(TestReceiver.frame(1, 0, 1, 2, 3, 4));
        r.take(TestReceiver.frame(2, 5, 6, 7, 8, 9, 10, 11, 12));
        return r;
    }

    @Test
    void everyLeafProvesAgainstTheHeadReceiptAndSurvivesJson() {
        TestReceiver r = receiverWith13Leaves();
        Receipt head = r.chain.get(1).receipt();
        for (int i = 0; i < 13; i++) {
            CustodyProof p = CustodyProof.prove(r.leaves.get(i), i, head, r.tree());
            assertNull(p.verify(), "leaf " + i);
            CustodyProof back = CustodyProof.parse(p.json());
            assertNull(back.verify(), "leaf " + i + " after JSON");
            assertEquals(p.json(), back.json());
        }
    }

    @Test
    void anEarlierReceiptProvesItsOwnLeaves() {
        TestReceiver r = receiverWith13Leaves();
        Receipt first = r.chain.get(0).receipt();
        Merkle.Subtrees t = Merkle.ofLeaves(ReceiptCheck.leafHashes(r.leaves.subList(0, 5)));
        assertNull(CustodyProof.prove(r.leaves.get(3), 3, first, t).verify());
    }

    @Test
    void mutatedProofsAreRefused() {
        TestReceiver r = receiverWith13Leaves();
        Receipt head = r.chain.get(1).receipt();
        CustodyProof p = CustodyProof.prove(r.leaves.get(6), 6, head, r.tree());
        List<CustodyProof> bad = new ArrayList<>();
        bad.add(new CustodyProof(TestReceiver.id(100), 6, 13, p.path(), p.receipt())); // wrong event
        bad.add(new CustodyProof(r.leaves.get(7), 6, 13, p.path(), p.receipt())); // a neighbour's id
        bad.add(new CustodyProof(p.eventId(), 5, 13, p.path(), p.receipt()));
        bad.add(new CustodyProof(p.eventId(), 7, 13, p.path(), p.receipt()));
        bad.add(new CustodyProof(p.eventId(), 13, 13, p.path(), p.receipt()));
        // RFC 9162 verification alone does not bind every size; the signed checkpoint does
        bad.add(new CustodyProof(p.eventId(), 6, 12, p.path(), p.receipt()));
        bad.add(new CustodyProof(p.eventId(), 6, 14, p.path(), p.receipt()));
        bad.add(new CustodyProof(p.eventId(), 6, 13, p.path().subList(0, p.path().size() - 1), p.receipt()));
        bad.add(new CustodyProof(p.eventId(), 6, 13, MerkleTest.plus(p.path(), new byte[32], false), p.receipt()));
        bad.add(new CustodyProof(p.eventId(), 6, 13, MerkleTest.plus(p.path(), head.root(), true), p.receipt()));
        for (int i = 0; i < p.path().size(); i++) {
            List<byte[]> w = new ArrayList<>(p.path());
            w.set(i, MerkleTest.flip(w.get(i), 9));
            bad.add(new CustodyProof(p.eventId(), 6, 13, w, p.receipt()));
        }
        Event e = p.receipt();
        bad.add(new CustodyProof(p.eventId(), 6, 13, p.path(), new Event(e.id(), e.pubkey(), e.createdAt(), e.kind(),
                e.tags(), e.content().replace("\n13\n", "\n14\n"), e.sig()))); // edited receipt
        bad.add(new CustodyProof(p.eventId(), 6, 13, p.path(), Events.sign(TestReceiver.SENDER_SECRET, e.createdAt(),
                e.kind(), e.tags(), e.content()))); // re-signed by someone else: origin no longer names the signer
        bad.add(new CustodyProof(p.eventId(), 6, 13, p.path(), r.chain.get(0).receipt().event())); // another checkpoint
        for (CustodyProof b : bad) {
            assertNotNull(b.verify(), b.json());
            assertNotNull(CustodyProof.parse(b.json()).verify());
        }
    }

    @Test
    void malformedJsonIsRefusedWithAReason() {
        TestReceiver r = receiverWith13Leaves();
        String good = CustodyProof.prove(r.leaves.get(0), 0, r.chain.get(1).receipt(), r.tree()).json();
        String[] bad = { "", "[]", "{}", good.replace("\"index\":0", "\"index\":-1"), good.replace("\"index\":0", "\"index\":\"0\""),
                good.replace("\"event_id\":\"", "\"event_id\":\"A"), good.replace("\"path\":[\"", "\"path\":[\"0"),
                good.substring(0, good.length() - 1), good + "x", good.replace("{\"event_id\"", "{\"index\":1,\"event_id\"") };
        for (String b : bad) {
            assertThrows(IllegalArgumentException.class, () -> CustodyProof.parse(b), b);
        }
    }
}
