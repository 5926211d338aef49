package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import fr.acinq.secp256k1.jni.NativeSecp256k1JvmLoader;
import fr.acinq.secp256k1.jni.OSInfo;

class Secp256k1LibraryTest {
    @TempDir
    Path tmp;

    @AfterEach
    void clear() {
        System.clearProperty(Secp256k1Library.LIB_PATH);
    }

    private static byte[] original() throws Exception {
        try (InputStream in = NativeSecp256k1JvmLoader.class.getResourceAsStream("/fr/acinq/secp256k1/jni/native/"
                + OSInfo.getNativeSuffix() + "/" + System.mapLibraryName("secp256k1-jni"))) {
            return in.readAllBytes();
        }
    }

    @Test
    void unpacksOnceAndPointsTheLoaderAtTheCopy() throws Exception {
        Path dir = Secp256k1Library.useCopyIn(tmp.resolve("native"));
        assertNotNull(dir);
        assertEquals(dir.toString(), System.getProperty(Secp256k1Library.LIB_PATH));
        Path file = dir.resolve(System.mapLibraryName("secp256k1-jni"));
        assertArrayEquals(original(), Files.readAllBytes(file));
        Object key = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        assertEquals(dir, Secp256k1Library.useCopyIn(tmp.resolve("native")));
        assertEquals(key, Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey(),
                "an intact copy is used as it is, not written again");
        try (var left = Files.list(dir)) {
            assertEquals(List.of(file), left.toList(), "no temporary file left behind");
        }
    }

    @Test
    void aCopyThatDiffersIsWrittenAgain() throws Exception {
        Path dir = Secp256k1Library.useCopyIn(tmp);
        Path file = dir.resolve(System.mapLibraryName("secp256k1-jni"));
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 1; // same length, one bit off
        Files.write(file, bytes);
        assertEquals(dir, Secp256k1Library.useCopyIn(tmp));
        assertArrayEquals(original(), Files.readAllBytes(file));
    }

    @Test
    void aDirectoryThatCannotBeWrittenSetsNothing() throws Exception {
        Path notADir = Files.writeString(tmp.resolve("file"), "x");
        assertNull(Secp256k1Library.useCopyIn(notADir.resolve("native")));
        assertNull(System.getProperty(Secp256k1Library.LIB_PATH));
    }

    /** A fresh JVM with the cache directory set loads libsecp256k1 from the copy and signs with it. */
    @Test
    void aFreshJvmLoadsTheCopy() throws Exception {
        Path cache = tmp.resolve("cache");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-D" + Secp256k1Library.CACHE_DIR + "=" + cache, "-cp", System.getProperty("java.class.path"),
                Child.class.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("native=true path=" + cache), out);
    }

    /**
     * Without a cache directory the library's own loader unpacks it into the temporary directory; once loaded the copy
     * and its lock file are unlinked, so a JVM killed afterwards leaves nothing there (it used to leave 2 MB per kill).
     */
    @Test
    void theLoadersTemporaryCopyIsGoneOnceLoaded() throws Exception {
        Path tmpdir = Files.createDirectories(tmp.resolve("tmpdir"));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmpdir, "-cp", System.getProperty("java.class.path"), TmpChild.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("native=true"), out);
        assertTrue(out.contains("left []"), out);
    }

    public static final class TmpChild {
        public static void main(String[] a) throws Exception {
            byte[] key = new byte[32];
            key[31] = 5;
            byte[] sig = Schnorr.sign(new byte[32], key);
            if (!Schnorr.verifyPortable(sig, new byte[32], Schnorr.publicKey(key))) {
                System.exit(3);
            }
            // still running: what the loader left in the temporary directory
            try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                System.out.println("native=" + Schnorr.isNative() + " left "
                        + left.map(f -> f.getFileName().toString()).filter(n -> n.contains("secp256k1")).sorted()
                                .toList());
            }
            System.out.flush();
            Runtime.getRuntime().halt(0); // as kill -9 would: no exit hooks, no deleteOnExit
        }
    }

    public static final class Child {
        public static void main(String[] a) {
            byte[] key = new byte[32];
            key[31] = 3;
            byte[] msg = new byte[32];
            byte[] sig = Schnorr.sign(msg, key);
            // the signature checks out with BouncyCastle's independent BIP-340
            if (!Schnorr.verifyPortable(sig, msg, Schnorr.publicKey(key))) {
                System.exit(3);
            }
            System.out.println("native=" + Schnorr.isNative() + " path="
                    + Path.of(System.getProperty(Secp256k1Library.LIB_PATH)).getParent());
        }
    }
}
