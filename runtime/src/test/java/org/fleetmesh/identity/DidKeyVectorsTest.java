package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.MAPPER;
import static org.fleetmesh.identity.DocumentAssertions.assertSameDocumentInOrder;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The did:key test vectors of the w3c-ccg/did-method-key repository (test-vectors/ed25519-x25519.json,
 * secp256k1.json, x25519.json), read from the test resources (vectors/). Each document is compared field by field,
 * in the verification method format the vector uses.
 */
class DidKeyVectorsTest {
    private static final String ED25519 = "did-key-ed25519-x25519.json";
    private static final String SECP256K1 = "did-key-secp256k1.json";
    private static final String X25519 = "did-key-x25519.json";

    /** One vector: the DID, its expected document, and the seed it was made from when the file gives one. */
    record Vector(String did, JsonNode document, String seed) {
    }

    @TestFactory
    Stream<DynamicTest> ed25519DidsResolveToTheVectorDocuments() throws IOException {
        return perVector(ED25519, v -> assertResolvesToVector(v));
    }

    @TestFactory
    Stream<DynamicTest> ed25519SeedsGiveTheVectorDids() throws IOException {
        return perSeededVector(ED25519, v -> {
            byte[] publicKey = new byte[32];
            Ed25519.generatePublicKey(HexFormat.of().parseHex(v.seed()), 0, publicKey, 0);
            assertEquals(v.did(), DidKey.of(Multikey.ed25519(publicKey)));
        });
    }

    @TestFactory
    Stream<DynamicTest> secp256k1DidsResolveToTheVectorDocuments() throws IOException {
        return perVector(SECP256K1, v -> assertResolvesToVector(v));
    }

    @TestFactory
    Stream<DynamicTest> secp256k1SeedsGiveTheVectorDids() throws IOException {
        return perSeededVector(SECP256K1, v -> {
            byte[] compressed = CustomNamedCurves.getByName("secp256k1").getG()
                    .multiply(new BigInteger(1, HexFormat.of().parseHex(v.seed()))).getEncoded(true);
            assertEquals(v.did(), DidKey.of(Multikey.secp256k1(compressed)));
        });
    }

    @TestFactory
    Stream<DynamicTest> x25519DidsResolveToTheVectorDocuments() throws IOException {
        return perVector(X25519, v -> assertResolvesToVector(v));
    }

    private static void assertResolvesToVector(Vector v) {
        PublicKeyFormat format = formatOf(v.document().get("verificationMethod").get(0).get("type").asText());
        assertSameDocumentInOrder(v.document(), DidKey.resolve(v.did(), format));
    }

    /** The format a vector's first verification method is written in. */
    private static PublicKeyFormat formatOf(String type) {
        return switch (type) {
            case "JsonWebKey2020" -> PublicKeyFormat.JSON_WEB_KEY_2020;
            case "Multikey" -> PublicKeyFormat.MULTIKEY;
            case "Ed25519VerificationKey2020", "X25519KeyAgreementKey2020" -> PublicKeyFormat.VERIFICATION_KEY_2020;
            case "Ed25519VerificationKey2018", "X25519KeyAgreementKey2019", "EcdsaSecp256k1VerificationKey2019" ->
                PublicKeyFormat.VERIFICATION_KEY_2018;
            default -> throw new AssertionError("vector uses a verification method type the test does not know: " + type);
        };
    }

    private interface Check {
        void run(Vector v) throws Throwable;
    }

    /** Only the vectors that give the seed their key was made from. */
    private static Stream<DynamicTest> perSeededVector(String file, Check check) throws IOException {
        return perVector(file, v -> v.seed() != null, check);
    }

    private static Stream<DynamicTest> perVector(String file, Check check) throws IOException {
        return perVector(file, v -> true, check);
    }

    private static Stream<DynamicTest> perVector(String file, Predicate<Vector> which, Check check) throws IOException {
        Path path = org.fleetmesh.VectorFile.named(file);
        List<Vector> vectors = load(MAPPER.readTree(path.toFile())).stream().filter(which).toList();
        assertFalse(vectors.isEmpty(), file + " holds no vectors");
        return vectors.stream().map(v -> dynamicTest(v.did(), () -> check.run(v)));
    }

    /**
     * ed25519-x25519.json and secp256k1.json map each DID to {seed, keys, didDocument}; x25519.json has one
     * "didDocument" object mapping each DID to its document.
     */
    private static List<Vector> load(JsonNode root) {
        List<Vector> out = new ArrayList<>();
        if (root.size() == 1 && root.has("didDocument")) {
            for (Map.Entry<String, JsonNode> e : root.get("didDocument").properties()) {
                out.add(new Vector(e.getKey(), e.getValue(), null));
            }
            return out;
        }
        for (Map.Entry<String, JsonNode> e : root.properties()) {
            JsonNode seed = e.getValue().get("seed");
            out.add(new Vector(e.getKey(), e.getValue().get("didDocument"), seed == null ? null : seed.asText()));
        }
        return out;
    }
}
