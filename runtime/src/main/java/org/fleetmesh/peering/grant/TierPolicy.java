package org.fleetmesh.peering.grant;

import java.util.List;

/**
 * The tiers a key can stand in, 0 (the sandbox every unknown key starts in) to {@code tiers.size() - 1}, over one
 * window length, and how many clean windows in a row climb one tier (docs/spec/grants.md, "Tiers").
 */
public record TierPolicy(List<Tier> tiers, long windowSeconds, int cleanWindowsToClimb) {
    /** Four tiers over a minute; ten clean minutes climb one. */
    public static final TierPolicy DEFAULT = new TierPolicy(List.of(
            new Tier(0, 256L * 1024, 60, 30, 4),
            new Tier(1, 4L * 1024 * 1024, 600, 300, 16),
            new Tier(2, 32L * 1024 * 1024, 6_000, 1_200, 64),
            new Tier(3, 256L * 1024 * 1024, 60_000, 6_000, 256)), 60, 10);

    public TierPolicy {
        tiers = List.copyOf(tiers);
        if (tiers.isEmpty()) {
            throw new IllegalArgumentException("at least tier 0 is needed");
        }
        for (int i = 0; i < tiers.size(); i++) {
            if (tiers.get(i).level() != i) {
                throw new IllegalArgumentException("tiers must be listed 0, 1, 2, ... in order; position " + i
                        + " holds tier " + tiers.get(i).level());
            }
        }
        if (windowSeconds < 1 || windowSeconds > GrantTerms.MAX_WINDOW_SECONDS) {
            throw new IllegalArgumentException("a window must be 1.." + GrantTerms.MAX_WINDOW_SECONDS + " s");
        }
        if (cleanWindowsToClimb < 1) {
            throw new IllegalArgumentException("climbing must take at least one clean window");
        }
        for (Tier t : tiers) {
            t.allowance(windowSeconds); // every figure must fit the window's nanosecond arithmetic
        }
    }

    public Tier tier(int level) {
        return tiers.get(Math.max(0, Math.min(level, top())));
    }

    /** The highest tier's level. */
    public int top() {
        return tiers.size() - 1;
    }

    /** Where a key the node has not seen before starts: tier 0, no clean windows yet. */
    public TierState fresh() {
        return new TierState(0, 0, false);
    }

    /** The window ended: a clean one adds to the streak and climbs at the configured length; then a new window. */
    public TierState windowEnded(TierState s) {
        if (s.violatedThisWindow()) {
            return new TierState(s.level(), 0, false);
        }
        int streak = s.cleanStreak() + 1;
        if (streak >= cleanWindowsToClimb && s.level() < top()) {
            return new TierState(s.level() + 1, 0, false);
        }
        return new TierState(s.level(), Math.min(streak, cleanWindowsToClimb), false);
    }

    /** A violation: the first in a window drops one tier (never below 0) and resets the streak; later ones no more. */
    public TierState violation(TierState s) {
        if (s.violatedThisWindow()) {
            return s;
        }
        return new TierState(Math.max(0, s.level() - 1), 0, true);
    }

    /** The default grant terms for a key at {@code level}, when none was agreed. */
    public GrantTerms defaultTerms(int level, String grantorDid, String granteeDid, long expiration) {
        Tier t = tier(level);
        return new GrantTerms(grantorDid, granteeDid, t.bytesPerWindow(), t.eventsPerWindow(), windowSeconds,
                t.level(), expiration);
    }
}
