package org.fleetmesh.nostr;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.zip.CRC32;

import fr.acinq.secp256k1.jni.NativeSecp256k1JvmLoader;
import fr.acinq.secp256k1.jni.OSInfo;

/**
 * The libsecp256k1 JNI library unpacked once into a directory of the operator's and loaded from there at every later
 * start (docs/OPERATING.md "Fast start"). Left to itself, the library's loader unpacks the 1.8 MB library into the
 * temporary directory at every start and compares the copy with the original a byte at a time: 60-80 ms of a start on
 * a cold JVM, against about 20 ms loaded from a directory through the loader's own {@code fr.acinq.secp256k1.lib.path}.
 *
 * <p>The copy's directory is named by the library's CRC-32 and length, so another build's library never takes its
 * place, and a copy is used only when its bytes equal the library in the jar (read whole and compared, a few
 * milliseconds); otherwise it is written again (a temporary file, then an atomic rename).
 */
final class Secp256k1Library {
    /** The directory for the unpacked copy; unset: the library's own loader, as before. */
    static final String CACHE_DIR = "fleetmesh.secp256k1.cache-dir";
    /** The library loader's own setting: the directory it loads {@code libsecp256k1-jni.so} from. */
    static final String LIB_PATH = "fr.acinq.secp256k1.lib.path";

    private Secp256k1Library() {
    }

    /**
     * Points the library's loader at an unpacked copy of its library under {@code cacheDir}, unpacking it when there
     * is none or it differs. Returns the directory it set, or null when it set nothing (the library has no build for
     * this platform, or the directory cannot be written).
     */
    static Path useCopyIn(Path cacheDir) {
        String name = System.mapLibraryName("secp256k1-jni");
        String platform = OSInfo.getNativeSuffix();
        byte[] lib;
        try (InputStream in = NativeSecp256k1JvmLoader.class
                .getResourceAsStream("/fr/acinq/secp256k1/jni/native/" + platform + "/" + name)) {
            if (in == null) {
                return null;
            }
            lib = in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
        CRC32 crc = new CRC32();
        crc.update(lib);
        Path dir = cacheDir.resolve("secp256k1-" + platform + "-" + Long.toHexString(crc.getValue()) + "-" + lib.length);
        Path file = dir.resolve(name);
        try {
            if (!Files.isRegularFile(file) || Files.size(file) != lib.length
                    || !Arrays.equals(Files.readAllBytes(file), lib)) {
                Files.createDirectories(dir);
                Path tmp = Files.createTempFile(dir, name, ".tmp");
                try {
                    Files.write(tmp, lib);
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } finally {
                    Files.deleteIfExists(tmp);
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        System.setProperty(LIB_PATH, dir.toString());
        return dir;
    }
}
