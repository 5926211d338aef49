package org.fleetmesh.compute;

import static org.fleetmesh.compute.TestModules.load;
import static org.fleetmesh.compute.TestModules.spec;
import static org.fleetmesh.compute.TestModules.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.fleetmesh.compute.chicory.ChicoryInterpreter;
import org.fleetmesh.compute.chicory.ChicoryRuntime;
import org.fleetmesh.spi.compute.ComputeRuntime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each limit stops a job with its reason, on both Chicory engines. */
class LimitsTest {
    static Sandbox sandbox(String engine, Duration timeout, int outputLimit) {
        ComputeRuntime r = engine.equals("chicory") ? new ChicoryRuntime() : new ChicoryInterpreter();
        return new Sandbox(r, new Sandbox.Limits(1L << 50, 1024, timeout, outputLimit, 8 << 20,
                Sandbox.Floats.ADMIT));
    }

    static JobFailure fails(Sandbox s, String module, long fuel, int pages) {
        byte[] m = load(module);
        byte[] in = new byte[0];
        return assertThrows(JobFailure.class, () -> s.run(m, in, spec(m, in, List.of(), fuel, pages)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void anInfiniteLoopRunsOutOfFuel(String engine) {
        JobFailure f = fails(sandbox(engine, Duration.ofMinutes(5), 1 << 20), "spin", 5_000_000, 16);
        assertEquals(JobFailure.Reason.FUEL_EXHAUSTED, f.reason());
        assertEquals("fuel exhausted", f.getMessage());
        assertEquals(5_000_000, f.fuelUsed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void anInfiniteLoopWithFuelToSpareTimesOut(String engine) throws JobFailure {
        // long enough that the 20 short jobs after it never meet it on a loaded machine (the interpreter
        // ran one past 300 ms while other builds shared the two cores)
        Sandbox s = sandbox(engine, Duration.ofMillis(1500), 1 << 20);
        JobFailure f = fails(s, "spin", 1L << 50, 16);
        assertEquals(JobFailure.Reason.TIMEOUT, f.reason());
        assertTrue(f.getMessage().startsWith("timeout"), f.getMessage());
        assertTrue(!Thread.currentThread().isInterrupted(), "the caller's thread is not left interrupted");
        byte[] m = load("sha256sum"); // the next job on this thread is not hit by the deadline of the last
        byte[] in = new byte[1000];
        for (int i = 0; i < 20; i++) {
            assertEquals(0, s.run(m, in, spec(m, in, List.of(), 1_000_000_000L, 16)).exitCode());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void aMemoryBombStopsAtTheJobsPages(String engine) {
        JobFailure f = fails(sandbox(engine, Duration.ofMinutes(5), 1 << 20), "membomb", 1_000_000_000L, 64);
        assertEquals(JobFailure.Reason.MEMORY_LIMIT, f.reason());
        assertEquals("memory limit: 64 pages", f.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void growingPastTheCapIsAMemoryLimitNotMinusOne(String engine) {
        JobFailure f = fails(sandbox(engine, Duration.ofMinutes(5), 1 << 20), "grow", 1_000_000_000L, 10);
        assertEquals(JobFailure.Reason.MEMORY_LIMIT, f.reason());
        // 9 pages granted at 1024 + the loop's own cost each, then the 10th grow stops the job
        assertTrue(f.fuelUsed() > 9 * 1024, "" + f.fuelUsed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void outputPastTheLimitStopsTheJob(String engine) {
        JobFailure f = fails(sandbox(engine, Duration.ofMinutes(5), 200_000), "bigout", 1_000_000_000L, 16);
        assertEquals(JobFailure.Reason.OUTPUT_LIMIT, f.reason());
        assertEquals("output limit: 200000 bytes", f.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void aTrapSaysTrap(String engine) {
        JobFailure f = fails(sandbox(engine, Duration.ofMinutes(5), 1 << 20), "trap", 1_000_000, 1);
        assertEquals(JobFailure.Reason.TRAP, f.reason());
        assertTrue(f.getMessage().startsWith("trap: "), f.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void endlessRecursionIsATrapAndTheThreadGoesOn(String engine) throws JobFailure {
        Sandbox s = sandbox(engine, Duration.ofMinutes(5), 1 << 20);
        JobFailure f = fails(s, "recursion", 1L << 40, 1);
        assertEquals(JobFailure.Reason.TRAP, f.reason());
        byte[] m = load("exit");
        assertEquals(3, s.run(m, new byte[0], spec(m, new byte[0], List.of(), 1000, 1)).exitCode());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void fuelRunningOutInsideAHostCallIsFuelExhausted(String engine) {
        // exit.wasm: 21 fuel of instructions before its fd_write, which costs 104
        JobFailure f = fails(sandbox(engine, Duration.ofMinutes(5), 1 << 20), "exit", 100, 1);
        assertEquals(JobFailure.Reason.FUEL_EXHAUSTED, f.reason());
        assertEquals(100, f.fuelUsed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void aJobAskingMoreThanTheNodeAllowsIsRefused(String engine) {
        Sandbox s = new Sandbox(new ChicoryRuntime(), new Sandbox.Limits(1000, 8, Duration.ofSeconds(5), 100, 1000,
                Sandbox.Floats.ADMIT));
        byte[] m = load("count");
        byte[] in = new byte[0];
        assertEquals(JobFailure.Reason.FUEL_EXHAUSTED, assertThrows(JobFailure.class,
                () -> s.run(m, in, spec(m, in, List.of(), 1001, 1))).reason());
        assertEquals(JobFailure.Reason.MEMORY_LIMIT, assertThrows(JobFailure.class,
                () -> s.run(m, in, spec(m, in, List.of(), 1000, 9))).reason());
        byte[] big = load("upper");
        JobFailure f = assertThrows(JobFailure.class, () -> s.run(big, in, spec(big, in, List.of(), 1000, 1)));
        assertEquals(JobFailure.Reason.INVALID_MODULE, f.reason());
        assertTrue(f.getMessage().contains("more than 1000"), f.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void procExitGivesItsCodeAndKeepsTheOutput(String engine) throws JobFailure {
        byte[] m = load("exit");
        byte[] in = new byte[0];
        JobResult r = sandbox(engine, Duration.ofMinutes(1), 1 << 20).run(m, in, spec(m, in, List.of(), 1000, 1));
        assertEquals(3, r.exitCode());
        assertEquals("bye\n", new String(r.stdout(), StandardCharsets.US_ASCII));
        assertEquals(225, r.fuelUsed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void theHostGivesArgsPinnedClocksSeededRandomAndNoMore(String engine) throws JobFailure {
        byte[] m = load("info");
        byte[] in = new byte[0];
        JobSpec s = new JobSpec(JobSpec.sha256(m), JobSpec.sha256(in), List.of("one", "two words"), 1_000_000_000L,
                16, 1_700_000_000L, "00".repeat(32));
        JobResult r = sandbox(engine, Duration.ofMinutes(1), 1 << 20).run(m, in, s);
        String expectedRandom = JobSpec.sha256(new byte[40]).substring(0, 32); // SHA-256(seed ‖ 0 as 8 bytes)
        assertEquals("argv[0]=main\nargv[1]=one\nargv[2]=two words\nrealtime=1700000000.000000000\n"
                + "monotonic=1700000000.000000000\nrandom=" + expectedRandom + "\n",
                new String(r.stdout(), StandardCharsets.UTF_8));
        assertEquals("to stderr\n", new String(r.stderr(), StandardCharsets.UTF_8));
        assertEquals(2, r.exitCode());
    }
}
