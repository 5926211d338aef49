package org.fleetmesh.standing;

import java.time.Duration;
import java.util.Objects;

/**
 * This node's own rules for weighing findings (docs/spec/standing.md; configuration {@code fleetmesh.standing.*}).
 *
 * @param s1 weight of an S1 finding
 * @param s2 weight of an S2 finding
 * @param s3 weight of an S3 finding
 * @param self weight of this node as observer
 * @param peer the most a peer observer weighs (times its own {@code view_transit})
 * @param attested factor on a peer's ATTESTED finding (its word only); this node's own count in full
 * @param minObserverTier observers below this tier at this node weigh nothing
 * @param halfLife a finding's weight halves every half life of age
 * @param demoteBelow a {@code view_transit} below this demotes the peer one tier
 * @param suspendBelow below this its grant is suspended
 * @param quarantineBelow below this it is quarantined
 * @param iterations rounds of observer re-weighting (EigenTrust-style), 1..16
 */
public record StandingPolicy(double s1, double s2, double s3, double self, double peer, double attested,
        int minObserverTier, Duration halfLife, double demoteBelow, double suspendBelow, double quarantineBelow,
        int iterations) {

    public static final int MAX_ITERATIONS = 16;

    public StandingPolicy {
        Objects.requireNonNull(halfLife, "halfLife");
        weight("weight.s1", s1);
        weight("weight.s2", s2);
        weight("weight.s3", s3);
        weight("weight.self", self);
        weight("weight.peer", peer);
        weight("weight.attested", attested);
        if (minObserverTier < 0) {
            throw new IllegalArgumentException("min-observer-tier must be >= 0, was " + minObserverTier);
        }
        if (halfLife.isNegative() || halfLife.isZero()) {
            throw new IllegalArgumentException("half-life must be positive, was " + halfLife);
        }
        threshold("demote-below", demoteBelow);
        threshold("suspend-below", suspendBelow);
        threshold("quarantine-below", quarantineBelow);
        if (demoteBelow < suspendBelow || suspendBelow < quarantineBelow) {
            throw new IllegalArgumentException("need demote-below >= suspend-below >= quarantine-below, were "
                    + demoteBelow + ", " + suspendBelow + ", " + quarantineBelow);
        }
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be in 1.." + MAX_ITERATIONS + ", was " + iterations);
        }
    }

    /** The defaults of docs/OPERATING.md. */
    public static StandingPolicy defaults() {
        return new StandingPolicy(0.1, 0.5, 1.0, 1.0, 0.5, 0.0, 1, Duration.ofDays(7), 0.95, 0.6, 0.2, 4);
    }

    /** The weight of a severity word, or -1 for one that is not S1, S2 or S3 (S0 is never published). */
    public double severity(String severity) {
        switch (severity) {
            case "S1":
                return s1;
            case "S2":
                return s2;
            case "S3":
                return s3;
            default:
                return -1;
        }
    }

    /** The same policy with another S2 weight (two nodes weighing one finding differently). */
    public StandingPolicy withS2(double weight) {
        return new StandingPolicy(s1, weight, s3, self, peer, attested, minObserverTier, halfLife, demoteBelow,
                suspendBelow, quarantineBelow, iterations);
    }

    private static void weight(String name, double w) {
        if (!(w >= 0) || Double.isInfinite(w)) {
            throw new IllegalArgumentException(name + " must be a finite number >= 0, was " + w);
        }
    }

    private static void threshold(String name, double t) {
        if (!(t >= 0 && t <= 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1], was " + t);
        }
    }
}
