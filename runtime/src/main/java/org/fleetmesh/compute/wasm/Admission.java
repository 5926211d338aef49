package org.fleetmesh.compute.wasm;

import org.fleetmesh.compute.JobFailure;

/**
 * Decides whether a module may run (docs/spec/compute-sandbox.md, "Admission"); refusals are {@link JobFailure}s
 * with reason INVALID_MODULE or IMPORT_NOT_ALLOWED.
 */
public final class Admission {
    private final int maxModuleBytes;
    private final boolean refuseFloats;

    public Admission(int maxModuleBytes, boolean refuseFloats) {
        this.maxModuleBytes = maxModuleBytes;
        this.refuseFloats = refuseFloats;
    }

    /** Reads and checks {@code module} for a job with a memory cap of {@code memoryPages}. */
    public ModuleReader.Module admit(byte[] module, int memoryPages) throws JobFailure {
        throw new UnsupportedOperationException("skeleton");
    }
}
