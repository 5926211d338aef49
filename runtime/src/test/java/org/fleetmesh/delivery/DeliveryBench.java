package org.fleetmesh.delivery;

import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Ad hoc (run with {@code -Dtest=DeliveryBench -Dfleetmesh.bench=true}): forwarding throughput through the in-memory
 * mesh, receipts on and off, at several frame sizes. Pure code and memory ledgers: the cost of signing, verifying and
 * the tree, not of PostgreSQL (bench/delivery.sh measures real nodes).
 */
class DeliveryBench {
    @Test
    void throughput() {
        Assumptions.assumeTrue(Boolean.getBoolean("fleetmesh.bench"), "an ad hoc benchmark");
        int n = Integer.getInteger("fleetmesh.bench.events", 20_000);
        for (int frame : new int[] { 1, 10, 100, 1000 }) {
            for (boolean receipts : new boolean[] { true, false }) {
                try (Mesh mesh = new Mesh()) {
                    Delivery.Settings d = Delivery.Settings.DEFAULT;
                    Mesh.Node a = mesh.node("a", new Delivery.Settings(true, frame, 1 << 20, 16, 4, d.maxSkew(), 16,
                            List.of(), Map.of()));
                    Mesh.Node b = mesh.node("b", new Delivery.Settings(receipts, frame, 1 << 20, 16, 4, d.maxSkew(), 16,
                            DeliveryTest.KIND_1, Map.of()));
                    Event[] events = new Event[n];
                    for (int i = 0; i < n; i++) {
                        events[i] = mesh.event(1, i);
                    }
                    a.publish(events);
                    long t0 = System.nanoTime();
                    mesh.link(a, b);
                    java.util.function.LongSupplier done = () -> receipts
                            ? DeliveryTest.leaves(a, CustodyLedger.Side.SENT, b)
                            : a.ledger.outbound(b.shortDid()).map(CustodyLedger.Outbound::ackedSeq).orElse(0L);
                    long last = -1;
                    while (done.getAsLong() < n) {
                        try {
                            Thread.sleep(1000);
                        } catch (InterruptedException e) {
                            return;
                        }
                        long now = done.getAsLong();
                        if (now == last) {
                            throw new AssertionError("stalled at " + now + " of " + n + " (frame " + frame + ")");
                        }
                        last = now;
                    }
                    double s = (System.nanoTime() - t0) / 1e9;
                    System.out.printf("BENCH frame-events %4d receipts %-5s %8.0f events/s%n", frame, receipts, n / s);
                }
            }
        }
    }
}
