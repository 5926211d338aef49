package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * The official BIP-340 test vectors (bip340-test-vectors.csv from the bips repository), checked
 * against both the libsecp256k1 (JNI) path and the BouncyCastle path.
 */
class SchnorrBip340VectorsTest {
    private static final String FILE = "bip340-test-vectors.csv";
    private static final HexFormat HEX = HexFormat.of();

    record Vector(int index, byte[] secretKey, byte[] publicKey, byte[] auxRand, byte[] message, byte[] signature,
            boolean valid, String comment) {
        String label() {
            return "vector " + index + (comment.isEmpty() ? "" : " (" + comment + ")");
        }
    }

    private static final Path FILE_PATH = org.fleetmesh.VectorFile.named(FILE);

    /** One dynamic test per vector. */
    private static Stream<DynamicTest> perVector(Predicate<Vector> which,
            Function<Vector, Executable> check) throws IOException {
        return load().stream().filter(which).map(v -> dynamicTest(v.label(), check.apply(v)));
    }

    private static byte[] hex(String s) {
        return s.isEmpty() ? new byte[0] : HEX.parseHex(s.toLowerCase());
    }

    static List<Vector> load() throws IOException {
        List<String> lines = Files.readAllLines(FILE_PATH, StandardCharsets.UTF_8);
        assertEquals("index,secret key,public key,aux_rand,message,signature,verification result,comment",
                lines.get(0).strip());
        List<Vector> out = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] c = line.split(",", -1);
            assertTrue(c.length >= 8, "malformed vector line: " + line);
            String comment = String.join(",", List.of(c).subList(7, c.length)).strip();
            out.add(new Vector(Integer.parseInt(c[0]), c[1].isEmpty() ? null : hex(c[1]), hex(c[2]),
                    c[3].isEmpty() ? null : hex(c[3]), hex(c[4]), hex(c[5]), Boolean.parseBoolean(c[6].strip()),
                    comment));
        }
        return out;
    }

    @Test
    void vectorFileHoldsAllNineteenVectorsIncludingOddMessageSizes() throws IOException {
        List<Vector> v = load();
        assertEquals(19, v.size());
        assertTrue(v.stream().anyMatch(x -> x.message().length == 0), "a vector with an empty message");
        assertTrue(v.stream().anyMatch(x -> x.message().length == 100), "a vector with a 100-byte message");
        assertTrue(v.stream().anyMatch(x -> !x.valid()), "vectors that must fail");
    }

    @TestFactory
    Stream<DynamicTest> verifyGivesTheExpectedResult() throws IOException {
        return perVector(v -> true, v -> () -> assertEquals(v.valid(),
                Schnorr.verify(v.signature(), v.message(), v.publicKey()), "Schnorr.verify"));
    }

    @TestFactory
    Stream<DynamicTest> verifyPortableGivesTheExpectedResult() throws IOException {
        return perVector(v -> true, v -> () -> assertEquals(v.valid(),
                Schnorr.verifyPortable(v.signature(), v.message(), v.publicKey()), "Schnorr.verifyPortable"));
    }

    @TestFactory
    Stream<DynamicTest> signProducesTheExpectedSignature() throws IOException {
        return perVector(v -> v.secretKey() != null, v -> () -> assertEquals(HEX.formatHex(v.signature()),
                HEX.formatHex(Schnorr.sign(v.message(), v.secretKey(), v.auxRand()))));
    }

    @TestFactory
    Stream<DynamicTest> signPortableProducesTheExpectedSignature() throws IOException {
        return perVector(v -> v.secretKey() != null, v -> () -> assertEquals(HEX.formatHex(v.signature()),
                HEX.formatHex(Schnorr.signPortable(v.message(), v.secretKey(), v.auxRand()))));
    }

    @TestFactory
    Stream<DynamicTest> publicKeyDerivesTheExpectedXOnlyKey() throws IOException {
        return perVector(v -> v.secretKey() != null,
                v -> () -> assertArrayEquals(v.publicKey(), Schnorr.publicKey(v.secretKey())));
    }
}
