package org.fleetmesh.spi.compute;

/** Names the core's metering injects into every module it hands to an engine (docs/spec/compute.md, "Fuel"). */
public final class Metered {
    /** Exported mutable i64 global: fuel left. The engine sets it to {@link Run#fuel()} before calling _start. */
    public static final String FUEL_GLOBAL = "fleetmesh_fuel";
    /** Exported mutable i32 global: bit 0 set when a {@code memory.grow} past the job's limit stopped the job. */
    public static final String FLAGS_GLOBAL = "fleetmesh_flags";
    /** Bit of {@link #FLAGS_GLOBAL}: the job asked for more memory than its limit. */
    public static final int FLAG_MEMORY_LIMIT = 1;
    /** The export every module runs: a WASI command's entry point. */
    public static final String START = "_start";
    /** The memory export WASI host functions read and write. */
    public static final String MEMORY = "memory";

    private Metered() {
    }
}
