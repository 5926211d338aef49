package org.fleetmesh.status.quarkus;

import java.time.Duration;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The status page ({@code fleetmesh.status.*}, {@code FLEETMESH_STATUS_*}; docs/spec/mesh-link.md, "Status page"):
 * how many live streams it serves at once, how often each gets a snapshot, the rate samples behind its plots, and who
 * may read {@code /q/metrics}.
 */
@ConfigMapping(prefix = "fleetmesh.status")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface StatusConfig {
    /** Concurrent {@code GET /mesh/status/stream} streams at most; one more is refused with 503. */
    @WithDefault("8")
    int maxStreams();

    /** How often an open stream gets a status snapshot (at least 250ms). */
    @WithDefault("1s")
    Duration streamInterval();

    /**
     * How long one stream lasts (at least 1s): then it is ended, and a browser's EventSource opens a new one 2 s later
     * (the stream's {@code retry}). A client that stopped reading holds its slot no longer than this, even while the
     * kernel's buffers still take the snapshots it does not read.
     */
    @WithDefault("10m")
    Duration streamMaxAge();

    /** How often the counters behind the rate plots are sampled (at least 1s). */
    @WithDefault("10s")
    Duration sampleInterval();

    /** Rate samples kept (with the 10 s default: 360 = the last hour). 1..10000. */
    @WithDefault("360")
    int samples();

    /**
     * {@code true}: {@code /q/metrics} is served to anyone who can reach the port; {@code false}: with the access rule
     * of {@code /mesh/status} (loopback without a token, elsewhere {@code admin:read}), since the metrics name the
     * peers and what flows between them.
     */
    @WithDefault("false")
    boolean metricsPublic();
}
