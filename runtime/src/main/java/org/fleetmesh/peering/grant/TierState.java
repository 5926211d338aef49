package org.fleetmesh.peering.grant;

/** Where one key stands: its tier, its run of clean windows, and whether the current window saw a violation. */
public record TierState(int level, int cleanStreak, boolean violatedThisWindow) {
    public TierState {
        if (level < 0 || cleanStreak < 0) {
            throw new IllegalArgumentException("level and streak cannot be negative");
        }
    }
}
