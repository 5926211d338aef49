package org.fleetmesh.spi.secrets;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretFileTest {
    @TempDir
    Path dir;

    static byte[] key(int v) {
        byte[] k = new byte[32];
        java.util.Arrays.fill(k, (byte) v);
        return k;
    }

    @Test
    void createsOnceWithOwnerOnlyModeAndReadsItBack() throws Exception {
        Path f = dir.resolve("keys").resolve("x.key");
        byte[] first = SecretFile.load(Optional.empty(), Optional.empty(), f, () -> key(7), "x key");
        assertArrayEquals(key(7), first);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.getParent())));
        assertEquals("07".repeat(32) + "\n", Files.readString(f));
        byte[] again = SecretFile.load(Optional.empty(), Optional.empty(), f, () -> key(9), "x key");
        assertArrayEquals(key(7), again, "an existing file wins over generating");
        try (var files = Files.list(f.getParent())) {
            assertEquals(List.of(f), files.toList(), "no temporary file is left behind");
        }
    }

    @Test
    void configuredValueThenConfiguredFileTakePrecedence() throws Exception {
        Path f = dir.resolve("given.key");
        Files.writeString(f, "AB".repeat(32) + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        Path dflt = dir.resolve("default.key");
        assertArrayEquals(key(0x11), SecretFile.load(Optional.of("11".repeat(32)), Optional.of(f), dflt, () -> key(1), "k"));
        assertArrayEquals(key(0xab), SecretFile.load(Optional.empty(), Optional.of(f), dflt, () -> key(1), "k"));
        assertFalse(Files.exists(dflt));
    }

    @Test
    void refusesWideModesAndBadHex() throws Exception {
        Path f = dir.resolve("wide.key");
        Files.writeString(f, "11".repeat(32));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SecretFile.read(f, "test key"));
        assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
        for (String bad : List.of("11".repeat(31), "zz".repeat(32), "11".repeat(33), "")) {
            assertThrows(IllegalStateException.class, () -> SecretFile.parse(bad, "k"), bad);
        }
    }

    @Test
    void concurrentCreatorsAllEndUpWithTheSameKey() throws Exception {
        Path f = dir.resolve("race").resolve("r.key");
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<byte[]>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Callable<byte[]> c = () -> SecretFile.load(Optional.empty(), Optional.empty(), f,
                        () -> key(n.incrementAndGet()), "race key");
                results.add(pool.submit(c));
            }
            List<byte[]> got = new ArrayList<>();
            for (Future<byte[]> r : results) {
                got.add(r.get());
            }
            byte[] inFile = SecretFile.read(f, "race key");
            for (byte[] k : got) {
                assertArrayEquals(inFile, k, "every creator returns the key that is in the file");
            }
            try (var files = Files.list(f.getParent())) {
                assertEquals(1, files.count(), "no temporary files left");
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void theKeyIsForcedToDiskBeforeItIsLinkedAndTheDirectoryAfter() throws Exception {
        Path file = dir.resolve("keys/synced.key");
        Files.createDirectories(file.getParent());
        byte[] key = new byte[32];
        key[0] = 7;
        String hex = java.util.HexFormat.of().formatHex(key) + "\n";
        List<String> calls = new ArrayList<>();
        SecretFile.create(file, key.clone(), "test key", p -> {
            if (Files.isDirectory(p)) {
                calls.add("dir " + p.getFileName());
                assertEquals(hex, Files.readString(file), "the key is in place when its directory is synced");
            } else {
                calls.add("file");
                assertEquals(hex, Files.readString(p), "the whole key is written before it is forced");
                assertFalse(Files.exists(file), "and before any name points at it");
            }
            SecretFile.force(p); // the real fsync path works here too
        });
        assertEquals(List.of("file", "dir keys"), calls);
        assertEquals(hex, Files.readString(file));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (var listing = Files.list(file.getParent())) {
            assertEquals(List.of(file), listing.toList(), "no temporary file is left");
        }
    }
}
