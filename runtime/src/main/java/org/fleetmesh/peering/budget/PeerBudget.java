package org.fleetmesh.peering.budget;

import java.util.function.LongSupplier;

/**
 * Everything one peer (or client) may spend, per direction and resource, each a {@link Bucket}, and its
 * {@link Violations}. The clock is injected (nanoseconds), so tests drive time.
 */
public final class PeerBudget {
    private static final Resource[] RESOURCES = Resource.values();

    private final Bucket[][] buckets = new Bucket[Direction.values().length][RESOURCES.length];
    private final Allowance[] allowances = new Allowance[Direction.values().length];
    private final Violations violations;
    private final LongSupplier clock;

    /** {@code in} holds what this node granted the peer, {@code out} what the peer granted this node. */
    public PeerBudget(Allowance in, Allowance out, ViolationPolicy policy, LongSupplier clock) {
        this.clock = clock;
        this.violations = new Violations(policy);
        long now = clock.getAsLong();
        set(Direction.IN, in, now);
        set(Direction.OUT, out, now);
    }

    private void set(Direction d, Allowance a, long now) {
        allowances[d.ordinal()] = a;
        for (Resource r : RESOURCES) {
            long v = a.of(r);
            buckets[d.ordinal()][r.ordinal()] = v == 0 ? null : new Bucket(v, a.windowNanos(), now);
        }
    }

    /**
     * Reserves {@code bytes} and {@code events} in direction {@code d}, both or neither: 0 when reserved, otherwise
     * the nanoseconds until both would fit ({@link Bucket#NEVER} when one exceeds its whole allowance).
     */
    public long reserve(Direction d, long bytes, long events) {
        long now = clock.getAsLong();
        Bucket b = bucket(d, Resource.BYTES);
        Bucket e = bucket(d, Resource.EVENTS);
        long wait = b == null ? 0 : b.reserve(bytes, now);
        if (wait != 0) {
            return wait;
        }
        wait = e == null ? 0 : e.reserve(events, now);
        if (wait != 0 && b != null) {
            b.release(bytes, now);
        }
        return wait;
    }

    /** Commits the actual bytes and events of work a {@link #reserve} covered. */
    public void apply(Direction d, long reservedBytes, long reservedEvents, long actualBytes, long actualEvents) {
        long now = clock.getAsLong();
        Bucket b = bucket(d, Resource.BYTES);
        Bucket e = bucket(d, Resource.EVENTS);
        if (b != null) {
            b.apply(reservedBytes, actualBytes, now);
        }
        if (e != null) {
            e.apply(reservedEvents, actualEvents, now);
        }
    }

    /** Gives back a {@link #reserve} whose work was not done. */
    public void release(Direction d, long bytes, long events) {
        long now = clock.getAsLong();
        Bucket b = bucket(d, Resource.BYTES);
        Bucket e = bucket(d, Resource.EVENTS);
        if (b != null) {
            b.release(bytes, now);
        }
        if (e != null) {
            e.release(events, now);
        }
    }

    /** Reserves one REQ (clients): 0 or the nanoseconds until one fits. */
    public long reserveReq(Direction d) {
        Bucket r = bucket(d, Resource.REQS);
        return r == null ? 0 : r.reserve(1, clock.getAsLong());
    }

    /** Counts a violation now; the caller records one for each inbound refusal. */
    public Verdict violation() {
        return violations.record(clock.getAsLong());
    }

    /** The bucket for {@code d} and {@code r}, or null when that resource is not metered. */
    public Bucket bucket(Direction d, Resource r) {
        return buckets[d.ordinal()][r.ordinal()];
    }

    /** Units of {@code r} used in {@code d} and not yet refilled (0 when not metered). */
    public long used(Direction d, Resource r) {
        Bucket b = bucket(d, r);
        return b == null ? 0 : b.used(clock.getAsLong());
    }

    public Allowance allowance(Direction d) {
        return allowances[d.ordinal()];
    }

    public Violations violations() {
        return violations;
    }
}
