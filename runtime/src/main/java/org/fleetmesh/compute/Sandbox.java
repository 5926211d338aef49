package org.fleetmesh.compute;

import java.time.Duration;

import org.fleetmesh.spi.compute.ComputeRuntime;

/**
 * Runs jobs (docs/spec/compute-sandbox.md): checks the module and input against the spec's hashes, admits and meters
 * the module (metered modules cached by hash, bounded), runs it on one engine with the WASI preview 1 host, and maps
 * how the run ended to a {@link JobResult} or a {@link JobFailure}. Thread-safe: each run has its own host and
 * instance.
 */
public final class Sandbox {

    /** What a module may use of floating point (docs/spec/compute-sandbox.md, "NaN policy"). */
    public enum Floats {
        /** Floats admitted; NaN bit patterns are not canonicalized. */
        ADMIT,
        /** Modules with any f32/f64 type or instruction are refused. */
        REFUSE
    }

    /**
     * The node's bounds on every job: fuel limit, memory pages, wall clock, stdout+stderr bytes, module bytes, floats.
     */
    public record Limits(long maxFuel, int maxMemoryPages, Duration timeout, int outputLimit, int maxModuleBytes,
            Floats floats) {
        public static Limits defaults() {
            return new Limits(10_000_000_000L, 1024, Duration.ofSeconds(30), 4 << 20, 8 << 20, Floats.ADMIT);
        }
    }

    private final ComputeRuntime runtime;
    private final Limits limits;

    public Sandbox(ComputeRuntime runtime, Limits limits) {
        this.runtime = runtime;
        this.limits = limits;
    }

    public ComputeRuntime runtime() {
        return runtime;
    }

    public Limits limits() {
        return limits;
    }

    /** Runs the job metered: the result every conforming runtime gives. */
    public JobResult run(byte[] module, byte[] input, JobSpec spec) throws JobFailure {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Runs the job WITHOUT metering instructions (admission and the host are the same, host calls still charge fuel):
     * only for measuring what metering costs on an engine. Its {@code fuel_used} counts host calls alone.
     */
    public JobResult runPlain(byte[] module, byte[] input, JobSpec spec) throws JobFailure {
        throw new UnsupportedOperationException("skeleton");
    }
}
