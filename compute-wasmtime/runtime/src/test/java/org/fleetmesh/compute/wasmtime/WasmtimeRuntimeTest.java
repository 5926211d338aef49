package org.fleetmesh.compute.wasmtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;

import org.fleetmesh.spi.compute.ComputeRuntime;
import org.fleetmesh.spi.compute.Ending;
import org.fleetmesh.spi.compute.Guest;
import org.fleetmesh.spi.compute.GuestExit;
import org.fleetmesh.spi.compute.Host;
import org.fleetmesh.spi.compute.HostAbort;
import org.fleetmesh.spi.compute.HostImport;
import org.fleetmesh.spi.compute.Run;
import org.fleetmesh.spi.compute.ValType;
import org.junit.jupiter.api.Test;

/**
 * The engine on the SPI alone, with hand-made modules that charge fuel as metered ones do (src/test/resources/wasm)
 * and a two-function host; the cross-runtime tests run the core's real Sandbox on it.
 */
class WasmtimeRuntimeTest {
    private static final WasmtimeRuntime ENGINE = new WasmtimeRuntime();

    /** fd_write (stdout only, charging 10 fuel per call) and proc_exit. */
    static final class TestHost implements Host {
        final ByteArrayOutputStream stdout = new ByteArrayOutputStream();

        @Override
        public List<HostImport> imports() {
            return List.of(
                    new HostImport("wasi_snapshot_preview1", "fd_write",
                            List.of(ValType.I32, ValType.I32, ValType.I32, ValType.I32), List.of(ValType.I32)),
                    new HostImport("wasi_snapshot_preview1", "proc_exit", List.of(ValType.I32), List.of()));
        }

        @Override
        public long[] call(int index, Guest guest, long[] args) {
            if (index == 1) {
                throw new GuestExit((int) args[0]);
            }
            guest.fuel(guest.fuel() - 10);
            int iov = (int) args[1];
            int n = 0;
            for (int i = 0; i < (int) args[2]; i++) {
                int ptr = guest.readI32(iov + 8 * i);
                int len = guest.readI32(iov + 8 * i + 4);
                stdout.writeBytes(guest.read(ptr, len));
                n += len;
            }
            guest.writeI32((int) args[3], n);
            return new long[] {0};
        }
    }

    static byte[] wasm(String name) throws IOException {
        try (InputStream in = WasmtimeRuntimeTest.class.getResourceAsStream("/wasm/" + name + ".wasm")) {
            return in.readAllBytes();
        }
    }

    private static Ending run(String name, TestHost host, int pages, long fuel, Duration timeout) throws IOException {
        byte[] m = wasm(name);
        return ENGINE.run(new Run(m, name, pages, host, fuel, timeout));
    }

    @Test
    void theEngineIsFoundByItsId() {
        assertTrue(ServiceLoader.load(ComputeRuntime.class).stream()
                .anyMatch(p -> p.type() == WasmtimeRuntime.class && p.get().id().equals("wasmtime")));
    }

    @Test
    void hostCallsReadAndWriteMemoryAndFuelAndExitEndsTheRun() throws IOException {
        TestHost host = new TestHost();
        Ending e = run("hello", host, 1, 10_000, Duration.ofSeconds(10));
        assertEquals(Ending.Kind.EXITED, e.kind(), e.toString());
        assertEquals(7, e.exitCode());
        assertArrayEquals("hello\n".getBytes(StandardCharsets.UTF_8), host.stdout.toByteArray());
        assertEquals(10_000 - 10 - 3 * 1000, e.fuel(), "the host's charge and the module's own both count");
    }

    @Test
    void aCompiledModuleIsReusedAndEachRunStartsFresh() throws IOException {
        for (int i = 0; i < 3; i++) {
            TestHost host = new TestHost();
            Ending e = run("hello", host, 1, 5_000, Duration.ofSeconds(10));
            assertEquals(5_000 - 3010, e.fuel());
            assertEquals("hello\n", host.stdout.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void runningOutOfFuelTrapsWithTheFuelBelowZero() throws IOException {
        Ending e = run("hello", new TestHost(), 1, 100, Duration.ofSeconds(10));
        assertEquals(Ending.Kind.TRAPPED, e.kind());
        assertEquals("unreachable", e.detail());
        assertTrue(e.fuel() < 0, "fuel " + e.fuel());
    }

    @Test
    void aLoopIsStoppedAtTheWallClockLimit() throws IOException {
        Ending e = run("spin", new TestHost(), 1, 1, Duration.ofMillis(200));
        assertEquals(Ending.Kind.TIMEOUT, e.kind(), e.toString());
    }

    @Test
    void aModuleWhoseMemoryStartsOverTheCapIsNotInstantiated() throws IOException {
        Ending e = run("bigmem", new TestHost(), 4, 1, Duration.ofSeconds(10));
        assertEquals(Ending.Kind.NOT_INSTANTIATED, e.kind());
        assertEquals("the module's memory starts at 5 pages, over the cap of 4", e.detail());
        assertEquals(Ending.Kind.RETURNED, run("bigmem", new TestHost(), 5, 1, Duration.ofSeconds(10)).kind());
    }

    @Test
    void aPointerOutsideTheMemoryAbortsWithAMemoryFault() throws IOException {
        Ending e = run("fault", new TestHost(), 1, 1000, Duration.ofSeconds(10));
        assertEquals(Ending.Kind.ABORTED, e.kind());
        assertEquals(HostAbort.Reason.MEMORY_FAULT, e.abort());
    }

    @Test
    void aTrapIsReportedWithTheFuelAndFlagsAtThatPoint() throws IOException {
        Ending e = run("trap", new TestHost(), 1, 1000, Duration.ofSeconds(10));
        assertEquals(Ending.Kind.TRAPPED, e.kind());
        assertEquals("integer divide by zero", e.detail());
        assertEquals(995, e.fuel());
        Ending f = run("flags", new TestHost(), 1, 1000, Duration.ofSeconds(10));
        assertEquals(Ending.Kind.TRAPPED, f.kind());
        assertEquals(1, f.flags());
    }

    @Test
    void bytesThatAreNotAModuleAreNotInstantiated() {
        Ending e = ENGINE.run(new Run(new byte[] {0, 'a', 's', 'm', 1, 0, 0, 0, 99}, "junk", 1, new TestHost(), 1,
                Duration.ofSeconds(1)));
        assertEquals(Ending.Kind.NOT_INSTANTIATED, e.kind());
    }

    @Test
    void theCompiledModuleCacheIsBounded() throws IOException {
        WasmtimeRuntime engine = new WasmtimeRuntime();
        byte[] m = wasm("hello");
        for (int i = 0; i < WasmtimeRuntime.CACHE + 8; i++) {
            // the same code under another hash: a custom section with the counter
            byte[] name = ("n" + i).getBytes(StandardCharsets.UTF_8);
            byte[] copy = java.util.Arrays.copyOf(m, m.length + 3 + name.length);
            copy[m.length] = 0;
            copy[m.length + 1] = (byte) (name.length + 1);
            copy[m.length + 2] = (byte) name.length;
            System.arraycopy(name, 0, copy, m.length + 3, name.length);
            TestHost host = new TestHost();
            Ending e = engine.run(new Run(copy, "copy " + i, 1, host, 10_000, Duration.ofSeconds(10)));
            assertEquals(Ending.Kind.EXITED, e.kind());
            assertTrue(engine.cached() <= WasmtimeRuntime.CACHE, "cached " + engine.cached());
        }
        assertEquals(WasmtimeRuntime.CACHE, engine.cached());
    }

    @Test
    void runsAtOnceDoNotDisturbEachOther() throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<String>> runs = new java.util.ArrayList<>();
            for (int i = 0; i < 16; i++) {
                long fuel = 10_000 + i;
                runs.add(pool.submit(() -> {
                    TestHost host = new TestHost();
                    Ending e = run("hello", host, 1, fuel, Duration.ofSeconds(10));
                    return e.kind() + " " + e.exitCode() + " " + (fuel - e.fuel()) + " " + host.stdout;
                }));
            }
            for (var f : runs) {
                assertEquals("EXITED 7 3010 hello\n", f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theEpochDeadlineCoversTheTimeout() {
        assertEquals(2, WasmtimeRuntime.ticks(Duration.ofMillis(1)));
        assertEquals(11, WasmtimeRuntime.ticks(Duration.ofMillis(100)));
        assertEquals(12, WasmtimeRuntime.ticks(Duration.ofMillis(101)));
    }
}
