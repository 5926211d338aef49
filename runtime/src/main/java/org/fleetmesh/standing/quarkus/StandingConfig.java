package org.fleetmesh.standing.quarkus;

import java.time.Duration;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How this node weighs findings and acts on its views ({@code fleetmesh.standing.*}, {@code FLEETMESH_STANDING_*};
 * docs/spec/standing.md): weights per severity and observer, the half life, the thresholds that demote, suspend and
 * quarantine a peer, and how many findings it keeps.
 */
@ConfigMapping(prefix = "fleetmesh.standing")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface StandingConfig {

    /** What one finding weighs, by severity and by who observed it. */
    Weight weight();

    interface Weight {
        /** An S1 finding (protocol deviation). */
        @WithDefault("0.1")
        double s1();

        /** An S2 finding (cryptographic or state breach). */
        @WithDefault("0.5")
        double s2();

        /** An S3 finding (denial of service). */
        @WithDefault("1.0")
        double s3();

        /** This node's own findings. */
        @WithDefault("1.0")
        double self();

        /** A peer's findings, times the peer's own view_transit here. */
        @WithDefault("0.5")
        double peer();

        /** A finding whose evidence is only the observer's word (ATTESTED), from another node. */
        @WithDefault("0.0")
        double attested();
    }

    /** An observer below this tier here weighs nothing (a fresh key cannot move a view). */
    @WithDefault("1")
    int minObserverTier();

    /** A finding weighs half as much this long after it was made. */
    @WithDefault("7d")
    Duration halfLife();

    /** A peer whose view_transit falls below this drops one tier. */
    @WithDefault("0.95")
    double demoteBelow();

    /** Below this, the grant this node gives the peer is suspended. */
    @WithDefault("0.6")
    double suspendBelow();

    /** Below this, the peer is quarantined for {@code fleetmesh.grants.quarantine}. */
    @WithDefault("0.2")
    double quarantineBelow();

    /** Rounds of observer weighting (EigenTrust-style, 1..16). */
    @WithDefault("4")
    int iterations();

    /** Findings kept; beyond it those that count for nothing are dropped, oldest first. */
    @WithDefault("10000")
    int maxFindings();

    /** Views are recomputed this often (and soon after each new counted finding). */
    @WithDefault("5s")
    Duration recomputeInterval();

    /** S2 findings this node signs, and S2 findings that verified and were new here, go to every linked peer. */
    @WithDefault("true")
    boolean broadcast();

    /** Received findings waiting to be verified; past it the oldest waiting is dropped (and counted). */
    @WithDefault("4096")
    int verifyQueue();

    /** Penalties (for false or malformed findings) this node signs per minute about publishers it has no link with. */
    @WithDefault("10")
    int strangerPenaltiesPerMinute();
}
