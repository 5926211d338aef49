package org.fleetmesh.delivery;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Utf8;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.budget.Bucket;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.Pacer;

/**
 * A link's wire whose messages keep to the grant the peer gave this node (its {@link Pacer}), in order: a receiver's
 * receipts and catch-up answers are charged by the peer's budget like frames, and a burst of them (a catch-up of 256
 * receipts) would otherwise be refused there as {@code rate-limited:} and counted against this node. A message larger
 * than the whole allowance goes when the pacer is full (it cannot be split).
 */
public final class PacedWire implements EventLink.Wire {
    private final EventLink.Wire wire;
    private final Pacer pacer;
    private final ArrayDeque<String> queue = new ArrayDeque<>();
    private boolean waking;

    public PacedWire(EventLink.Wire wire, Pacer pacer) {
        this.wire = wire;
        this.pacer = pacer;
    }

    @Override
    public void send(String text) {
        synchronized (this) {
            queue.add(text);
        }
        drain();
    }

    private void drain() {
        synchronized (this) {
            while (!queue.isEmpty()) {
                String next = queue.peek();
                long delay = pacer.delay(Utf8.length(next), 0, System.nanoTime());
                if (delay > 0 && delay != Bucket.NEVER) {
                    if (!waking) {
                        waking = true;
                        CompletableFuture.delayedExecutor(Math.max(1, delay / 1_000_000), TimeUnit.MILLISECONDS)
                                .execute(() -> {
                                    synchronized (this) {
                                        waking = false;
                                    }
                                    drain();
                                });
                    }
                    return;
                }
                queue.poll();
                wire.send(next); // under the lock: messages leave in the order they were given
            }
        }
    }

    synchronized int queued() {
        return queue.size();
    }

    @Override
    public void end(Refusal refusal) {
        wire.end(refusal);
    }

    @Override
    public PeerIdentity peer() {
        return wire.peer();
    }

    @Override
    public void violation() {
        wire.violation();
    }
}
