package org.fleetmesh.peering.quarkus;

import java.time.Duration;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * NIP-66 monitoring of this relay and the peers' relays ({@code fleetmesh.monitor.*}, {@code FLEETMESH_MONITOR_*};
 * docs/spec/monitoring.md).
 */
@ConfigMapping(prefix = "fleetmesh.monitor")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface MonitorConfig {

    /** Monitoring on: probes, kind 30166 and 10166 events, and other monitors' hints in {@code /mesh/status}. */
    @WithDefault("true")
    boolean enabled();

    /** A round of checks against this relay and every declared peer's relay this often (at least 1s). */
    @WithDefault("3600s")
    Duration frequency();

    /** Per-check timeouts. */
    Timeout timeout();

    /** Other monitors remembered per relay URL (their latest discovery event each). */
    @WithDefault("16")
    int hintsPerRelay();

    /** Relay URLs other monitors' hints are remembered for (only this node's and its peers' relays are watched). */
    @WithDefault("1024")
    int hintRelays();

    interface Timeout {
        /** How long the WebSocket may take to open. */
        @WithDefault("5s")
        Duration open();

        /** How long a REQ may wait for its EOSE. */
        @WithDefault("3s")
        Duration read();

        /** How long an EVENT may wait for its OK. */
        @WithDefault("3s")
        Duration write();

        /** How long the NIP-11 document may take. */
        @WithDefault("3s")
        Duration nip11();
    }
}
