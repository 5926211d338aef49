package org.fleetmesh.peering.budget;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One continuously refilling allowance (GCRA, the generic cell rate algorithm) for one peer, direction and
 * resource: {@code allowance} units per {@code windowNanos}, at most {@code allowance} at once. The only state is
 * the theoretical arrival time (TAT) in the caller's nanosecond clock; a check is a few long operations and one
 * compare-and-set, with no allocation and no floating point (docs/spec/grants.md, "Budget arithmetic").
 *
 * <p>Modelled on Swarm bee's accounting: {@link #reserve} before the work, then {@link #apply} the actual cost or
 * {@link #release} the reservation. Thread-safe. Times are {@link System#nanoTime()}-style values, compared by
 * difference so a wrapping clock is fine.
 */
public final class Bucket {
    /** {@link #reserve} answer for a cost larger than the whole allowance: it will never fit. */
    public static final long NEVER = Long.MAX_VALUE;

    private final long allowance;
    private final long interval; // nanoseconds one unit takes to refill
    private final long tau; // allowance * interval: how far the TAT may run ahead of now
    private final AtomicLong tat;

    /** A full bucket at {@code now}. */
    public Bucket(long allowance, long windowNanos, long now) {
        if (allowance < 1) {
            throw new IllegalArgumentException("an allowance must be at least 1, was " + allowance);
        }
        if (windowNanos < allowance) {
            throw new IllegalArgumentException("a window of " + windowNanos + " ns cannot refill " + allowance
                    + " units at a whole number of nanoseconds each");
        }
        this.allowance = allowance;
        this.interval = windowNanos / allowance;
        this.tau = interval * allowance;
        this.tat = new AtomicLong(now);
    }

    /**
     * Takes {@code cost} units if they are available at {@code now}: 0 when taken, otherwise the nanoseconds until
     * they will be (nothing taken), or {@link #NEVER} when {@code cost} exceeds the allowance.
     */
    public long reserve(long cost, long now) {
        if (cost < 0) {
            throw new IllegalArgumentException("a cost cannot be negative: " + cost);
        }
        if (cost > allowance) {
            return NEVER;
        }
        long increment = cost * interval; // <= tau <= windowNanos: no overflow
        while (true) {
            long t = tat.get();
            long next = (t - now < 0 ? now : t) + increment;
            long wait = next - tau - now;
            if (wait > 0) {
                return wait;
            }
            if (tat.compareAndSet(t, next)) {
                return 0;
            }
        }
    }

    /**
     * Commits the actual cost of work a {@link #reserve reservation} of {@code reserved} units covered: the
     * difference is charged or given back. An overrun may put the bucket in debt (later reservations wait longer),
     * by at most one further window.
     */
    public void apply(long reserved, long actual, long now) {
        if (reserved < 0 || actual < 0) {
            throw new IllegalArgumentException("costs cannot be negative: " + reserved + ", " + actual);
        }
        if (actual < reserved) {
            release(reserved - actual, now);
            return;
        }
        long extra = Math.min(actual - reserved, 2 * allowance) * interval; // capped: <= 2 * tau, no overflow
        while (true) {
            long t = tat.get();
            long next = (t - now < 0 ? now : t) + extra;
            if (next - now > 2 * tau) {
                next = now + 2 * tau; // the debt is at most one window beyond a full bucket
            }
            if (tat.compareAndSet(t, next)) {
                return;
            }
        }
    }

    /** Gives back a reservation of {@code reserved} units whose work was not done. */
    public void release(long reserved, long now) {
        if (reserved < 0 || reserved > allowance) {
            throw new IllegalArgumentException("cannot release " + reserved + " of an allowance of " + allowance);
        }
        long decrement = reserved * interval;
        while (true) {
            long t = tat.get();
            long next = t - decrement;
            if (next - now < 0) {
                next = now; // a bucket holds at most its allowance
            }
            if (t - now < 0 || tat.compareAndSet(t, next)) {
                return; // already full: nothing to give back
            }
        }
    }

    /** Whole units available at {@code now}. */
    public long available(long now) {
        long ahead = tat.get() - now;
        return ahead <= 0 ? allowance : Math.max(0, (tau - ahead) / interval);
    }

    /** Units spent and not yet refilled at {@code now}, rounded up (what the status shows as used). */
    public long used(long now) {
        return allowance - available(now);
    }

    public long allowance() {
        return allowance;
    }

    /** Nanoseconds one unit takes to refill: {@code windowNanos / allowance}, rounded down. */
    public long interval() {
        return interval;
    }
}
