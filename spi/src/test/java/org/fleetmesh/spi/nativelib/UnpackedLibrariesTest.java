package org.fleetmesh.spi.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnpackedLibrariesTest {
    @TempDir
    Path tmp;

    @Test
    void readsTheMappedFilesOfAMapsText() {
        String maps = String.join("\n",
                "55d1c2a00000-55d1c2a01000 r--p 00000000 08:01 1311 /usr/lib/jvm/bin/java",
                "7f00aa000000-7f00aa100000 r-xp 00001000 08:01 2049 /tmp/libwasmtime_jni_0.19.0_linux_x86_64123.so",
                "7f00aa100000-7f00aa200000 r--p 00101000 08:01 2049 /tmp/libwasmtime_jni_0.19.0_linux_x86_64123.so",
                "7f00ab000000-7f00ab001000 rw-p 00000000 00:00 0 ",
                "7f00ab001000-7f00ab002000 rw-p 00000000 00:00 0                          [heap]",
                "7f00ac000000-7f00ac001000 r-xp 00000000 08:01 77                         /opt/my app/lib x.so",
                "7f00ad000000-7f00ad001000 r-xp 00000000 08:01 78   /tmp/secp256k1-u-libsecp256k1-jni.so (deleted)",
                "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]", "");
        assertEquals(List.of(Path.of("/usr/lib/jvm/bin/java"),
                Path.of("/tmp/libwasmtime_jni_0.19.0_linux_x86_64123.so"), Path.of("/opt/my app/lib x.so")),
                List.copyOf(UnpackedLibraries.mappedFiles(maps)));
    }

    @Test
    void selectsOnlyNamedFilesDirectlyInTheDirectory() {
        Path dir = tmp;
        Set<Path> files = Set.of(dir.resolve("secp256k1-a1-libsecp256k1-jni.so"), // yes
                dir.resolve("sub/secp256k1-a2-libsecp256k1-jni.so"), // not directly in dir
                dir.resolve("libsecp256k1-jni.so"), // another name (a cache dir's copy)
                dir.resolve("secp256k1--libsecp256k1-jni.so.lck"), // wrong suffix
                Path.of("/elsewhere/secp256k1-a3-libsecp256k1-jni.so")); // another directory
        assertEquals(List.of(dir.resolve("secp256k1-a1-libsecp256k1-jni.so")),
                UnpackedLibraries.select(files, dir, "secp256k1-", "-libsecp256k1-jni.so"));
    }

    /** A file this process maps is unlinked with its lock file; a file it does not map, of the same name, is kept. */
    @Test
    void unlinksTheFilesThisProcessMapsAndNoOther() throws Exception {
        Path mine = Files.write(tmp.resolve("libfoo_1.so"), new byte[8192]);
        Path lock = Files.write(tmp.resolve("libfoo_1.so.lck"), new byte[0]);
        Path others = Files.write(tmp.resolve("libfoo_2.so"), new byte[8192]); // another process's copy
        Path otherLock = Files.write(tmp.resolve("libfoo_2.so.lck"), new byte[0]);
        Files.write(mine, new byte[] { 42 }, StandardOpenOption.WRITE);
        MappedByteBuffer mapped;
        try (FileChannel ch = FileChannel.open(mine, StandardOpenOption.READ)) {
            mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, 1);
        }
        List<Path> deleted = UnpackedLibraries.unlinkMapped(tmp, "libfoo_", ".so", ".lck");
        assertEquals(List.of(mine, lock), deleted);
        assertFalse(Files.exists(mine));
        assertFalse(Files.exists(lock));
        assertTrue(Files.exists(others));
        assertTrue(Files.exists(otherLock));
        assertEquals(42, mapped.get(0), "the mapping outlives the file's name");
        assertEquals(List.of(), UnpackedLibraries.unlinkMapped(tmp, "libfoo_", ".so", ".lck"), "nothing the second time");
    }
}
