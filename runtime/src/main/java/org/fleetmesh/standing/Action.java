package org.fleetmesh.standing;

/** What a peer's {@code view_transit} makes this node do (docs/spec/standing.md, "Actions"). */
public enum Action {
    NONE, DEMOTE, SUSPEND, QUARANTINE;

    /** The action for a view: below quarantine-below quarantine, below suspend-below suspend, below demote-below demote. */
    public static Action of(double viewTransit, StandingPolicy p) {
        if (viewTransit < p.quarantineBelow()) {
            return QUARANTINE;
        }
        if (viewTransit < p.suspendBelow()) {
            return SUSPEND;
        }
        return viewTransit < p.demoteBelow() ? DEMOTE : NONE;
    }
}
