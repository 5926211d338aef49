package org.fleetmesh.shards.quarkus;

import java.time.Duration;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Shards ({@code fleetmesh.shards.*}, {@code FLEETMESH_SHARDS_*}; docs/spec/shards.md): the shards this node declares
 * and how often it republishes their claims.
 */
@ConfigMapping(prefix = "fleetmesh.shards")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface ShardsConfig {

    /**
     * The declared shards, a JSON array of {@code {"id", "filter", "mode"}}; also read from {@code fleetmesh.shards}
     * ({@code FLEETMESH_SHARDS}), the name operators use, which wins when both are set.
     */
    Optional<String> declared();

    /** A claim is republished at most this often, and only when its figures changed. */
    @WithDefault("10s")
    Duration claimInterval();
}
