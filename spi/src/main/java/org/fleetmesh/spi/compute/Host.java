package org.fleetmesh.spi.compute;

import java.util.List;

/**
 * The host functions a job's module may import (fleetmesh's WASI preview 1). An engine links every import of the
 * module to the entry of {@link #imports()} with the same module, name and signature (admission has already refused
 * any other import) and forwards each call to {@link #call}.
 */
public interface Host {

    List<HostImport> imports();

    /**
     * Calls {@code imports().get(index)}. Returns the results (empty for none). Throws {@link GuestExit} when the
     * guest called {@code proc_exit}, {@link HostAbort} when the job must stop (fuel, output limit, a memory fault);
     * the engine stops the instance and reports either in its {@link Ending}.
     */
    long[] call(int index, Guest guest, long[] args);
}
