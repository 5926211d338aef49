package org.fleetmesh.peering.budget;

/**
 * When refusals add up to misbehaviour, after bee's payment threshold and tolerance: more than {@code threshold}
 * violations within one period is over the threshold (the grantor lowers the peer's rates, S1); more than
 * {@code threshold + tolerance} ends the link and quarantines the peer (S3).
 */
public record ViolationPolicy(int threshold, int tolerance, long periodSeconds) {
    /** 10 violations a minute are tolerated, 5 more lower the rates, the 16th disconnects. */
    public static final ViolationPolicy DEFAULT = new ViolationPolicy(10, 5, 60);

    public ViolationPolicy {
        if (threshold < 0 || tolerance < 0 || periodSeconds < 1) {
            throw new IllegalArgumentException("threshold and tolerance must be >= 0 and the period >= 1 s");
        }
    }

    public long periodNanos() {
        return periodSeconds * 1_000_000_000L;
    }
}
