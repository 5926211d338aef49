package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

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
}
