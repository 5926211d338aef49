package org.fleetmesh.compute;

import static org.fleetmesh.compute.TestModules.load;
import static org.fleetmesh.compute.TestModules.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.compute.chicory.ChicoryRuntime;
import org.junit.jupiter.api.Test;

/** Every refusal at admission gives its reason; nothing refused reaches an engine. */
class AdmissionTest {
    final Sandbox sandbox = new Sandbox(new ChicoryRuntime(), Sandbox.Limits.defaults());

    JobFailure refused(byte[] m, int pages) {
        byte[] in = new byte[0];
        JobFailure f = assertThrows(JobFailure.class, () -> sandbox.run(m, in, spec(m, in, List.of(), 1_000_000,
                pages)));
        assertEquals(0, f.fuelUsed());
        return f;
    }

    JobFailure refused(String name) {
        return refused(load(name), 256);
    }

    @Test
    void anImportFromOutsideWasiIsNotAllowed() {
        JobFailure f = refused("forbidden_import");
        assertEquals(JobFailure.Reason.IMPORT_NOT_ALLOWED, f.reason());
        assertEquals("import not allowed: env.foo", f.getMessage());
    }

    @Test
    void aNameWasiDoesNotHaveIsNotAllowed() {
        assertEquals("import not allowed: wasi_snapshot_preview1.sock_open", refused("sock_open").getMessage());
    }

    @Test
    void aWasiFunctionWithAnotherSignatureIsNotAllowed() {
        JobFailure f = refused("wrong_signature");
        assertEquals(JobFailure.Reason.IMPORT_NOT_ALLOWED, f.reason());
        assertEquals("import not allowed: wasi_snapshot_preview1.fd_write (signature differs from preview1's)",
                f.getMessage());
    }

    @Test
    void anImportedMemoryIsNotAllowed() {
        JobFailure f = refused("imported_memory");
        assertEquals(JobFailure.Reason.IMPORT_NOT_ALLOWED, f.reason());
        assertTrue(f.getMessage().contains("only functions are imported"), f.getMessage());
    }

    @Test
    void threadsAndSharedMemoryAreRefused() {
        JobFailure atomics = refused("threads");
        assertEquals(JobFailure.Reason.INVALID_MODULE, atomics.reason());
        assertTrue(atomics.getMessage().contains("shared memory") || atomics.getMessage().contains("0xFE"),
                atomics.getMessage());
        assertEquals("invalid module: shared memory is not admitted", refused("shared_memory").getMessage());
    }

    @Test
    void simdIsRefused() {
        JobFailure f = refused("simd");
        assertEquals(JobFailure.Reason.INVALID_MODULE, f.reason());
        assertTrue(f.getMessage().contains("SIMD"), f.getMessage());
    }

    @Test
    void aStartSectionIsRefused() {
        assertEquals("invalid module: a start section (the entry point is the export _start)",
                refused("start_section").getMessage());
    }

    @Test
    void aModuleWithoutStartIsRefused() {
        assertEquals("invalid module: no exported function _start (a WASI command)", refused("no_start").getMessage());
    }

    @Test
    void memoryStartingAboveTheJobsPagesIsRefused() {
        assertEquals("invalid module: memory starts at 300 pages, more than the job's 256",
                refused(load("big_memory"), 256).getMessage());
    }

    @Test
    void malformedBytesAreRefused() {
        assertEquals("invalid module: not a WebAssembly binary (magic)",
                refused(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 1).getMessage());
        byte[] upper = load("upper");
        JobFailure cut = refused(Arrays.copyOf(upper, upper.length - 7), 256);
        assertEquals(JobFailure.Reason.INVALID_MODULE, cut.reason());
        byte[] noisy = upper.clone();
        noisy[upper.length / 2] ^= (byte) 0xFF;
        JobFailure flipped = assertThrows(JobFailure.class,
                () -> sandbox.run(noisy, new byte[0], spec(noisy, new byte[0])));
        assertEquals(JobFailure.Reason.INVALID_MODULE, flipped.reason(), flipped.getMessage());
    }

    @Test
    void anOverlongLeb128IsRefused() {
        // count.wasm with its type section's size written as a 6-byte LEB128
        byte[] m = {0, 'a', 's', 'm', 1, 0, 0, 0, 1, (byte) 0x84, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
                0x00, 1, 0x60, 0, 0};
        JobFailure f = refused(m, 1);
        assertTrue(f.getMessage().contains("LEB128"), f.getMessage());
    }

    @Test
    void reservedExportNamesAreRefused() {
        // (module (memory (export "memory") 1) (func (export "_start")) (global (export "fleetmesh_fuel") i64 (i64.const 0)))
        byte[] m = {0, 'a', 's', 'm', 1, 0, 0, 0,
                1, 4, 1, 0x60, 0, 0,
                3, 2, 1, 0,
                5, 3, 1, 0, 1,
                6, 6, 1, 0x7E, 0, 0x42, 0, 0x0B,
                7, 0x24, 3, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0, 6, '_', 's', 't', 'a', 'r', 't', 0, 0,
                14, 'f', 'l', 'e', 'e', 't', 'm', 'e', 's', 'h', '_', 'f', 'u', 'e', 'l', 3, 0,
                10, 4, 1, 2, 0, 0x0B};
        assertEquals("invalid module: export name fleetmesh_fuel is reserved for metering",
                refused(m, 1).getMessage());
    }

    @Test
    void floatsAreAdmittedOrRefusedAsConfigured() throws JobFailure {
        byte[] m = load("floats");
        byte[] in = new byte[10];
        JobResult r = sandbox.run(m, in, spec(m, in));
        assertTrue(r.stdout().length > 0);
        Sandbox strict = new Sandbox(new ChicoryRuntime(), new Sandbox.Limits(1L << 40, 1024, Duration.ofSeconds(30),
                1 << 20, 8 << 20, Sandbox.Floats.REFUSE));
        JobFailure f = assertThrows(JobFailure.class, () -> strict.run(m, in, spec(m, in)));
        assertEquals(JobFailure.Reason.INVALID_MODULE, f.reason());
        assertTrue(f.getMessage().startsWith("invalid module: floating point is refused on this node"),
                f.getMessage());
        byte[] u = load("upper"); // no float in it
        strict.run(u, in, spec(u, in));
    }

    @Test
    void aModuleWhoseHashIsNotTheJobsIsRefused() {
        byte[] m = load("upper");
        byte[] other = load("count");
        JobFailure f = assertThrows(JobFailure.class, () -> sandbox.run(m, new byte[0], spec(other, new byte[0])));
        assertEquals(JobFailure.Reason.INVALID_MODULE, f.reason());
    }
}
