package org.fleetmesh.compute;

import static org.fleetmesh.compute.TestModules.load;
import static org.fleetmesh.compute.TestModules.spec;
import static org.fleetmesh.compute.TestModules.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;

import org.fleetmesh.compute.chicory.ChicoryInterpreter;
import org.fleetmesh.compute.chicory.ChicoryRuntime;
import org.fleetmesh.compute.wasm.Admission;
import org.fleetmesh.compute.wasm.Metering;
import org.fleetmesh.spi.compute.ComputeRuntime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The vectors of docs/spec/compute-sandbox.md, "Vectors": for each test module and input, the SHA-256 of the metered
 * module (memory cap 256 pages; metering is byte-exact) and the fuel_used every engine must report. count, bulk and
 * exit are small enough to check by hand against the cost schedule (the spec does).
 */
class FuelVectorsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "upper|hello, world\\n||2091|0|ff5ea279f2b4b82b88408137a0fb159087c4b80275947d6e946d6f8fd868c2d1",
            "sha256sum|abc||65247|0|5832f0f922b2dc8c1e24180d0be04ea4f21f895d9a24af970fe511a6771a9d25",
            "sha256sum|abc|1000|13079224|0|5832f0f922b2dc8c1e24180d0be04ea4f21f895d9a24af970fe511a6771a9d25",
            "info||x|36736|1|d0507097f2215023ad8ebef3ae4322c802d808762de5eea7cffe0269bf232bf0",
            "count|||8000|0|e7df4e3f18690159351ee1292bfaccae716282f0cc807a72c31e629176113ee5",
            "bulk|||678|0|615c2709ae758a3be9978c23e9a6f31510e37a77fb391f50644ff0b19b4d4664",
            "exit|||225|3|94f3dda85c71d4d821e4cbd4fbb7dd449530c602bda01d2892755509cc03bb3e",
            "floats|0123456789||24619|0|70df4aaaeffa2b5558bf4d7375c87d2f9103b148f2a0cba17a3f6280038a09aa",
    })
    void fuelUsedAndMeteredBytesAreTheSpecs(String name, String input, String arg, long fuel, int exit,
            String meteredHash) throws JobFailure {
        byte[] m = load(name);
        byte[] in = utf8(input == null ? "" : input.replace("\\n", "\n"));
        List<String> args = arg == null ? List.of() : List.of(arg);
        byte[] metered = Metering.instrument(new Admission(8 << 20, false).admit(m, 256), 256);
        assertEquals(meteredHash, JobSpec.sha256(metered));
        for (ComputeRuntime engine : List.<ComputeRuntime>of(new ChicoryRuntime(), new ChicoryInterpreter())) {
            JobResult r = new Sandbox(engine, Sandbox.Limits.defaults()).run(m, in,
                    spec(m, in, args, 1_000_000_000L, 256));
            assertEquals(fuel, r.fuelUsed(), name + " on " + engine.id());
            assertEquals(exit, r.exitCode());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void aPlainRunCountsHostCallsOnly(String engine) throws JobFailure {
        ComputeRuntime r = engine.equals("chicory") ? new ChicoryRuntime() : new ChicoryInterpreter();
        Sandbox s = new Sandbox(r, Sandbox.Limits.defaults());
        byte[] m = load("exit");
        byte[] in = new byte[0];
        JobResult plain = s.runPlain(m, in, spec(m, in));
        JobResult metered = s.run(m, in, spec(m, in));
        assertEquals(204, plain.fuelUsed()); // fd_write 100 + 4 bytes, proc_exit 100
        assertEquals(225, metered.fuelUsed());
        assertEquals(new String(metered.stdout()), new String(plain.stdout()));
    }

    /** Without metering nothing traps on the fuel global: the timeout here is Chicory's reaction to the interrupt. */
    @ParameterizedTest
    @ValueSource(strings = {"chicory", "chicory-interpreter"})
    void anUnmeteredLoopStopsOnTheInterrupt(String engine) {
        ComputeRuntime r = engine.equals("chicory") ? new ChicoryRuntime() : new ChicoryInterpreter();
        Sandbox s = new Sandbox(r, new Sandbox.Limits(1L << 50, 1024, Duration.ofMillis(200), 1 << 20, 8 << 20,
                Sandbox.Floats.ADMIT));
        byte[] m = load("spin");
        byte[] in = new byte[0];
        JobFailure f = assertThrows(JobFailure.class, () -> s.runPlain(m, in, spec(m, in, List.of(), 1L << 50, 16)));
        assertEquals(JobFailure.Reason.TIMEOUT, f.reason());
    }
}
