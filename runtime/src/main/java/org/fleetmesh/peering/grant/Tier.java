package org.fleetmesh.peering.grant;

import org.fleetmesh.peering.budget.Allowance;

/**
 * One tier's budget per window: bytes, events and REQs a key may spend, and the subscriptions it may hold open.
 * Every figure is at least 1: a tier never locks a key out.
 */
public record Tier(int level, long bytesPerWindow, long eventsPerWindow, long reqsPerWindow, int subscriptions) {
    public Tier {
        if (level < 0 || level > GrantTerms.MAX_TIER) {
            throw new IllegalArgumentException("a tier level must be 0.." + GrantTerms.MAX_TIER + ", was " + level);
        }
        if (bytesPerWindow < 1 || eventsPerWindow < 1 || reqsPerWindow < 1 || subscriptions < 1) {
            throw new IllegalArgumentException("tier " + level + ": every budget must be at least 1");
        }
    }

    /** This tier's budget as an allowance over a window of {@code windowSeconds}. */
    public Allowance allowance(long windowSeconds) {
        return new Allowance(bytesPerWindow, eventsPerWindow, reqsPerWindow, windowSeconds);
    }
}
