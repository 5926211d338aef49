package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.fleetmesh.delivery.log.CustodyBreach;
import org.fleetmesh.delivery.log.CustodyReset;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.peers.Evidence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A receiver restored from its keys on an empty data dir (docs/spec/custody.md §8): at the custody exchange it answers
 * with a signed reset; the sender keeps the old chain aside, records S1 evidence a third party can recheck, mirrors
 * the new tree from 0 and goes on forwarding. A reset that does not hold is still a rollback (S2, halted).
 */
class RestoredReceiverTest {
    final Mesh mesh = new Mesh();
    Mesh.Node a;
    Mesh.Node b;

    @AfterEach
    void close() {
        mesh.close();
    }

    /** A and B federate kind 1 from each other; A sends B 8 events, B sends A 3; then the link is cut. */
    @BeforeEach
    void linkedThenCut() {
        a = mesh.node("a", Mesh.settings(DeliveryTest.KIND_1));
        b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        for (int i = 0; i < 8; i++) {
            a.publish(mesh.event(1, i));
        }
        for (int i = 0; i < 3; i++) {
            b.publish(mesh.event(1, 50 + i));
        }
        Mesh.Link first = mesh.link(a, b);
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, b) == 11 - 3
                && DeliveryTest.leaves(b, CustodyLedger.Side.SENT, a) == 3, "both hold receipts for what they sent");
        mesh.quiesce();
        first.cut();
    }

    Map<String, Object> custodyStatus(Mesh.Node at, Mesh.Node peer) {
        Map<String, Object> status = new LinkedHashMap<>();
        at.delivery.describe(peer.shortDid(), status);
        @SuppressWarnings("unchecked")
        Map<String, Object> custody = (Map<String, Object>) status.get("custody");
        return custody;
    }

    @Test
    void aRestoredReceiverResetsItsChainAndForwardingGoesOn() {
        String oldHead = DeliveryTest.headId(a, CustodyLedger.Side.SENT, b);
        Mesh.Node restored = mesh.restored(b);
        assertEquals(b.shortDid(), restored.shortDid(), "the same keys make the same DID");
        Event later = mesh.event(1, 99);
        a.publish(later);
        Mesh.Link link = mesh.link(a, restored);
        Mesh.await(() -> restored.store.holds(later.id()), "the restored node gets the event published meanwhile");
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, restored) == 1, "and receipts it");
        mesh.quiesce();

        List<Evidence> evidence = a.links.evidence(b.shortDid(), 10);
        assertEquals(1, evidence.size(), "one record: the reset, no breach");
        Evidence e = evidence.get(0);
        assertEquals("S1", e.severity());
        assertTrue(e.reason().startsWith("custody-reset:"), e.reason());
        CustodyReset.Verdict v = CustodyReset.verify(e.detail());
        assertTrue(v.holds(), "a third party's recheck holds: " + v.why());
        JsonNode detail = CustodyBreachTest.read(e.detail());
        assertEquals(oldHead, detail.get("previous").get("id").asText(), "the evidence keeps the old head receipt");
        assertEquals(8, detail.get("size").asLong());
        String archived = b.shortDid() + "#reset-1";
        assertEquals(archived, detail.get("archived").asText());

        // the old chain is kept, under its archived name; the new one starts again with no prev
        assertEquals(8, a.ledger.head(CustodyLedger.Side.SENT, archived).orElseThrow().treeSize());
        assertEquals(oldHead, a.ledger.head(CustodyLedger.Side.SENT, archived).orElseThrow().receiptId().hex());
        assertEquals(1, a.ledger.receipts(CustodyLedger.Side.SENT, b.shortDid(), 0, 10).size());
        assertNull(custodyStatus(a, restored).get("halted"));
        assertEquals("", a.ledger.outbound(b.shortDid()).orElseThrow().halted());
        // forwarding resumes from the cursor: what the node lost before the reset is replication's to rebuild
        assertFalse(restored.store.holds(mesh.event(1, 0).id()));

        // the other direction: the restored node's empty mirror catches up with A's whole chain of what B sent
        Mesh.await(() -> DeliveryTest.leaves(restored, CustodyLedger.Side.SENT, a) == 3, "the restored mirror catches up");
        assertTrue(restored.links.evidence(a.shortDid(), 10).isEmpty(), "no evidence against A");
        assertNull(custodyStatus(restored, a).get("halted"));

        // and later frames keep flowing and being receipted on the new chain
        Event after = mesh.event(1, 100);
        a.publish(after);
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, restored) == 2, "a later frame is receipted");
        assertTrue(restored.store.holds(after.id()));
        assertTrue(link.ab.errors.isEmpty() && link.ba.errors.isEmpty(), link.ab.errors + " " + link.ba.errors);
    }

    /** Rewrites the restored node's reset with {@code forge}, re-encoding the head it came in. */
    Function<String, String> resetRewriter(Function<Event, Event> forge) {
        return text -> {
            if (!text.startsWith("[\"" + CustodyMessages.HEAD + "\"")) {
                return text;
            }
            try {
                CustodyMessages.Head h = CustodyMessages.parseHead(text);
                if (h.reset() == null) {
                    return text;
                }
                return CustodyMessages.head(h.size(), h.head(), h.seq(), h.more(), forge.apply(h.reset()).json());
            } catch (FrameException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    void rollbackWithoutArchive() {
        Mesh.await(() -> !a.links.evidence(b.shortDid(), 10).isEmpty(), "A stores evidence");
        mesh.quiesce();
        List<Evidence> evidence = a.links.evidence(b.shortDid(), 10);
        assertEquals(1, evidence.size());
        assertEquals("S2", evidence.get(0).severity());
        assertEquals("custody: rollback", evidence.get(0).reason());
        assertTrue(CustodyBreach.verify(evidence.get(0).detail()).holds());
        assertEquals("custody: rollback", a.ledger.outbound(b.shortDid()).orElseThrow().halted());
        assertTrue(a.ledger.head(CustodyLedger.Side.SENT, b.shortDid() + "#reset-1").isEmpty(), "nothing archived");
        assertEquals(8, DeliveryTest.leaves(a, CustodyLedger.Side.SENT, b), "the mirror is kept");
    }

    @Test
    void aResetSignedByAnotherKeyIsARollback() {
        Mesh.Node restored = mesh.restored(b);
        byte[] other = Mesh.fill(0x77);
        PubKey sender = a.secrets.publicKeys().nostr();
        mesh.link(a, restored, resetRewriter(r -> CustodyReset.sign(other, r.createdAt(), sender,
                EventId.ofHex(r.tags().get(1).get(1)))));
        rollbackWithoutArchive();
    }

    @Test
    void aResetOfAnotherHeadIsARollback() {
        Mesh.Node restored = mesh.restored(b);
        byte[] secret = b.secrets.nostr().bytes();
        PubKey sender = a.secrets.publicKeys().nostr();
        mesh.link(a, restored, resetRewriter(r -> CustodyReset.sign(secret, r.createdAt(), sender,
                EventId.ofHex("ab".repeat(32)))));
        rollbackWithoutArchive();
    }

    @Test
    void aResetWithAHeadThatIsNotTheEmptyTreeIsARollback() {
        Mesh.Node restored = mesh.restored(b);
        mesh.link(a, restored, text -> {
            if (text.startsWith("[\"" + CustodyMessages.HEAD + "\"") && text.contains("\"reset\"")) {
                // a receiver that claims a reset but names a head of size 2: not an empty tree
                return text.replace("{\"size\":0,", "{\"size\":2,");
            }
            return text;
        });
        rollbackWithoutArchive();
    }
}
