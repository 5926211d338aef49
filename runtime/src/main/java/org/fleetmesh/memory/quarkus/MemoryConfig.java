package org.fleetmesh.memory.quarkus;

import java.time.Duration;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The heap trim ({@code fleetmesh.memory.heap-trim.*}, or {@code FLEETMESH_MEMORY_HEAP_TRIM_*}; docs/OPERATING.md
 * "Memory and disk"): a full collection when the old generation's garbage passes a bound while the node is busy, or a
 * smaller one once it is quiet, so the JVM gives that memory back to the system. Serial collector only (G1 has
 * {@code G1PeriodicGCInterval}).
 */
@ConfigMapping(prefix = "fleetmesh.memory.heap-trim")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface MemoryConfig {

    /** false: the heap is left to the collector alone. */
    @WithDefault("true")
    boolean enabled();

    /** How often the heap is read. */
    @WithDefault("2s")
    Duration interval();

    /** Young collections per reading that still count as quiet (one per eden filled: the allocation rate). */
    @WithDefault("1")
    int quietYoungCollections();

    /** How long the node must have been quiet before an idle trim. */
    @WithDefault("10s")
    Duration quiet();

    /** Old-generation growth past its live data (at the last full collection), in MiB, worth an idle trim. */
    @WithDefault("16")
    int idleGrowthMib();

    /**
     * Old-generation growth past its live data, in MiB, that is collected even while the node is busy: a soft ceiling
     * on the garbage a burst leaves (0: none; the heap then grows to -Xmx before the JVM collects it).
     */
    @WithDefault("64")
    int busyGrowthMib();

    /**
     * Committed heap, in MiB, below which no idle trim runs. Low enough that the first idle trim after start-up runs
     * (boot leaves 20-25 MiB of garbage in the old generation of a heap of about 40 MiB).
     */
    @WithDefault("24")
    int floorMib();

    /** The least time between two idle trims. */
    @WithDefault("60s")
    Duration idleSpacing();
}
