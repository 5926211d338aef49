package org.fleetmesh.shards.quarkus;

import java.time.Duration;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Sampling of peers' asserted shards ({@code fleetmesh.sampling.*}, {@code FLEETMESH_SAMPLING_*};
 * docs/spec/sampling.md): how often, how many events a round asks for, and the grace an event gets before its
 * absence counts.
 */
@ConfigMapping(prefix = "fleetmesh.sampling")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface SamplingConfig {

    /** Sampling on. */
    @WithDefault("true")
    boolean enabled();

    /** A round against every declared peer this often (the first one interval after the start). */
    @WithDefault("60s")
    Duration interval();

    /** Events drawn per asserted claim and round ({@code k}, 1..1000): 46 catch a 1% withholder with P 0.37 a round. */
    @WithDefault("46")
    int samples();

    /** An event must predate the claim's {@code created_at} by this much before its absence counts. */
    @WithDefault("300s")
    Duration grace();

    /** A claim of at most this many events is fetched whole, once, and checked against its figures; 0: never. */
    @WithDefault("1000")
    int checkMax();

    /** Events of a shard this node does not declare read from the store per draw, newest first. */
    @WithDefault("100000")
    int maxScan();

    /** How long one connection to a peer's relay may take to answer a REQ. */
    @WithDefault("10s")
    Duration timeout();
}
