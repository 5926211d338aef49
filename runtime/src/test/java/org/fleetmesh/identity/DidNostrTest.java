package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.assertSameDocument;
import static org.fleetmesh.identity.DocumentAssertions.assertSameDocumentInOrder;
import static org.fleetmesh.identity.DocumentAssertions.errorOf;
import static org.fleetmesh.identity.DocumentAssertions.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The did:nostr draft (Nostr CG, 0.1.0): its examples, and cases from its test-vectors/test-vectors-generated.json
 * (key_transformation, key_decoding, error_cases, did_document_generation), transcribed.
 */
class DidNostrTest {
    private static final String DID = "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2";
    private static final List<String> ALICE = List.of("https://alice.example.com/#me",
            "https://social.example.com/@alice", "at://alice.bsky.social");

    @Test
    void namesTheKeyInLowerCaseHex() {
        assertEquals(DID, DidNostr.of(TestKeys.NOSTR));
        assertEquals(TestKeys.NOSTR, DidNostr.parse(DID));
    }

    @Test
    void writesTheKeyAsTheDraftsBase16Multikey() {
        assertEquals("fe70102124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                DidNostr.publicKeyMultibase(TestKeys.NOSTR));
    }

    @Test
    void readsBothParitiesBackToTheXOnlyKey() {
        assertEquals(TestKeys.NOSTR,
                DidNostr.decodePublicKeyMultibase("fe70102124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2"));
        assertEquals(TestKeys.NOSTR,
                DidNostr.decodePublicKeyMultibase("fe70103124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2"));
    }

    /** did_document_generation / minimal_document_2_3_1. */
    @Test
    void resolvesToTheMinimalDocumentOfTheVectors() {
        assertSameDocument(json("""
                {
                  "@context": [
                    "https://www.w3.org/ns/cid/v1",
                    "https://w3id.org/nostr/context"
                  ],
                  "assertionMethod": [
                    "#key1"
                  ],
                  "authentication": [
                    "#key1"
                  ],
                  "id": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                  "type": "DIDNostr",
                  "verificationMethod": [
                    {
                      "controller": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                      "id": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2#key1",
                      "publicKeyMultibase": "fe70102124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                      "type": "Multikey"
                    }
                  ]
                }"""), DidNostr.resolve(DID));
    }

    /** The draft's "Minimal DID Document (Offline Resolution)" example, field order included. */
    @Test
    void writesTheDraftsMinimalExampleWithAlsoKnownAs() {
        assertSameDocumentInOrder(json("""
                {
                    "@context": ["https://www.w3.org/ns/cid/v1", "https://w3id.org/nostr/context"],
                    "id": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                    "alsoKnownAs": [
                        "https://alice.example.com/#me",
                        "https://social.example.com/@alice",
                        "at://alice.bsky.social"
                    ],
                    "type": "DIDNostr",
                    "verificationMethod": [
                        {
                            "id": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2#key1",
                            "type": "Multikey",
                            "controller": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                            "publicKeyMultibase": "fe70102124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2"
                        }
                    ],
                    "authentication": ["#key1"],
                    "assertionMethod": ["#key1"]
                }"""), DidNostr.document(TestKeys.NOSTR, ALICE, List.of()));
    }

    /** The draft's "Enhanced DID Document (With Relay Services)" example. */
    @Test
    void writesTheDraftsEnhancedExampleWithARelay() {
        assertSameDocumentInOrder(json("""
                {
                    "@context": ["https://www.w3.org/ns/cid/v1", "https://w3id.org/nostr/context"],
                    "id": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                    "alsoKnownAs": [
                        "https://alice.example.com/#me",
                        "https://social.example.com/@alice",
                        "at://alice.bsky.social"
                    ],
                    "type": "DIDNostr",
                    "verificationMethod": [
                        {
                            "id": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2#key1",
                            "type": "Multikey",
                            "controller": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2",
                            "publicKeyMultibase": "fe70102124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2"
                        }
                    ],
                    "authentication": ["#key1"],
                    "assertionMethod": ["#key1"],
                    "service": [
                        {
                            "id": "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2#relay1",
                            "type": "Relay",
                            "serviceEndpoint": "wss://some-nostr-relay.org/"
                        }
                    ]
                }"""), DidNostr.document(TestKeys.NOSTR, ALICE, List.of("wss://some-nostr-relay.org/")));
    }

    @Test
    void servesTheDocumentAtTheWellKnownPath() {
        assertEquals("/.well-known/did/nostr/124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2.json",
                DidNostr.wellKnownPath(TestKeys.NOSTR));
        assertEquals(TestKeys.NOSTR, DidNostr.parseWellKnownPath(DidNostr.wellKnownPath(TestKeys.NOSTR)));
    }

    @Test
    void refusesUpperCaseHex() {
        assertEquals(ResolutionError.INVALID_DID,
                errorOf(() -> DidNostr.parse("did:nostr:124C0FA99407182ECE5A24FAD9B7F6674902FC422843D3128D38A0AFBEE0FDD2")));
    }

    @Test
    void refusesCharactersThatAreNotHex() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidNostr.parse("did:nostr:" + "g".repeat(64))));
    }

    @ParameterizedTest
    @ValueSource(strings = { "abc123", "", "124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd20000" })
    void refusesAKeyOfTheWrongLength(String hex) {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_LENGTH, errorOf(() -> DidNostr.parse("did:nostr:" + hex)));
    }

    @ParameterizedTest
    @ValueSource(strings = { "0000000000000000000000000000000000000000000000000000000000000000",
            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc30" })
    void refusesAnXThatIsNotOnTheCurve(String hex) {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> DidNostr.parse("did:nostr:" + hex)));
    }

    @Test
    void refusesAPublicKeyMultibaseWithTheWrongMulticodec() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, errorOf(() -> DidNostr
                .decodePublicKeyMultibase("f000102124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2")));
    }

    @ParameterizedTest
    @ValueSource(strings = { "abc123", "FE70102124C0FA99407182ECE5A24FAD9B7F6674902FC422843D3128D38A0AFBEE0FDD2" })
    void refusesAPublicKeyMultibaseThatIsNotBase16Lower(String value) {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidNostr.decodePublicKeyMultibase(value)));
    }

    @Test
    void refusesATruncatedPublicKeyMultibase() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_LENGTH, errorOf(() -> DidNostr.decodePublicKeyMultibase("fe70102")));
    }
}
