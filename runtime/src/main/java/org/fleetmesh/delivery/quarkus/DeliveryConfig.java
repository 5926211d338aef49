package org.fleetmesh.delivery.quarkus;

import java.time.Duration;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Delivery over the mesh links ({@code fleetmesh.delivery.*}, {@code FLEETMESH_DELIVERY_*}; docs/spec/delivery.md):
 * what this node asks its peers to forward, and how it frames, paces and receipts what it forwards.
 */
@ConfigMapping(prefix = "fleetmesh.delivery")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface DeliveryConfig {

    /**
     * The NIP-01 filters this node asks of every peer, a JSON array ({@code []}: nothing); also read from
     * {@code fleetmesh.federate} ({@code FLEETMESH_FEDERATE}), the name operators use, which wins when both are set. A
     * peer declared through the admin API may carry its own.
     */
    Optional<String> federate();

    /** Custody receipts on (the protocol); {@code false} answers frames {@code MESH-EVENTS-OK}, for measurements. */
    @WithDefault("true")
    boolean receipts();

    /** Events one forwarded frame holds at most (the peer's {@code fleetmesh.grants.max-frame-events} bounds it). */
    @WithDefault("100")
    int frameEvents();

    /** UTF-8 bytes of one forwarded frame's events at most (the peer's {@code max-frame-bytes} bounds the message). */
    @WithDefault("131072")
    int frameBytes();

    /** Frames sent to one peer and not yet receipted. */
    @WithDefault("16")
    int inFlight();

    /** An event that has crossed this many links is not forwarded further. */
    @WithDefault("4")
    int maxHops();

    /** How far a frame's {@code time} may lie from this node's clock, either way. */
    @WithDefault("300s")
    Duration maxSkew();

    /** Filters one {@code MESH-FEDERATE} (and the federate settings) may hold. */
    @WithDefault("16")
    int maxFilters();

    /** Threads doing delivery's storage work (scans, ledger writes), off the links' threads. */
    @WithDefault("2")
    int ioThreads();

    /** Storage tasks waiting for those threads. */
    @WithDefault("4096")
    int ioQueue();
}
