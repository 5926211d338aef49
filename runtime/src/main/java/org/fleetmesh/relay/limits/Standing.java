package org.fleetmesh.relay.limits;

import org.fleetmesh.peering.budget.Bucket;
import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.fleetmesh.peering.grant.TierState;

/**
 * Where one key (a source address or a pubkey) stands: its tier state, the window it is in, and one bucket per
 * resource at its tier's allowance. Windows are counted from when the key was first seen; every window that ended
 * without a violation is clean. A tier change rebuilds the buckets at the new allowance, keeping the fraction
 * already spent, so a fall never hands a flooder a full bucket.
 */
public final class Standing {
    private final TierPolicy policy;
    private final long windowNanos;
    private TierState state;
    private long windowStart;
    private Bucket bytes;
    private Bucket events;
    private Bucket reqs;
    private int subscriptions;

    Standing(TierPolicy policy, long now) {
        this.policy = policy;
        this.windowNanos = policy.windowSeconds() * 1_000_000_000L;
        this.state = policy.fresh();
        this.windowStart = now;
        build(policy.tier(0), null, now);
    }

    private void build(Tier t, Standing.Spent spent, long now) {
        Bucket b = new Bucket(t.bytesPerWindow(), windowNanos, now);
        Bucket e = new Bucket(t.eventsPerWindow(), windowNanos, now);
        Bucket r = new Bucket(t.reqsPerWindow(), windowNanos, now);
        if (spent != null) {
            spend(b, spent.bytes, now);
            spend(e, spent.events, now);
            spend(r, spent.reqs, now);
        }
        bytes = b;
        events = e;
        reqs = r;
    }

    /** Charges a fraction (in millionths) of a fresh bucket's allowance. */
    private static void spend(Bucket b, long millionths, long now) {
        long units = (long) Math.ceil(b.allowance() * (millionths / 1_000_000.0));
        if (units > 0) {
            b.apply(0, Math.min(units, b.allowance()), now);
        }
    }

    private record Spent(long bytes, long events, long reqs) {
    }

    private static long fraction(Bucket b, long now) {
        return b.used(now) * 1_000_000 / b.allowance();
    }

    /** Ends the windows that have passed by {@code now}; more than enough to reach the top change nothing more. */
    private void roll(long now) {
        long elapsed = now - windowStart;
        if (elapsed < windowNanos) {
            return;
        }
        long windows = elapsed / windowNanos;
        long enough = (long) (policy.top() + 1) * policy.cleanWindowsToClimb() + 1;
        TierState s = state;
        for (long i = 0; i < Math.min(windows, enough); i++) {
            s = policy.windowEnded(s);
        }
        windowStart += windows * windowNanos;
        moveTo(s, now);
    }

    private void moveTo(TierState s, long now) {
        int before = state.level();
        state = s;
        if (s.level() != before) {
            build(policy.tier(s.level()), new Spent(fraction(bytes, now), fraction(events, now), fraction(reqs, now)), now);
        }
    }

    /**
     * Takes one event of {@code size} bytes, both or neither: 0 when taken, else the nanoseconds until it would fit,
     * or {@link Bucket#NEVER} when it is larger than the tier allows in a whole window.
     */
    synchronized long reserveEvent(long size, long now) {
        roll(now);
        long wait = bytes.reserve(size, now);
        if (wait != 0) {
            return wait;
        }
        wait = events.reserve(1, now);
        if (wait != 0) {
            bytes.release(size, now);
        }
        return wait;
    }

    /** Gives back an event whose work was not done (refused or a duplicate). */
    synchronized void releaseEvent(long size, long now) {
        bytes.release(Math.min(size, bytes.allowance()), now); // the tier may have changed since the reservation
        events.release(1, now);
    }

    synchronized long reserveReq(long now) {
        roll(now);
        return reqs.reserve(1, now);
    }

    synchronized void releaseReq(long now) {
        reqs.release(1, now);
    }

    /** A refusal: the first in a window drops one tier and resets the streak. */
    synchronized void violation(long now) {
        roll(now);
        moveTo(policy.violation(state), now);
    }

    /** Whether one more subscription fits this key's tier. */
    synchronized boolean subscriptionFits(long now) {
        roll(now);
        return subscriptions < policy.tier(state.level()).subscriptions();
    }

    /** Subscriptions opened (positive) or ended (negative); never below zero. */
    synchronized void subscriptionsChanged(int delta) {
        subscriptions = Math.max(0, subscriptions + delta);
    }

    synchronized int subscriptions() {
        return subscriptions;
    }

    public synchronized TierState state(long now) {
        roll(now);
        return state;
    }

    public synchronized Tier tier(long now) {
        roll(now);
        return policy.tier(state.level());
    }
}
