package org.fleetmesh.relay.quarkus;

import java.time.Duration;

import org.fleetmesh.relay.capacity.CapacityPolicy;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Load shedding by priority ({@code fleetmesh.capacity.*}, or {@code FLEETMESH_CAPACITY_*}): the
 * pressure signal's high marks and the pressure from which each tier is shed (docs/OPERATING.md).
 */
@ConfigMapping(prefix = "fleetmesh.capacity")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface CapacityConfig {

    /** false: nothing is shed (the pressure is still measured and exported). */
    @WithDefault("true")
    boolean enabled();

    /** Fill of the write queue (fleetmesh.relay.write-queue-events) that counts as pressure 1.0. */
    @WithDefault("0.5")
    double writeQueueHigh();

    /** Commit latency (the commit in progress, or the last one) that counts as pressure 1.0. */
    @WithDefault("4s")
    Duration commitLatencyHigh();

    /** Fill of the heap after garbage collection that counts as pressure 1.0. */
    @WithDefault("0.95")
    double heapHigh();

    /** Fill of the heap after garbage collection that counts as pressure 0 (the scale runs from it to heap-high). */
    @WithDefault("0.5")
    double heapFloor();

    /** Fill of the query queue (REQ, COUNT, NEG-OPEN waiting for a thread) that counts as pressure 1.0. */
    @WithDefault("0.5")
    double queryQueueHigh();

    /** Pressure from which NEG-OPEN and bulk syncs are refused. */
    @WithDefault("0.5")
    double backfillLevel();

    /** Pressure from which peers' events are refused. */
    @WithDefault("0.7")
    double peerSyncLevel();

    /** Pressure from which client REQ (reading stored events) and COUNT are refused. */
    @WithDefault("0.85")
    double clientReqLevel();

    /** Pressure from which client EVENTs to be stored are refused. */
    @WithDefault("1.0")
    double clientEventLevel();

    /** A shed tier returns once the pressure is below this share of its level ... */
    @WithDefault("0.75")
    double restoreRatio();

    /** ... and has stayed there this long. */
    @WithDefault("2s")
    Duration restoreHold();

    /** The pressure is read at most this often (on the checking thread). */
    @WithDefault("100ms")
    Duration sampleEvery();

    default CapacityPolicy policy() {
        return new CapacityPolicy(enabled(), writeQueueHigh(), commitLatencyHigh(), heapHigh(), heapFloor(), queryQueueHigh(),
                backfillLevel(), peerSyncLevel(), clientReqLevel(), clientEventLevel(), restoreRatio(), restoreHold(),
                sampleEvery());
    }
}
