package org.fleetmesh.compute.wasm;

/**
 * Injects deterministic fuel metering into an admitted module (docs/spec/compute-sandbox.md, "Fuel"): a charge at the
 * start of each metered block, dynamic charges for memory.grow and bulk operations, and the exported globals
 * {@code fleetmesh_fuel} and {@code fleetmesh_flags} appended to the global index space.
 */
public final class Metering {
    private Metering() {
    }

    /** The metered module for a job whose memory cap is {@code memoryPages}. */
    public static byte[] instrument(ModuleReader.Module module, int memoryPages) {
        throw new UnsupportedOperationException("skeleton");
    }

    /** The module with the two exported globals added and no instruction metered (for measuring metering). */
    public static byte[] exportsOnly(ModuleReader.Module module) {
        throw new UnsupportedOperationException("skeleton");
    }
}
