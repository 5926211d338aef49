package org.fleetmesh.compute.wasmtime;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.Runtimes;
import org.fleetmesh.compute.Sandbox;
import org.fleetmesh.spi.compute.ComputeRuntime;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Ad hoc (run with {@code -Dtest=ComputeBench -Dbench=true}, optionally {@code -Dbench.seconds=N}; docs/BENCHMARKS.md
 * "Compute (issue 15)"): the same jobs through the core's Sandbox on chicory-interpreter, chicory (compiled to JVM
 * bytecode) and wasmtime, warm (engine caches full) in jobs/s and fuel/s, cold (a module never seen: admission,
 * metering, compilation and the run), and metered against plain (the same module without the injected fuel charges,
 * {@link Sandbox#runPlain}) on each engine. Every run's result is checked against the first, so a faster wrong answer
 * cannot count.
 */
class ComputeBench {
    static final Sandbox.Limits LIMITS = new Sandbox.Limits(10_000_000_000L, 256, Duration.ofMinutes(5), 4 << 20,
            8 << 20, Sandbox.Floats.ADMIT);

    record Job(String name, byte[] module, byte[] input, JobSpec spec) {
        static Job of(String module, byte[] input, List<String> args) throws IOException {
            byte[] m = CrossRuntimeTest.module(module);
            return new Job(module + (args.isEmpty() ? "" : " " + String.join(" ", args)) + " (" + input.length
                    + " B in)", m, input, new JobSpec(JobSpec.sha256(m), JobSpec.sha256(input), args, 5_000_000_000L,
                            64, 0, "00".repeat(32)));
        }

        /** The same module made new (a custom section with {@code n}): another hash, so nothing of it is cached. */
        Job fresh(int n) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(module);
            byte[] name = ("bench" + n).getBytes(StandardCharsets.UTF_8);
            b.write(0);
            b.write(name.length + 1);
            b.write(name.length);
            b.writeBytes(name);
            byte[] m = b.toByteArray();
            return new Job(name(), m, input, new JobSpec(JobSpec.sha256(m), spec.input(), spec.args(),
                    spec.fuelLimit(), spec.memoryPages(), spec.time(), spec.seed()));
        }
    }

    interface Body {
        JobResult run() throws JobFailure;
    }

    /**
     * Runs for about {@code seconds} (at least 3 runs) after warming up for half as long (JIT, engine caches);
     * returns {runs, nanos, fuel of one}.
     */
    static double[] measure(Body body, double seconds) throws JobFailure {
        JobResult first = body.run();
        long warmup = System.nanoTime() + (long) (seconds * 0.5e9);
        while (System.nanoTime() < warmup) {
            body.run();
        }
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long n = 0;
        long t0 = System.nanoTime();
        while (n < 3 || System.nanoTime() < end) {
            JobResult r = body.run();
            if (r.fuelUsed() != first.fuelUsed() || !r.outputDigest().equals(first.outputDigest())) {
                throw new AssertionError("a run gave another result than the first");
            }
            n++;
        }
        return new double[] {n, System.nanoTime() - t0, first.fuelUsed()};
    }

    static final int ROUNDS = 5;

    static double median(double[] xs) {
        double[] c = xs.clone();
        java.util.Arrays.sort(c);
        return c[c.length / 2];
    }

    @Test
    void engines() throws IOException, JobFailure {
        Assumptions.assumeTrue(Boolean.getBoolean("bench"), "a benchmark: run with -Dbench=true");
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "3"));
        byte[] text = "fleetmesh compute market benchmark input\n".repeat(400).getBytes(StandardCharsets.UTF_8);
        List<Job> jobs = List.of(Job.of("sha256sum", text, List.of()), Job.of("sha256sum", text, List.of("20")),
                Job.of("upper", text, List.of()), Job.of("floats", new byte[0], List.of()));
        List<String> rows = new ArrayList<>();
        rows.add("| job | engine | fuel_used | warm jobs/s | warm Mfuel/s | plain jobs/s | metering cost | cold ms |");
        rows.add("|---|---|---:|---:|---:|---:|---:|---:|");
        int fresh = 0;
        for (Job job : jobs) {
            for (String id : CrossRuntimeTest.ENGINES) {
                ComputeRuntime engine = Runtimes.get(id);
                Sandbox s = new Sandbox(engine, LIMITS);
                // metered and plain alternate in five rounds, so that a busy machine's drift hits both alike
                double[] warmRates = new double[ROUNDS];
                double[] plainRates = new double[ROUNDS];
                double[] warm = null;
                for (int r = 0; r < ROUNDS; r++) {
                    warm = measure(() -> s.run(job.module(), job.input(), job.spec()), seconds / ROUNDS);
                    double[] plain = measure(() -> s.runPlain(job.module(), job.input(), job.spec()),
                            seconds / ROUNDS);
                    warmRates[r] = warm[0] / (warm[1] / 1e9);
                    plainRates[r] = plain[0] / (plain[1] / 1e9);
                }
                // cold: three never-seen copies, each its first run
                long cold = 0;
                for (int i = 0; i < 3; i++) {
                    Job j = job.fresh(fresh++);
                    long t = System.nanoTime();
                    s.run(j.module(), j.input(), j.spec());
                    cold += System.nanoTime() - t;
                }
                double warmRate = median(warmRates);
                double plainRate = median(plainRates);
                rows.add(String.format(Locale.ROOT, "| %s | %s | %,d | %,.1f | %,.1f | %,.1f | %+.0f%% | %,.1f |",
                        job.name(), id, (long) warm[2], warmRate, warmRate * warm[2] / 1e6, plainRate,
                        (plainRate / warmRate - 1) * 100, cold / 3 / 1e6));
            }
        }
        System.out.println("ComputeBench (" + seconds + " s a cell; " + Runtime.getRuntime().availableProcessors()
                + " CPUs, load average " + ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() + ", "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ")");
        rows.forEach(System.out::println);
    }
}
