package org.fleetmesh.status;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bound on concurrent status streams ({@code fleetmesh.status.max-streams}): a stream takes a slot before it
 * starts and gives it back when it ends; beyond the bound a new one is refused, never queued.
 */
public final class StreamSlots {
    private final int max;
    private final AtomicInteger inUse = new AtomicInteger();

    public StreamSlots(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("max-streams is at least 0, not " + max);
        }
        this.max = max;
    }

    /** Takes a slot; false (and nothing taken) when all {@link #max()} are in use. */
    public boolean tryAcquire() {
        while (true) {
            int n = inUse.get();
            if (n >= max) {
                return false;
            }
            if (inUse.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives back a slot taken by {@link #tryAcquire()}; call once per slot taken. */
    public void release() {
        if (inUse.getAndUpdate(n -> n > 0 ? n - 1 : 0) == 0) {
            throw new IllegalStateException("released a slot that was not taken");
        }
    }

    public int inUse() {
        return inUse.get();
    }

    public int max() {
        return max;
    }
}
