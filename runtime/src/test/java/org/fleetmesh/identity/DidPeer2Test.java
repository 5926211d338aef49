package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.assertSameDocument;
import static org.fleetmesh.identity.DocumentAssertions.errorOf;
import static org.fleetmesh.identity.DocumentAssertions.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import org.fleetmesh.identity.DidPeer2.Purpose;
import org.fleetmesh.identity.DidPeer2.PurposedKey;
import org.fleetmesh.identity.multiformats.Multibase;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** The worked examples of the DIF Peer DID Method spec, "Method 2" and "Method 3", transcribed. */
class DidPeer2Test {
    private static final String SPEC_DID = "did:peer:2"
            + ".Vz6Mkj3PUd1WjvaDhNZhhhXQdz5UnZXmS7ehtx8bsPpD47kKc"
            + ".Ez6LSg8zQom395jKLrGiBNruB9MM6V8PWuf2FpEy4uRFiqQBR"
            + ".SeyJ0IjoiZG0iLCJzIjp7InVyaSI6Imh0dHA6Ly9leGFtcGxlLmNvbS9kaWRjb21tIiwiYSI6WyJkaWRjb21tL3YyIl0sInIiOlsiZGlkOmV4YW1wbGU6MTIzNDU2Nzg5YWJjZGVmZ2hpI2tleS0xIl19fQ"
            + ".SeyJ0IjoiZG0iLCJzIjp7InVyaSI6Imh0dHA6Ly9leGFtcGxlLmNvbS9hbm90aGVyIiwiYSI6WyJkaWRjb21tL3YyIl0sInIiOlsiZGlkOmV4YW1wbGU6MTIzNDU2Nzg5YWJjZGVmZ2hpI2tleS0yIl19fQ";

    private static ObjectNode service(String uri, String routingKey) {
        return json("""
                {
                  "type": "DIDCommMessaging",
                  "serviceEndpoint": {
                    "uri": "%s",
                    "accept": ["didcomm/v2"],
                    "routingKeys": ["%s"]
                  }
                }""".formatted(uri, routingKey));
    }

    @Test
    void encodesTheSpecServiceExample() {
        assertEquals("eyJ0IjoiZG0iLCJzIjp7InVyaSI6Imh0dHA6Ly9leGFtcGxlLmNvbS9kaWRjb21tIiwiYSI6WyJkaWRjb21tL3YyIl0sInIiOlsiZGlkOmV4YW1wbGU6MTIzNDU2Nzg5YWJjZGVmZ2hpI2tleS0xIl19fQ",
                DidPeer2.encodeService(service("http://example.com/didcomm", "did:example:123456789abcdefghi#key-1")));
    }

    @Test
    void createsTheSpecExampleDid() {
        String did = DidPeer2.create(List.of(
                new PurposedKey(Purpose.AUTHENTICATION, Multikey.decode("z6Mkj3PUd1WjvaDhNZhhhXQdz5UnZXmS7ehtx8bsPpD47kKc")),
                new PurposedKey(Purpose.KEY_AGREEMENT, Multikey.decode("z6LSg8zQom395jKLrGiBNruB9MM6V8PWuf2FpEy4uRFiqQBR"))),
                List.of(service("http://example.com/didcomm", "did:example:123456789abcdefghi#key-1"),
                        service("http://example.com/another", "did:example:123456789abcdefghi#key-2")));
        assertEquals(SPEC_DID, did);
    }

    /** The spec's "Example Peer DID 2" document (its trailing comma in @context removed to make it JSON). */
    @Test
    void resolvesTheSpecExampleToTheSpecDocument() {
        assertSameDocument(json("""
                {
                  "@context": [
                    "https://www.w3.org/ns/did/v1",
                    "https://w3id.org/security/multikey/v1"
                  ],
                  "id": "%1$s",
                  "verificationMethod": [
                    {
                      "id": "#key-1",
                      "controller": "%1$s",
                      "type": "Multikey",
                      "publicKeyMultibase": "z6Mkj3PUd1WjvaDhNZhhhXQdz5UnZXmS7ehtx8bsPpD47kKc"
                    },
                    {
                      "id": "#key-2",
                      "controller": "%1$s",
                      "type": "Multikey",
                      "publicKeyMultibase": "z6LSg8zQom395jKLrGiBNruB9MM6V8PWuf2FpEy4uRFiqQBR"
                    }
                  ],
                  "authentication": [
                    "#key-1"
                  ],
                  "keyAgreement": [
                    "#key-2"
                  ],
                  "service": [
                    {
                      "type": "DIDCommMessaging",
                      "serviceEndpoint": {
                        "uri": "http://example.com/didcomm",
                        "accept": [
                          "didcomm/v2"
                        ],
                        "routingKeys": [
                          "did:example:123456789abcdefghi#key-1"
                        ]
                      },
                      "id": "#service"
                    },
                    {
                      "type": "DIDCommMessaging",
                      "serviceEndpoint": {
                        "uri": "http://example.com/another",
                        "accept": [
                          "didcomm/v2"
                        ],
                        "routingKeys": [
                          "did:example:123456789abcdefghi#key-2"
                        ]
                      },
                      "id": "#service-1"
                    }
                  ],
                  "alsoKnownAs": ["did:peer:3zQmd6RdU6e2nDrLn1rjwdA5Buzq7wJwsv3WJ1AgrwKYJoLE"]
                }""".formatted(SPEC_DID)), DidPeer2.resolve(SPEC_DID));
    }

    @Test
    void shortensTheSpecNumalgo3Example() {
        assertEquals("did:peer:3zQmS19jtYDvGtKVrJhQnRFpBQAx3pJ9omx2HpNrcXFuRCz9", DidPeer2.numalgo3("did:peer:2"
                + ".Ez6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc"
                + ".Vz6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V"
                + ".Vz6MkgoLTnTypo3tDRwCkZXSccTPHRLhF4ZnjhueYAFpEX6vg"
                + ".SeyJ0IjoiZG0iLCJzIjoiaHR0cHM6Ly9leGFtcGxlLmNvbS9lbmRwb2ludCIsInIiOlsiZGlkOmV4YW1wbGU6c29tZW1lZGlhdG9yI3NvbWVrZXkiXSwiYSI6WyJkaWRjb21tL3YyIiwiZGlkY29tbS9haXAyO2Vudj1yZmM1ODciXX0"));
    }

    @Test
    void keepsEachKeyUnderItsPurposeInDidOrder() {
        Multikey secp = Multikey.decode(TestKeys.SECP256K1);
        String did = DidPeer2.create(List.of(new PurposedKey(Purpose.ASSERTION, secp),
                new PurposedKey(Purpose.KEY_AGREEMENT, Multikey.decode(TestKeys.X25519)),
                new PurposedKey(Purpose.CAPABILITY_INVOCATION, secp)), List.of());
        ObjectNode doc = DidPeer2.resolve(did);
        assertEquals(TestKeys.SECP256K1, doc.get("verificationMethod").get(0).get("publicKeyMultibase").asText());
        assertEquals(TestKeys.X25519, doc.get("verificationMethod").get(1).get("publicKeyMultibase").asText());
        assertEquals(DidJson.strings("#key-1"), doc.get("assertionMethod"));
        assertEquals(DidJson.strings("#key-2"), doc.get("keyAgreement"));
        assertEquals(DidJson.strings("#key-3"), doc.get("capabilityInvocation"));
    }

    @Test
    void keepsAServiceIdItWasGiven() {
        ObjectNode service = json("{\"id\":\"#relay\",\"type\":\"Relay\",\"serviceEndpoint\":\"wss://relay.example/\"}");
        String did = DidPeer2.create(List.of(), List.of(service));
        assertEquals(service, DidPeer2.resolve(did).get("service").get(0));
    }

    @Test
    void refusesToCreateAKeyForAPurposeItCannotServe() {
        assertThrows(IllegalArgumentException.class,
                () -> new PurposedKey(Purpose.KEY_AGREEMENT, Multikey.decode(TestKeys.ED25519)));
    }

    @Test
    void refusesAnEd25519KeyForKeyAgreement() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, errorOf(() -> DidPeer2.resolve("did:peer:2.E" + TestKeys.ED25519)));
    }

    @Test
    void refusesAnX25519KeyForAuthentication() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, errorOf(() -> DidPeer2.resolve("did:peer:2.V" + TestKeys.X25519)));
    }

    @Test
    void refusesAnUnknownPurposeCode() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer2.resolve("did:peer:2.X" + TestKeys.ED25519)));
    }

    @Test
    void refusesAKeyNotInBase58btc() {
        String base16 = Multikey.decode(TestKeys.ED25519).encode(Multibase.BASE16_LOWER);
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer2.resolve("did:peer:2.V" + base16)));
    }

    @Test
    void refusesCharactersOutsideBase58() {
        assertEquals(ResolutionError.INVALID_DID,
                errorOf(() -> DidPeer2.resolve("did:peer:2.Vz6Mkj3PUd1WjvaDhNZhhhXQdz5UnZXmS7ehtx8bsPpD47kK0")));
    }

    @Test
    void refusesAKeyOfTheWrongLength() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_LENGTH,
                errorOf(() -> DidPeer2.resolve("did:peer:2.V" + TestKeys.ed25519TooShort())));
    }

    @Test
    void refusesAKeyOffTheCurve() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY,
                errorOf(() -> DidPeer2.resolve("did:peer:2.V" + TestKeys.secp256k1OffCurve())));
    }

    @Test
    void refusesAServiceThatIsNotBase64url() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer2.resolve("did:peer:2.Se*J0Ijo")));
    }

    @Test
    void refusesAServiceThatIsNotAJsonObject() {
        String array = Base64.getUrlEncoder().withoutPadding().encodeToString("[1]".getBytes(StandardCharsets.UTF_8));
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer2.resolve("did:peer:2.S" + array)));
    }

    @Test
    void refusesAnEmptyElement() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer2.resolve("did:peer:2.V" + TestKeys.ED25519 + "..")));
    }
}
