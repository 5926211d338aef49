package org.fleetmesh.compute.wasmtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.spi.compute.ComputeRuntime;
import org.fleetmesh.spi.compute.Ending;
import org.fleetmesh.spi.compute.Run;
import org.junit.jupiter.api.Test;

/**
 * On a platform where wasmtime's native library does not load, the other engines are still found and a wasmtime run
 * ends NOT_INSTANTIATED saying why, instead of ServiceLoader failing for every engine. The platform is simulated in a
 * child JVM with the binding's own switch {@code WASMTIME_JNI_LOAD_DISABLED} and no library on the path.
 */
class WithoutTheNativeLibraryTest {

    /** Run in the child JVM: lists the engines, runs one module on wasmtime, prints what happened. */
    public static void main(String[] args) throws Exception {
        List<String> ids = new ArrayList<>();
        ComputeRuntime wasmtime = null;
        for (ComputeRuntime r : ServiceLoader.load(ComputeRuntime.class)) {
            ids.add(r.id());
            if (r.id().equals("wasmtime")) {
                wasmtime = r;
            }
        }
        System.out.println("engines " + ids);
        Ending e = wasmtime.run(new Run(WasmtimeRuntimeTest.wasm("hello"), "hello", 1,
                new WasmtimeRuntimeTest.TestHost(), 1000, Duration.ofSeconds(5)));
        System.out.println("ending " + e.kind() + " " + e.detail());
    }

    @Test
    void otherEnginesStayAndWasmtimeRunsSayWhy() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                WithoutTheNativeLibraryTest.class.getName()).redirectErrorStream(true);
        pb.environment().put("WASMTIME_JNI_LOAD_DISABLED", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("engines [") && out.contains("wasmtime"), out);
        assertTrue(out.contains("ending NOT_INSTANTIATED wasmtime: the native library does not load on this platform"),
                out);
    }
}
