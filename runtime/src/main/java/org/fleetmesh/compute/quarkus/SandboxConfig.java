package org.fleetmesh.compute.quarkus;

import java.time.Duration;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The node's compute sandbox ({@code fleetmesh.compute.sandbox.*}, {@code FLEETMESH_COMPUTE_SANDBOX_*};
 * docs/spec/compute-sandbox.md): which engine runs jobs and the bounds every job stays within.
 */
@ConfigMapping(prefix = "fleetmesh.compute.sandbox")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface SandboxConfig {

    /** Engine id: {@code chicory} (compiled to JVM bytecode), {@code chicory-interpreter}, {@code wasmtime}. */
    @WithDefault("chicory")
    String runtime();

    /** The largest fuel limit a job may ask for. */
    @WithDefault("10000000000")
    long maxFuel();

    /** The largest memory a job may ask for, in 64 KiB pages (1024 = 64 MiB). */
    @WithDefault("1024")
    int maxMemoryPages();

    /** Wall-clock limit of one run. */
    @WithDefault("30s")
    Duration timeout();

    /** Bytes of stdout and stderr together one job may write. */
    @WithDefault("4194304")
    int outputLimit();

    /** Bytes of a module at most. */
    @WithDefault("8388608")
    int maxModuleBytes();

    /** {@code admit} (NaN bits not canonicalized) or {@code refuse} (modules using f32/f64 are refused). */
    @WithDefault("admit")
    String floats();

    /** Jobs that run at once. */
    @WithDefault("1")
    int concurrency();

    /** Jobs waiting for a free slot; a job past this is refused (busy). */
    @WithDefault("16")
    int queue();
}
