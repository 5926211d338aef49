package org.fleetmesh.peering.budget;

/** What the caller must do about a peer after a violation. */
public enum Verdict {
    /** Within the threshold: answer {@code rate-limited:} and carry on. */
    WITHIN,
    /** Past the threshold, within the tolerance band: lower the peer's rates (S1). */
    OVER_THRESHOLD,
    /** Past threshold plus tolerance: end the link and quarantine the peer (S3). */
    DISCONNECT
}
