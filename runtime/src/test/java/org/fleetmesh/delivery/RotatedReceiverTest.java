package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A receiver that rotated its keys (a new DID on the same data): its sender mirrors it under the new DID from nothing
 * and checks every receipt against the new key, so the chain the receiver signed under its old key is moved aside and
 * a new one starts. Before, the receiver answered the custody exchange with its old chain, and the sender halted
 * forwarding to it as a custody breach ({@code signature}: signed by the old key, not by the receiver).
 */
class RotatedReceiverTest {
    final Mesh mesh = new Mesh();

    @AfterEach
    void close() {
        mesh.close();
    }

    @Test
    void aReceiverThatRotatedItsKeysStartsANewChainAndForwardingGoesOn() throws Exception {
        Mesh.Node a = mesh.node("a", Mesh.settings(DeliveryTest.KIND_1));
        Mesh.Node b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        for (int i = 0; i < 8; i++) {
            a.publish(mesh.event(1, i));
        }
        Mesh.Link first = mesh.link(a, b);
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, b) == 8, "A holds receipts for 8 events");
        mesh.quiesce();
        first.cut();
        String oldHead = b.ledger.head(CustodyLedger.Side.RECEIVED, a.shortDid()).orElseThrow().receiptId().hex();

        Mesh.Node rotated = mesh.rotated(b);
        assertNotEquals(b.shortDid(), rotated.shortDid(), "new keys, a new DID");
        Event later = mesh.event(1, 99);
        a.publish(later);
        Mesh.Link link = mesh.link(a, rotated);
        Mesh.await(() -> rotated.store.holds(later.id()), "the rotated node gets the event published meanwhile");
        // A new DID to A, and to it: each side sends the other what it federates and does not know the other holds
        // (the 8 are duplicates both ways). Which of the 8 A sends depends on the race with the rotated node's own
        // frames (an event A got from it is not sent back); every one of the 9 is in one of the two new chains,
        // receipted either way, and the event published meanwhile only A had, so A sent it.
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, rotated)
                + DeliveryTest.leaves(a, CustodyLedger.Side.RECEIVED, rotated) >= 9, "and receipts them");
        mesh.quiesce();
        List<EventId> nine = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            nine.add(mesh.event(1, i).id());
        }
        nine.add(later.id());
        Map<EventId, CustodyLedger.Holders> holders = a.ledger.holders(nine);
        for (EventId id : nine) {
            assertTrue(holders.containsKey(id) && holders.get(id).peers().contains(rotated.shortDid()),
                    id + " in a chain of A with the rotated node: " + holders.get(id));
        }
        long sent = DeliveryTest.leaves(a, CustodyLedger.Side.SENT, rotated);
        assertTrue(sent >= 1 && sent + DeliveryTest.leaves(a, CustodyLedger.Side.RECEIVED, rotated) >= 9,
                sent + " sent");

        assertTrue(a.links.evidence(rotated.shortDid(), 10).isEmpty(), "no breach: " + a.links.evidence(rotated.shortDid(), 10));
        Map<String, Object> status = new LinkedHashMap<>();
        a.delivery.describe(rotated.shortDid(), status);
        @SuppressWarnings("unchecked")
        Map<String, Object> custody = (Map<String, Object>) status.get("custody");
        assertNull(custody.get("halted"), status.toString());

        // the old chain, signed with the old key, kept under its archived name; the new one signed with the new key
        String archived = CustodyLedger.archivedName(a.shortDid(), 1);
        CustodyLedger.Receipt kept = rotated.ledger.head(CustodyLedger.Side.RECEIVED, archived).orElseThrow();
        assertEquals(oldHead, kept.receiptId().hex());
        assertEquals(8, kept.treeSize());
        CustodyLedger.Receipt now = rotated.ledger.head(CustodyLedger.Side.RECEIVED, a.shortDid()).orElseThrow();
        assertEquals(sent, now.treeSize());
        MessageParser parser = new MessageParser(MessageParser.Limits.DEFAULT);
        assertEquals(rotated.secrets.publicKeys().nostr(), parser.parseEvent(now.json()).pubkey());
        assertEquals(b.secrets.publicKeys().nostr(), parser.parseEvent(kept.json()).pubkey());

        Event after = mesh.event(1, 100);
        a.publish(after);
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, rotated) == sent + 1,
                "a later frame is receipted");
        assertTrue(link.ab.errors.isEmpty() && link.ba.errors.isEmpty(), link.ab.errors + " " + link.ba.errors);
    }
}
