package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.peering.MeshMessage;
import org.fleetmesh.peering.link.EventFrame;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.EventLinks;
import org.fleetmesh.peering.link.LinkPolicy;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Delivery behind the real link sessions: each node's {@link EventLinks} installs its {@link Delivery} as the
 * carrier, and every message crosses the other node's {@link EventLink} (budget, grant offer and accept) first.
 */
class OverEventLinksTest {
    final Mesh mesh = new Mesh();

    @AfterEach
    void close() {
        mesh.close();
    }

    EventLinks links(Mesh.Node n) {
        EventLinks l = new EventLinks(n.did, n.secrets, LinkPolicy.DEFAULT, n.intake, n.links, Runnable::run,
                System::nanoTime, mesh.millis::get, 100);
        l.carriers(n.delivery);
        return l;
    }

    @Test
    void framesReceiptsAndFiltersCrossTheBudgetedLinks() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        for (int i = 0; i < 20; i++) {
            a.publish(mesh.event(1, i));
        }
        EventLinks la = links(a);
        EventLinks lb = links(b);
        Mesh.Link l = mesh.new Link(a, b);
        EventLink atA = la.open(l.ab);
        EventLink atB = lb.open(l.ba);
        l.ba.session = atA::receive;
        l.ab.session = atB::receive;
        l.ab.release();
        l.ba.release();
        Mesh.await(() -> DeliveryTest.leaves(a, CustodyLedger.Side.SENT, b) == 20, "A holds receipts for 20");
        mesh.quiesce();
        for (int i = 0; i < 20; i++) {
            Event e = mesh.event(1, i);
            assertTrue(b.store.holds(e.id()));
        }
        assertTrue(l.ab.errors.isEmpty() && l.ba.errors.isEmpty(), l.ab.errors + " " + l.ba.errors);
        assertTrue(atB.account().received().isPresent(), "A's grant reached B");
        assertEquals(DeliveryTest.headId(b, CustodyLedger.Side.RECEIVED, a),
                DeliveryTest.headId(a, CustodyLedger.Side.SENT, b));
        assertTrue(atB.carrier() != null && atA.carrier() != null);
    }

    /**
     * The carrier's refusals count against the grant like the link's own: a peer that keeps sending unsigned frames
     * (each within the budget) is quarantined once its violations pass threshold plus tolerance (10 + 5).
     */
    @Test
    void framesTheCarrierRefusesAreViolationsThatEndInQuarantine() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        EventLinks lb = links(b);
        Mesh.Link l = mesh.new Link(a, b);
        EventLink atB = lb.open(l.ba);
        for (int i = 0; i < 16; i++) {
            atB.receive(EventFrame.encode(i + 1, List.of(mesh.event(1, i).json())));
        }
        assertEquals(16, l.ba.sent(EventFrame.REFUSED).stream()
                .filter(t -> t.contains("invalid: a frame must be signed")).count(), l.ba.sent.toString());
        assertTrue(l.ba.errors.stream().anyMatch(e -> e.startsWith("end quarantined: until")), l.ba.errors.toString());
        assertTrue(lb.quarantinedUntil(a.identity().shortDid()).isPresent(), "A is quarantined at B");
        for (int i = 0; i < 16; i++) {
            assertTrue(!b.store.holds(mesh.event(1, i).id()), "nothing of an unsigned frame is stored");
        }
    }

    /** delivery.md §1: an answer that does not read is answered MESH-ERR invalid, not dropped in silence. */
    @Test
    void answersThatDoNotReadAreAnsweredInvalid() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(DeliveryTest.KIND_1));
        EventLinks lb = links(b);
        Mesh.Link l = mesh.new Link(a, b);
        EventLink atB = lb.open(l.ba);
        atB.receive("[\"MESH-EVENTS-OK\",5]");
        atB.receive("[\"MESH-EVENTS-REFUSED\",5]");
        atB.receive("[\"MESH-EVENTS-REFUSED\",{\"seq\":-1,\"retry_ms\":null},\"x\"]");
        atB.receive("[\"MESH-EVENTS-REFUSED\",{\"seq\":3,\"retry_ms\":\"soon\"},\"x\"]");
        atB.receive("[\"MESH-EVENTS-REFUSED\",{\"seq\":3,\"retry_ms\":null},7]");
        List<String> errs = l.ba.sent(MeshMessage.ERR);
        assertEquals(5, errs.size(), l.ba.sent.toString());
        assertTrue(errs.get(0).contains("invalid: MESH-EVENTS-OK is [\\\"MESH-EVENTS-OK\\\", {\\\"seq\\\": <n>}"),
                errs.get(0));
        for (String e : errs.subList(1, 5)) {
            assertTrue(e.contains("invalid: MESH-EVENTS-REFUSED is [\\\"MESH-EVENTS-REFUSED\\\""), e);
        }
        // well formed, for a frame never sent: taken and ignored, no answer
        atB.receive("[\"MESH-EVENTS-REFUSED\",{\"seq\":3,\"retry_ms\":null},\"invalid: x\"]");
        atB.receive("[\"MESH-EVENTS-OK\",{\"seq\":3},[]]");
        assertEquals(5, l.ba.sent(MeshMessage.ERR).size(), l.ba.sent.toString());
    }
}
