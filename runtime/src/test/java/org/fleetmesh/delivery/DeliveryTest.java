package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two (or three) Delivery ends wired to each other in memory: forwarding, receipts, cursor, restarts, hops. */
class DeliveryTest {
    static final List<Filter> KIND_1 = List.of(new Filter(null, null, Set.of(1), Map.of(), null, null, null));
    final Mesh mesh = new Mesh();

    @AfterEach
    void close() {
        mesh.close();
    }

    static long leaves(Mesh.Node n, CustodyLedger.Side side, Mesh.Node peer) {
        return n.ledger.head(side, peer.shortDid()).map(CustodyLedger.Receipt::treeSize).orElse(0L);
    }

    static String headId(Mesh.Node n, CustodyLedger.Side side, Mesh.Node peer) {
        return n.ledger.head(side, peer.shortDid()).map(r -> r.receiptId().hex()).orElse(null);
    }

    List<Event> events(int kind, int from, int count) {
        List<Event> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            out.add(mesh.event(kind, i));
        }
        return out;
    }

    @Test
    void forwardsWhatThePeerWantsWithReceiptsAndAdvancesTheCursor() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        List<Event> notes = events(1, 0, 10);
        a.publish(notes.toArray(Event[]::new));
        a.publish(events(7, 100, 3).toArray(Event[]::new));
        mesh.link(a, b);
        mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 10, "A holds receipts for 10 events");
        mesh.quiesce();
        for (Event e : notes) {
            assertTrue(b.store.holds(e.id()), "B holds " + e.id());
        }
        assertEquals(10, b.store.size(), "kind 7 is not wanted");
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(a.store.lastSequence(), a.ledger.outbound(b.shortDid()).orElseThrow().ackedSeq());
        Map<String, Object> status = new LinkedHashMap<>();
        a.delivery.describe(b.shortDid(), status);
        assertEquals(0L, status.get("queue"));
        @SuppressWarnings("unchecked")
        Map<String, Object> custody = (Map<String, Object>) status.get("custody");
        assertNull(custody.get("halted"));
        assertEquals(10L, ((Map<?, ?>) custody.get("sent")).get("size"));
    }

    @Test
    void forwardsLiveAfterTheCommit() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        mesh.link(a, b);
        mesh.quiesce();
        Event e = mesh.event(1, 1);
        a.publish(e);
        mesh.await(() -> b.store.holds(e.id()), "B holds the live event");
        mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 1, "A holds its receipt");
    }
}
