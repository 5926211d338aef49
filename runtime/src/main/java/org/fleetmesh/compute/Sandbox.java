package org.fleetmesh.compute;

import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import org.fleetmesh.compute.wasi.Preview1;
import org.fleetmesh.compute.wasm.Admission;
import org.fleetmesh.compute.wasm.Metering;
import org.fleetmesh.compute.wasm.ModuleReader;
import org.fleetmesh.spi.compute.ComputeRuntime;
import org.fleetmesh.spi.compute.Ending;
import org.fleetmesh.spi.compute.HostAbort;
import org.fleetmesh.spi.compute.Metered;
import org.fleetmesh.spi.compute.Run;

/**
 * Runs jobs (docs/spec/compute-sandbox.md): checks the module and input against the spec's hashes and the node's
 * limits, admits and meters the module (metered modules cached by module hash and memory cap, at most
 * {@link #CACHE}), runs it on one engine with the WASI preview 1 host, and maps how the run ended to a
 * {@link JobResult} or a {@link JobFailure}. {@code fuel_used} = the job's fuel limit − the fuel left. Thread-safe:
 * each run has its own host and instance.
 */
public final class Sandbox {
    /** Metered modules kept (by module hash, memory cap and metered or not). */
    public static final int CACHE = 64;

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

    private record Prepared(byte[] bytes, String hash) {
    }

    private final ComputeRuntime runtime;
    private final Limits limits;
    private final Admission admission;
    private final Map<String, Prepared> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Prepared> e) {
            return size() > CACHE;
        }
    };

    public Sandbox(ComputeRuntime runtime, Limits limits) {
        this.runtime = runtime;
        this.limits = limits;
        this.admission = new Admission(limits.maxModuleBytes(), limits.floats() == Floats.REFUSE);
    }

    public ComputeRuntime runtime() {
        return runtime;
    }

    public Limits limits() {
        return limits;
    }

    /** Runs the job metered: the result every conforming runtime gives. */
    public JobResult run(byte[] module, byte[] input, JobSpec spec) throws JobFailure {
        return execute(module, input, spec, true);
    }

    /**
     * Runs the job WITHOUT metering instructions (admission and the host are the same, host calls still charge fuel):
     * only for measuring what metering costs on an engine. Its {@code fuel_used} counts host calls alone, and a
     * {@code memory.grow} past the cap returns -1 instead of ending the job.
     */
    public JobResult runPlain(byte[] module, byte[] input, JobSpec spec) throws JobFailure {
        return execute(module, input, spec, false);
    }

    /** The module as the engine is given it for this job: admitted and metered (what every engine runs). */
    public byte[] metered(byte[] module, JobSpec spec) throws JobFailure {
        checkSpec(module, spec);
        return prepare(module, spec, true).bytes();
    }

    private void checkSpec(byte[] module, JobSpec spec) throws JobFailure {
        if (!JobSpec.sha256(module).equals(spec.module())) {
            throw new JobFailure(JobFailure.Reason.INVALID_MODULE, "its SHA-256 is not the job's module hash", 0);
        }
        if (spec.fuelLimit() > limits.maxFuel()) {
            throw new JobFailure(JobFailure.Reason.FUEL_EXHAUSTED, "the job asks for " + spec.fuelLimit()
                    + " fuel, more than this node's " + limits.maxFuel(), 0);
        }
        if (spec.memoryPages() > limits.maxMemoryPages()) {
            throw new JobFailure(JobFailure.Reason.MEMORY_LIMIT, "the job asks for " + spec.memoryPages()
                    + " pages, more than this node's " + limits.maxMemoryPages(), 0);
        }
    }

    private Prepared prepare(byte[] module, JobSpec spec, boolean meter) throws JobFailure {
        String key = spec.module() + "/" + spec.memoryPages() + (meter ? "/m" : "/p");
        synchronized (cache) {
            Prepared p = cache.get(key);
            if (p != null) {
                return p;
            }
        }
        ModuleReader.Module m = admission.admit(module, spec.memoryPages());
        byte[] bytes = meter ? Metering.instrument(m, spec.memoryPages()) : Metering.exportsOnly(m);
        Prepared p = new Prepared(bytes, JobSpec.sha256(bytes));
        synchronized (cache) {
            cache.put(key, p);
        }
        return p;
    }

    private JobResult execute(byte[] module, byte[] input, JobSpec spec, boolean meter) throws JobFailure {
        checkSpec(module, spec);
        if (!JobSpec.sha256(input).equals(spec.input())) {
            throw new IllegalArgumentException("input: its SHA-256 is not the job's input digest");
        }
        Prepared p = prepare(module, spec, meter);
        Preview1 host = new Preview1(spec.args(), input, spec.time(), HexFormat.of().parseHex(spec.seed()),
                limits.outputLimit());
        Ending e = runtime.run(new Run(p.bytes(), p.hash(), spec.memoryPages(), host, spec.fuelLimit(),
                limits.timeout()));
        long used = e.fuel() < 0 ? spec.fuelLimit() : Math.min(spec.fuelLimit(), spec.fuelLimit() - e.fuel());
        switch (e.kind()) {
            case RETURNED, EXITED -> {
                byte[] out = host.stdout();
                return new JobResult(e.kind() == Ending.Kind.RETURNED ? 0 : e.exitCode(), out, host.stderr(), used,
                        spec.module(), spec.input(), JobSpec.sha256(out));
            }
            case TIMEOUT -> throw new JobFailure(JobFailure.Reason.TIMEOUT, "after " + limits.timeout(), used);
            case NOT_INSTANTIATED -> throw new JobFailure(JobFailure.Reason.INVALID_MODULE,
                    "not instantiated: " + e.detail(), 0);
            case ABORTED -> {
                HostAbort.Reason r = e.abort();
                if (r == HostAbort.Reason.FUEL_EXHAUSTED) {
                    throw new JobFailure(JobFailure.Reason.FUEL_EXHAUSTED, "", spec.fuelLimit());
                }
                if (r == HostAbort.Reason.OUTPUT_LIMIT) {
                    throw new JobFailure(JobFailure.Reason.OUTPUT_LIMIT, limits.outputLimit() + " bytes", used);
                }
                throw new JobFailure(JobFailure.Reason.TRAP, String.valueOf(e.detail()), used);
            }
            default -> {
                if ((e.flags() & Metered.FLAG_MEMORY_LIMIT) != 0) {
                    throw new JobFailure(JobFailure.Reason.MEMORY_LIMIT, spec.memoryPages() + " pages", used);
                }
                if (e.fuel() < 0) {
                    throw new JobFailure(JobFailure.Reason.FUEL_EXHAUSTED, "", spec.fuelLimit());
                }
                throw new JobFailure(JobFailure.Reason.TRAP, String.valueOf(e.detail()), used);
            }
        }
    }
}
