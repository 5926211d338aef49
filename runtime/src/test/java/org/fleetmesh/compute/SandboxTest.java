package org.fleetmesh.compute;

import static org.fleetmesh.compute.TestModules.load;
import static org.fleetmesh.compute.TestModules.spec;
import static org.fleetmesh.compute.TestModules.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.fleetmesh.compute.chicory.ChicoryInterpreter;
import org.fleetmesh.compute.chicory.ChicoryRuntime;
import org.junit.jupiter.api.Test;

class SandboxTest {
    static final Sandbox.Limits LIMITS = new Sandbox.Limits(10_000_000_000L, 1024, Duration.ofSeconds(60), 1 << 20,
            8 << 20, Sandbox.Floats.ADMIT);
    final Sandbox compiled = new Sandbox(new ChicoryRuntime(), LIMITS);
    final Sandbox interpreted = new Sandbox(new ChicoryInterpreter(), LIMITS);

    @Test
    void upperCasesStdin() throws JobFailure {
        byte[] m = load("upper");
        byte[] in = utf8("hello, Wasm!\n");
        JobResult r = compiled.run(m, in, spec(m, in));
        assertEquals("HELLO, WASM!\n", new String(r.stdout(), StandardCharsets.UTF_8));
        assertEquals(0, r.exitCode());
        assertTrue(r.fuelUsed() > 0);
        assertEquals(JobSpec.sha256(m), r.moduleHash());
        assertEquals(JobSpec.sha256(in), r.inputDigest());
        assertEquals(JobSpec.sha256(r.stdout()), r.outputDigest());
    }

    @Test
    void sha256sumHashesStdin() throws JobFailure {
        byte[] m = load("sha256sum");
        byte[] in = utf8("abc");
        JobResult r = compiled.run(m, in, spec(m, in));
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n",
                new String(r.stdout(), StandardCharsets.US_ASCII));
    }

    @Test
    void interpreterAndCompiledAgreeOnStdoutAndFuel() throws JobFailure {
        for (String name : List.of("upper", "sha256sum", "info", "count", "bulk", "floats", "exit")) {
            byte[] m = load(name);
            byte[] in = utf8("The quick brown fox jumps over the lazy dog\n".repeat(50));
            JobSpec s = spec(m, in, List.of("a", "bé"), 1_000_000_000L, 256);
            JobResult a = compiled.run(m, in, s);
            JobResult b = interpreted.run(m, in, s);
            assertArrayEquals(a.stdout(), b.stdout(), name);
            assertArrayEquals(a.stderr(), b.stderr(), name);
            assertEquals(a.exitCode(), b.exitCode(), name);
            assertEquals(a.fuelUsed(), b.fuelUsed(), name);
        }
    }

    @Test
    void sameSpecTwiceGivesTheSameResult() throws JobFailure {
        byte[] m = load("info");
        byte[] in = new byte[0];
        JobSpec s = new JobSpec(JobSpec.sha256(m), JobSpec.sha256(in), List.of("x"), 1_000_000_000L, 64,
                1_700_000_000L, "11".repeat(32));
        JobResult a = compiled.run(m, in, s);
        JobResult b = new Sandbox(new ChicoryRuntime(), LIMITS).run(m, in, s);
        assertEquals(a.toJson(), b.toJson());
    }

    /**
     * The job's time is at most {@link JobSpec#MAX_TIME} seconds, whose nanoseconds the clocks still hold; one second
     * later the spec is invalid. Before, such a spec was accepted and {@code Sandbox.run} threw an ArithmeticException
     * (long overflow) instead of a result or a JobFailure.
     */
    @Test
    void aTimeWhoseNanosecondsOverflowIsAnInvalidSpec() throws Exception {
        byte[] m = load("exit");
        byte[] in = new byte[0];
        JobSpec last = new JobSpec(JobSpec.sha256(m), JobSpec.sha256(in), List.of(), 1_000_000_000L, 16, 9223372036L,
                TestModules.ZERO_SEED);
        assertEquals(3, new Sandbox(new ChicoryRuntime(), Sandbox.Limits.defaults()).run(m, in, last).exitCode());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new JobSpec(JobSpec.sha256(m),
                JobSpec.sha256(in), List.of(), 1_000_000_000L, 16, 9223372037L, TestModules.ZERO_SEED));
        assertEquals("time: seconds since 1970, 0..9223372036", e.getMessage());
    }

    /**
     * An argument with a lone surrogate (JSON {@code "x\ud800y"} parses to one) has no UTF-8 form: the spec is
     * invalid. Before, argv got "x?y" where node:wasi gives the guest "x\xEF\xBF\xBDy" (U+FFFD).
     */
    @Test
    void anArgumentWithALoneSurrogateIsAnInvalidSpec() {
        byte[] m = load("exit");
        String h = JobSpec.sha256(m);
        assertThrows(IllegalArgumentException.class,
                () -> new JobSpec(h, h, List.of("x\ud800y"), 1_000L, 16, 0, TestModules.ZERO_SEED));
        assertThrows(IllegalArgumentException.class,
                () -> new JobSpec(h, h, List.of("ok", "\udc00"), 1_000L, 16, 0, TestModules.ZERO_SEED));
        assertEquals(List.of("\ud83d\ude00"),
                new JobSpec(h, h, List.of("\ud83d\ude00"), 1_000L, 16, 0, TestModules.ZERO_SEED).args());
    }
}
