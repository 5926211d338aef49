package org.fleetmesh.peering.link;

import java.time.Duration;
import java.util.Objects;

import org.fleetmesh.peering.budget.ViolationPolicy;
import org.fleetmesh.peering.grant.TierPolicy;

/**
 * How this node holds its peers (configuration {@code fleetmesh.grants.*}, docs/spec/link-events.md): the tiers and
 * their default grants, when violations quarantine, for how long, how long a grant it signs is valid, the largest
 * frame, and the strain half-life.
 */
public record LinkPolicy(TierPolicy tiers, ViolationPolicy violations, Duration quarantine, Duration grantValidity,
        int maxFrameEvents, long maxFrameBytes, Duration strainHalfLife) {
    public static final LinkPolicy DEFAULT = new LinkPolicy(TierPolicy.DEFAULT, ViolationPolicy.DEFAULT,
            Duration.ofHours(1), Duration.ofHours(24), 500, 1 << 20, Duration.ofHours(1));

    public LinkPolicy {
        Objects.requireNonNull(tiers, "tiers");
        Objects.requireNonNull(violations, "violations");
        if (quarantine.isNegative() || grantValidity.toSeconds() < 60 || maxFrameEvents < 1 || maxFrameBytes < 1024
                || strainHalfLife.toNanos() < 1) {
            throw new IllegalArgumentException("quarantine >= 0, grant validity >= 60 s, at least 1 event and 1 KiB a"
                    + " frame, a positive strain half-life");
        }
    }
}
