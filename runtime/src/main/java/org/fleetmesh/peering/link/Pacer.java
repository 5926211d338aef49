package org.fleetmesh.peering.link;

import org.fleetmesh.peering.budget.Allowance;
import org.fleetmesh.peering.budget.Bucket;

/**
 * Paces what this node sends a peer to the grant the peer gave it, so the peer never has to refuse it: before a frame
 * goes out, {@link #delay} either takes its bytes and events (0: send now) or says how long to hold it. The
 * forwarding of issue 12 queues behind it. Thread-safe.
 */
public final class Pacer {
    private volatile Bucket bytes;
    private volatile Bucket events;

    /** Unpaced until {@link #retarget} gives it a grant. */
    public Pacer() {
    }

    /** Paces to {@code a} from {@code now} on, with a full allowance. */
    public synchronized void retarget(Allowance a, long now) {
        bytes = new Bucket(a.bytes(), a.windowNanos(), now);
        events = new Bucket(a.events(), a.windowNanos(), now);
    }

    /** Whether a grant paces this pacer. */
    public boolean paced() {
        return bytes != null;
    }

    /**
     * 0 when a frame of {@code frameBytes} holding {@code frameEvents} may go now (both are taken), otherwise the
     * nanoseconds to hold it (nothing taken), {@link Bucket#NEVER} when it exceeds the grant's whole allowance and must
     * be split.
     */
    public synchronized long delay(long frameBytes, long frameEvents, long now) {
        Bucket b = bytes, e = events;
        if (b == null) {
            return 0;
        }
        long wait = b.reserve(frameBytes, now);
        if (wait != 0) {
            return wait;
        }
        wait = e.reserve(frameEvents, now);
        if (wait != 0) {
            b.release(frameBytes, now);
        }
        return wait;
    }
}
