package org.fleetmesh.settlement.lightning.l402;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class L402RootKeyTest {
    @TempDir
    Path dir;

    @Test
    void createdOnceOwnerOnlyThenReused() throws Exception {
        byte[] k = L402RootKey.load(Optional.empty(), Optional.empty(), dir);
        Path f = dir.resolve("keys").resolve(L402RootKey.FILE_NAME);
        assertEquals(32, k.length);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(HexFormat.of().formatHex(k), Files.readString(f).strip());
        assertArrayEquals(k, L402RootKey.load(Optional.empty(), Optional.empty(), dir));
        assertTrue(Files.notExists(f.resolveSibling(L402RootKey.FILE_NAME + ".tmp")));
    }

    @Test
    void groupReadableFileIsRefused() throws Exception {
        L402RootKey.load(Optional.empty(), Optional.empty(), dir);
        Path f = dir.resolve("keys").resolve(L402RootKey.FILE_NAME);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));
        assertThrows(IllegalStateException.class, () -> L402RootKey.load(Optional.empty(), Optional.empty(), dir));
    }

    @Test
    void configuredValueOrFileWins() throws Exception {
        String hex = "0f".repeat(32);
        assertArrayEquals(HexFormat.of().parseHex(hex), L402RootKey.load(Optional.of(hex.toUpperCase()), Optional.empty(), dir));
        Path f = dir.resolve("root.hex");
        Files.writeString(f, "1e".repeat(32) + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertArrayEquals(HexFormat.of().parseHex("1e".repeat(32)), L402RootKey.load(Optional.empty(), Optional.of(f), dir));
        assertTrue(Files.notExists(dir.resolve("keys")), "nothing generated when a key is configured");
        assertThrows(IllegalStateException.class, () -> L402RootKey.load(Optional.of("abcd"), Optional.empty(), dir));
        assertThrows(IllegalStateException.class, () -> L402RootKey.load(Optional.of("zz".repeat(32)), Optional.empty(), dir));
    }
}
