package org.fleetmesh.compute.wasmtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.spi.compute.Ending;
import org.fleetmesh.spi.compute.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding unpacks its 18 MB native library into {@code java.io.tmpdir} at a process's first run and never deletes
 * it (every node or test JVM that ran a wasmtime job used to leave one); the engine unlinks it once loaded. Checked in
 * a child JVM with a temporary directory of its own, listed while the child still runs, after a run that needed the
 * library.
 */
class UnpackedLibraryTest {
    @TempDir
    Path tmp;

    /** Run in the child JVM: one module on wasmtime, then what is left in the temporary directory. */
    public static void main(String[] args) throws Exception {
        WasmtimeRuntimeTest.TestHost host = new WasmtimeRuntimeTest.TestHost();
        Ending e = new WasmtimeRuntime().run(new Run(WasmtimeRuntimeTest.wasm("hello"), "hello", 1, host, 10_000,
                Duration.ofSeconds(5)));
        try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            System.out.println("ending " + e.kind() + " stdout " + host.stdout.toString(StandardCharsets.UTF_8).trim()
                    + " left " + left.map(f -> f.getFileName().toString()).sorted().toList());
        }
        System.out.flush();
        Runtime.getRuntime().halt(0); // as kill -9 would: no exit hooks
    }

    @Test
    void theUnpackedCopyIsGoneOnceLoaded() throws Exception {
        Path tmpdir = Files.createDirectories(tmp.resolve("tmpdir"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmpdir, "-cp", System.getProperty("java.class.path"),
                UnpackedLibraryTest.class.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("ending EXITED stdout hello"), out);
        assertTrue(out.contains(" left []"), out);
    }
}
