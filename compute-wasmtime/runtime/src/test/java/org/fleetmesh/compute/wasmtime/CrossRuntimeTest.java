package org.fleetmesh.compute.wasmtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.Runtimes;
import org.fleetmesh.compute.Sandbox;
import org.junit.jupiter.api.Test;

/**
 * The core's Sandbox on each engine (docs/spec/compute-runtimes.md, "Cross-runtime identity"): every test module of
 * runtime/src/test/resources/wasm on fixed input gives the same exit code, stdout, stderr and fuel_used on
 * {@code chicory}, {@code chicory-interpreter} and {@code wasmtime}; a job that fails fails with the same reason and
 * fuel_used on each.
 */
class CrossRuntimeTest {
    static final List<String> ENGINES = List.of("chicory", "chicory-interpreter", "wasmtime");
    /** The test modules, read where the sandbox's own tests keep them. */
    static final Path MODULES = Path.of("..", "..", "runtime", "src", "test", "resources", "wasm");
    static final Sandbox.Limits LIMITS = new Sandbox.Limits(1_000_000_000L, 256, Duration.ofSeconds(60), 1 << 20,
            8 << 20, Sandbox.Floats.ADMIT);

    /** A job: module file, stdin, args, fuel limit, memory pages. */
    record Case(String module, String input, List<String> args, long fuel, int pages) {
        Case(String module, String input, List<String> args) {
            this(module, input, args, 50_000_000L, 32);
        }
    }

    static final List<Case> CASES = List.of(
            new Case("upper", "hello, fleetmesh\nsecond line\n", List.of()),
            new Case("sha256sum", "abc".repeat(20_000), List.of()),
            new Case("info", "", List.of("one", "two words", "ünïcode")),
            new Case("floats", "", List.of()),
            new Case("count", "", List.of()),
            new Case("exit", "", List.of()),
            new Case("bulk", "", List.of()),
            new Case("nan", "", List.of()),
            new Case("grow", "", List.of()),
            new Case("trap", "", List.of()),
            new Case("spin", "", List.of(), 2_000_000L, 32),
            new Case("membomb", "", List.of(), 50_000_000L, 40),
            new Case("bigout", "", List.of()));

    static byte[] module(String name) throws IOException {
        return Files.readAllBytes(MODULES.resolve(name + ".wasm"));
    }

    static JobSpec spec(Case c, byte[] module, byte[] input) {
        return new JobSpec(JobSpec.sha256(module), JobSpec.sha256(input), c.args(), c.fuel(), c.pages(), 1_767_225_600L,
                "5a".repeat(32));
    }

    /** What a run came to, in the members that must agree across engines. */
    record Outcome(int exitCode, String stdout, String stderr, long fuelUsed, String outputDigest, String failure) {
        static Outcome of(Sandbox s, byte[] module, byte[] input, JobSpec spec) {
            try {
                JobResult r = s.run(module, input, spec);
                return new Outcome(r.exitCode(), new String(r.stdout(), StandardCharsets.UTF_8),
                        new String(r.stderr(), StandardCharsets.UTF_8), r.fuelUsed(), r.outputDigest(), null);
            } catch (JobFailure f) {
                // a trap's words after "trap:" are the engine's own; the reason and the fuel are not
                String reason = f.reason() == JobFailure.Reason.TRAP ? "trap" : f.getMessage();
                return new Outcome(0, "", "", f.fuelUsed(), "", reason);
            }
        }
    }

    @Test
    void everyEngineIsOnTheClasspath() {
        assertTrue(Runtimes.ids().containsAll(ENGINES), "engines: " + Runtimes.ids());
    }

    @Test
    void everyModuleGivesTheSameResultOnEveryEngine() throws IOException {
        List<String> table = new ArrayList<>();
        for (Case c : CASES) {
            byte[] m = module(c.module());
            byte[] in = c.input().getBytes(StandardCharsets.UTF_8);
            JobSpec spec = spec(c, m, in);
            Outcome first = null;
            for (String id : ENGINES) {
                Outcome o = Outcome.of(new Sandbox(Runtimes.get(id), LIMITS), m, in, spec);
                if (first == null) {
                    first = o;
                    table.add(c.module() + ": " + (o.failure() == null ? "exit " + o.exitCode() : o.failure())
                            + ", fuel_used " + o.fuelUsed());
                } else {
                    assertEquals(first, o, c.module() + " on " + id + " vs " + ENGINES.get(0));
                }
            }
        }
        System.out.println("cross-runtime outcomes (identical on " + ENGINES + "):\n  " + String.join("\n  ", table));
    }

    @Test
    void theSameJobTwiceOnWasmtimeIsTheSame() throws IOException {
        Case c = CASES.get(1);
        byte[] m = module(c.module());
        byte[] in = c.input().getBytes(StandardCharsets.UTF_8);
        Sandbox s = new Sandbox(Runtimes.get("wasmtime"), LIMITS);
        assertEquals(Outcome.of(s, m, in, spec(c, m, in)), Outcome.of(s, m, in, spec(c, m, in)));
    }

    @Test
    void aLoopEndsAtTheWallClockLimitOnEveryEngine() throws IOException {
        byte[] m = module("spin");
        byte[] in = new byte[0];
        // fuel no engine burns in 300 ms (native wasmtime on a quiet machine spent 10^9 first), so only the clock ends it
        long fuel = 1_000_000_000_000L;
        Sandbox.Limits quick = new Sandbox.Limits(fuel, LIMITS.maxMemoryPages(), Duration.ofMillis(300),
                LIMITS.outputLimit(), LIMITS.maxModuleBytes(), LIMITS.floats());
        JobSpec spec = new JobSpec(JobSpec.sha256(m), JobSpec.sha256(in), List.of(), fuel, 32, 0, "00".repeat(32));
        for (String id : ENGINES) {
            try {
                new Sandbox(Runtimes.get(id), quick).run(m, in, spec);
                throw new AssertionError(id + ": the loop ended");
            } catch (JobFailure f) {
                assertEquals(JobFailure.Reason.TIMEOUT, f.reason(), id + ": " + f.getMessage());
            }
        }
    }

    /** Stack exhaustion is a trap on each engine; how deep it got, and so the fuel, is each engine's own. */
    @Test
    void endlessRecursionIsATrapOnEveryEngine() throws IOException {
        Case c = new Case("recursion", "", List.of(), 500_000_000L, 32);
        byte[] m = module(c.module());
        byte[] in = new byte[0];
        List<String> fuel = new ArrayList<>();
        for (String id : ENGINES) {
            Outcome o = Outcome.of(new Sandbox(Runtimes.get(id), LIMITS), m, in, spec(c, m, in));
            assertEquals("trap", o.failure(), id);
            fuel.add(id + " " + o.fuelUsed());
        }
        System.out.println("recursion: trap on every engine, fuel_used " + fuel);
    }

    @Test
    void plainModulesRunOnWasmtimeToo() throws IOException {
        Case c = CASES.get(0);
        byte[] m = module(c.module());
        byte[] in = c.input().getBytes(StandardCharsets.UTF_8);
        JobSpec spec = spec(c, m, in);
        try {
            JobResult plain = new Sandbox(Runtimes.get("wasmtime"), LIMITS).runPlain(m, in, spec);
            JobResult metered = new Sandbox(Runtimes.get("wasmtime"), LIMITS).run(m, in, spec);
            assertArrayEquals(metered.stdout(), plain.stdout());
            assertTrue(plain.fuelUsed() < metered.fuelUsed(), "plain modules charge host calls only");
        } catch (JobFailure f) {
            throw new AssertionError(f.getMessage(), f);
        }
    }
}
