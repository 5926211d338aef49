package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

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

    private static Path vectorsFile() {
        String dir = System.getProperty("fleetmesh.vectors.dir");
        Assumptions.assumeTrue(dir != null && !dir.isBlank(),
                "system property fleetmesh.vectors.dir is not set; skipping the BIP-340 vectors");
        Path file = Path.of(dir).resolve(FILE);
        Assumptions.assumeTrue(Files.isRegularFile(file),
                "BIP-340 vectors not found at " + file.toAbsolutePath() + "; skipping them");
        return file;
    }

    private static byte[] hex(String s) {
        return s.isEmpty() ? new byte[0] : HEX.parseHex(s.toLowerCase());
    }

    static List<Vector> load() throws IOException {
        List<String> lines = Files.readAllLines(vectorsFile(), StandardCharsets.UTF_8);
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
    void nativeLibsecp256k1IsInUse() {
        assertTrue(Schnorr.isNative(), "libsecp256k1 JNI should load on this machine");
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
        return load().stream().map(v -> dynamicTest(v.label(), () -> assertEquals(v.valid(),
                Schnorr.verify(v.signature(), v.message(), v.publicKey()), "Schnorr.verify")));
    }

    @TestFactory
    Stream<DynamicTest> verifyPortableGivesTheExpectedResult() throws IOException {
        return load().stream().map(v -> dynamicTest(v.label(), () -> assertEquals(v.valid(),
                Schnorr.verifyPortable(v.signature(), v.message(), v.publicKey()), "Schnorr.verifyPortable")));
    }

    @TestFactory
    Stream<DynamicTest> signProducesTheExpectedSignature() throws IOException {
        return load().stream().filter(v -> v.secretKey() != null).map(v -> dynamicTest(v.label(),
                () -> assertEquals(HEX.formatHex(v.signature()),
                        HEX.formatHex(Schnorr.sign(v.message(), v.secretKey(), v.auxRand())))));
    }

    @TestFactory
    Stream<DynamicTest> signPortableProducesTheExpectedSignature() throws IOException {
        return load().stream().filter(v -> v.secretKey() != null).map(v -> dynamicTest(v.label(),
                () -> assertEquals(HEX.formatHex(v.signature()),
                        HEX.formatHex(Schnorr.signPortable(v.message(), v.secretKey(), v.auxRand())))));
    }

    @TestFactory
    Stream<DynamicTest> publicKeyDerivesTheExpectedXOnlyKey() throws IOException {
        return load().stream().filter(v -> v.secretKey() != null).map(v -> dynamicTest(v.label(),
                () -> assertArrayEquals(v.publicKey(), Schnorr.publicKey(v.secretKey()))));
    }

    @Test
    void verifyReturnsFalseForMalformedLengthsInsteadOfThrowing() throws IOException {
        Vector v = load().get(1);
        assertFalse(Schnorr.verify(java.util.Arrays.copyOf(v.signature(), 63), v.message(), v.publicKey()));
        assertFalse(Schnorr.verify(v.signature(), v.message(), java.util.Arrays.copyOf(v.publicKey(), 31)));
        assertFalse(Schnorr.verifyPortable(v.signature(), v.message(), java.util.Arrays.copyOf(v.publicKey(), 31)));
    }

    @Test
    void signWithFreshRandomnessVerifies() throws IOException {
        Vector v = load().get(1);
        byte[] sig = Schnorr.sign(v.message(), v.secretKey());
        assertTrue(Schnorr.verify(sig, v.message(), v.publicKey()));
        assertTrue(Schnorr.verifyPortable(sig, v.message(), v.publicKey()));
    }

    @Test
    void newSecretKeyYieldsAKeyThatSignsAndVerifies() {
        byte[] sk = Schnorr.newSecretKey();
        byte[] msg = new byte[32];
        msg[0] = 7;
        byte[] pk = Schnorr.publicKey(sk);
        assertEquals(32, pk.length);
        assertTrue(Schnorr.verify(Schnorr.sign(msg, sk), msg, pk));
    }
}
