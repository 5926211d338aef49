package org.fleetmesh.peering.quarkus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.peering.budget.ViolationPolicy;
import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.fleetmesh.peering.link.LinkPolicy;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How this node holds its mesh peers to their grants ({@code fleetmesh.grants.*}, {@code FLEETMESH_GRANTS_*};
 * docs/spec/grants.md and link-events.md).
 */
@ConfigMapping(prefix = "fleetmesh.grants")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface GrantsConfig {

    /** The tier window: budgets are per window, and a clean window adds to a peer's streak. */
    @WithDefault("60s")
    Duration window();

    /** Clean windows in a row that climb a peer one tier. */
    @WithDefault("10")
    int climbAfter();

    /** Bytes per window each tier grants a peer by default, tier 0 first. */
    @WithDefault("262144,4194304,33554432,268435456")
    List<Long> tierBytes();

    /** Events per window each tier grants a peer by default, tier 0 first (as many entries as tier-bytes). */
    @WithDefault("60,600,6000,60000")
    List<Long> tierEvents();

    /** Violations tolerated in a period before the peer's rates are lowered (bee's payment threshold). */
    @WithDefault("10")
    int violationThreshold();

    /** Violations past the threshold before the link ends and the peer is quarantined (bee's tolerance). */
    @WithDefault("5")
    int violationTolerance();

    /** The period violations are counted in. */
    @WithDefault("60s")
    Duration violationPeriod();

    /** How long a quarantined peer is refused. */
    @WithDefault("1h")
    Duration quarantine();

    /** How long a grant this node signs is valid (NIP-40 expiration); renewed at half of it. */
    @WithDefault("24h")
    Duration grantValidity();

    /** Events one MESH-EVENTS frame may carry. */
    @WithDefault("500")
    int maxFrameEvents();

    /** UTF-8 bytes of one link message. */
    @WithDefault("1048576")
    long maxFrameBytes();

    /** The strain ledger's half-life. */
    @WithDefault("1h")
    Duration strainHalfLife();

    /** Peers whose accounts are kept in memory (others are reloaded from the ledger when they return). */
    @WithDefault("10000")
    int maxPeers();

    default LinkPolicy policy() {
        List<Long> bytes = tierBytes();
        List<Long> events = tierEvents();
        if (bytes.size() != events.size() || bytes.isEmpty()) {
            throw new IllegalArgumentException("fleetmesh.grants.tier-bytes and .tier-events need one entry per tier,"
                    + " tier 0 first; got " + bytes.size() + " and " + events.size());
        }
        List<Tier> tiers = new ArrayList<>();
        for (int i = 0; i < bytes.size(); i++) {
            Tier d = TierPolicy.DEFAULT.tier(i); // REQs and subscriptions are the client limits' business
            tiers.add(new Tier(i, bytes.get(i), events.get(i), d.reqsPerWindow(), d.subscriptions()));
        }
        TierPolicy tierPolicy = new TierPolicy(tiers, Math.max(1, window().toSeconds()), climbAfter());
        return new LinkPolicy(tierPolicy, new ViolationPolicy(violationThreshold(), violationTolerance(),
                Math.max(1, violationPeriod().toSeconds())), quarantine(), grantValidity(), maxFrameEvents(),
                maxFrameBytes(), strainHalfLife());
    }
}
