package org.fleetmesh.peering;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes handed to one link's WebSocket and not yet written to the network. websockets-next has no outbound
 * backpressure, so a peer that stops reading would let them grow without bound: a send that would take the total past
 * the budget is refused, and the edge then closes the link ({@code slow}). Thread-safe.
 */
public final class SendBudget {
    private final long limit;
    private final AtomicLong queued = new AtomicLong();

    public SendBudget(long limit) {
        if (limit < 16_384) {
            throw new IllegalArgumentException("a send budget below 16 KiB cannot hold a handshake message and its answer");
        }
        this.limit = limit;
    }

    /** Takes {@code bytes} from the budget; false (and nothing taken) when that would exceed it. */
    public boolean take(long bytes) {
        while (true) {
            long now = queued.get();
            if (now + bytes > limit) {
                return false;
            }
            if (queued.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back what a finished (written or failed) send took. */
    public void giveBack(long bytes) {
        queued.addAndGet(-bytes);
    }

    public long queued() {
        return queued.get();
    }

    public long limit() {
        return limit;
    }
}
