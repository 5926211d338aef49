package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.budget.Allowance;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.Pacer;
import org.junit.jupiter.api.Test;

/** The custodian's messages keep to the peer's grant: what does not fit waits for the refill, in order. */
class PacedWireTest {
    @Test
    void messagesBeyondTheAllowanceWaitForTheRefillInOrder() {
        List<String> sent = new CopyOnWriteArrayList<>();
        Pacer pacer = new Pacer();
        pacer.retarget(new Allowance(2500, 100, 100, 1), System.nanoTime());
        PacedWire w = new PacedWire(new EventLink.Wire() {
            @Override
            public void send(String text) {
                sent.add(text);
            }

            @Override
            public void end(Refusal refusal) {
            }

            @Override
            public PeerIdentity peer() {
                return null;
            }
        }, pacer);
        String kb = "x".repeat(1000);
        w.send("1" + kb);
        w.send("2" + kb);
        w.send("3" + kb);
        assertEquals(2, sent.size(), "two fit the 2500 bytes at once");
        assertEquals(1, w.queued(), "the third waits");
        Mesh.await(() -> sent.size() == 3, "the third goes once the grant refills");
        assertEquals(List.of('1', '2', '3'), sent.stream().map(s -> s.charAt(0)).toList());
    }
}
