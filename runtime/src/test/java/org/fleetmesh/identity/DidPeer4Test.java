package org.fleetmesh.identity;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.fleetmesh.identity.DocumentAssertions.assertSameDocument;
import static org.fleetmesh.identity.DocumentAssertions.errorOf;
import static org.fleetmesh.identity.DocumentAssertions.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.identity.multiformats.Multicodec;
import org.fleetmesh.identity.multiformats.Multihash;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** The worked example of the DIF Peer DID Method spec, "Method 4: Short Form and Long Form", transcribed. */
class DidPeer4Test {
    /** The spec's input document (its trailing comma after "routingKeys": [] removed to make it JSON). */
    private static final String INPUT_DOCUMENT = """
            {
              "@context": [
                "https://www.w3.org/ns/did/v1",
                "https://w3id.org/security/suites/x25519-2020/v1",
                "https://w3id.org/security/suites/ed25519-2020/v1"
              ],
              "verificationMethod": [
                {
                  "id": "#6LSqPZfn",
                  "type": "X25519KeyAgreementKey2020",
                  "publicKeyMultibase": "z6LSqPZfn9krvgXma2icTMKf2uVcYhKXsudCmPoUzqGYW24U"
                },
                {
                  "id": "#6MkrCD1c",
                  "type": "Ed25519VerificationKey2020",
                  "publicKeyMultibase": "z6MkrCD1csqtgdj8sjrsu8jxcbeyP6m7LiK87NzhfWqio5yr"
                }
              ],
              "authentication": [
                "#6MkrCD1c"
              ],
              "assertionMethod": [
                "#6MkrCD1c"
              ],
              "keyAgreement": [
                "#6LSqPZfn"
              ],
              "capabilityInvocation": [
                "#6MkrCD1c"
              ],
              "capabilityDelegation": [
                "#6MkrCD1c"
              ],
              "service": [
                {
                  "id": "#didcommmessaging-0",
                  "type": "DIDCommMessaging",
                  "serviceEndpoint": {
                    "uri": "didcomm:transport/queue",
                    "accept": ["didcomm/v2"],
                    "routingKeys": []
                  }
                }
              ]
            }""";
    private static final String SHORT_FORM = "did:peer:4zQmd8CpeFPci817KDsbSAKWcXAE2mjvCQSasRewvbSF54Bd";
    private static final String ENCODED_DOCUMENT = ""
            + "z2M1k7h4psgp4CmJcnQn2Ljp7Pz7ktsd7oBhMU3dWY5s4fhFNj17qcRTQ427C7QHNT6cQ7T3XfRh35Q2GhaNFZmWHVFq4vL7F8nm"
            + "36PA9Y96DvdrUiRUaiCuXnBFrn1o7mxFZAx14JL4t8vUWpuDPwQuddVo1T8myRiVH7wdxuoYbsva5x6idEpCQydJdFjiHGCpNc2U"
            + "tjzPQ8awSXkctGCnBmgkhrj5gto3D4i3EREXYq4Z8r2cWGBr2UzbSmnxW2BuYddFo9Yfm6mKjtJyLpF74ytqrF5xtf84MnGFg1hM"
            + "Bmh1xVx1JwjZ2BeMJs7mNS8DTZhKC7KH38EgqDtUZzfjhpjmmUfkXg2KFEA3EGbbVm1DPqQXayPYKAsYPS9AyKkcQ3fzWafLPP93"
            + "UfNhtUPL8JW5pMcSV3P8v6j3vPXqnnGknNyBprD6YGUVtgLiAqDBDUF3LSxFQJCVYYtghMTv8WuSw9h1a1SRFrDQLGHE4UrkgoRv"
            + "waGWr64aM87T1eVGkP5Dt4L1AbboeK2ceLArPScrdYGTpi3BpTkLwZCdjdiFSfTy9okL1YNRARqUf2wm8DvkVGUU7u5nQA3ZMaXW"
            + "JAewk6k1YUxKd7LvofGUK4YEDtoxN5vb6r1Q2godrGqaPkjfL3RoYPpDYymf9XhcgG8Kx3DZaA6cyTs24t45KxYAfeCw4wqUpCH9"
            + "HbpD78TbEUr9PPAsJgXBvBj2VVsxnr7FKbK4KykGcg1W8M1JPz21Z4Y72LWgGQCmixovrkHktcTX1uNHjAvKBqVD5C7XmVfHgXCH"
            + "j7djCh3vzLNuVLtEED8J1hhqsB1oCBGiuh3xXr7fZ9wUjJCQ1HYHqxLJKdYKtoCiPmgKM7etVftXkmTFETZmpM19aRyih3bao76L"
            + "dpQtbw636r7a3qt8v4WfxsXJetSL8c7t24SqQBcAY89FBsbEnFNrQCMK3JEseKHVaU388ctvRD45uQfe5GndFxthj4iSDomk4uRF"
            + "d1uRbywoP1tRuabHTDX42UxPjz";
    private static final String LONG_FORM = SHORT_FORM + ":" + ENCODED_DOCUMENT;

    /** The spec's resolved document: the input document contextualised with {@code did}, alsoKnownAs the other form. */
    private static ObjectNode specDocument(String did, String otherForm) {
        return json("""
                {
                  "@context": [
                    "https://www.w3.org/ns/did/v1",
                    "https://w3id.org/security/suites/x25519-2020/v1",
                    "https://w3id.org/security/suites/ed25519-2020/v1"
                  ],
                  "verificationMethod": [
                    {
                      "id": "#6LSqPZfn",
                      "type": "X25519KeyAgreementKey2020",
                      "publicKeyMultibase": "z6LSqPZfn9krvgXma2icTMKf2uVcYhKXsudCmPoUzqGYW24U",
                      "controller": "%1$s"
                    },
                    {
                      "id": "#6MkrCD1c",
                      "type": "Ed25519VerificationKey2020",
                      "publicKeyMultibase": "z6MkrCD1csqtgdj8sjrsu8jxcbeyP6m7LiK87NzhfWqio5yr",
                      "controller": "%1$s"
                    }
                  ],
                  "service": [
                    {
                      "id": "#didcommmessaging-0",
                      "type": "DIDCommMessaging",
                      "serviceEndpoint": {
                        "uri": "didcomm:transport/queue",
                        "accept": [
                          "didcomm/v2"
                        ],
                        "routingKeys": []
                      }
                    }
                  ],
                  "authentication": [
                    "#6MkrCD1c"
                  ],
                  "keyAgreement": [
                    "#6LSqPZfn"
                  ],
                  "assertionMethod": [
                    "#6MkrCD1c"
                  ],
                  "capabilityDelegation": [
                    "#6MkrCD1c"
                  ],
                  "capabilityInvocation": [
                    "#6MkrCD1c"
                  ],
                  "alsoKnownAs": [
                    "%2$s"
                  ],
                  "id": "%1$s"
                }""".formatted(did, otherForm));
    }

    /** A long form for any JSON text, hashed correctly, without the checks {@link DidPeer4#create} makes. */
    private static String forge(String json) {
        return forge(Multicodec.JSON, json);
    }

    private static String forge(Multicodec codec, String json) {
        String encoded = Multibase.BASE58BTC.encode(codec.wrap(json.getBytes(UTF_8)));
        return "did:peer:4" + Multibase.BASE58BTC.encode(Multihash.sha256(encoded.getBytes(UTF_8))) + ":" + encoded;
    }

    @Test
    void createsTheSpecExampleLongForm() {
        assertEquals(LONG_FORM, DidPeer4.create(json(INPUT_DOCUMENT)).longForm());
    }

    @Test
    void createsTheSpecExampleShortForm() {
        assertEquals(SHORT_FORM, DidPeer4.create(json(INPUT_DOCUMENT)).shortForm());
    }

    @Test
    void resolvesTheSpecLongFormToTheSpecDocument() {
        assertSameDocument(specDocument(LONG_FORM, SHORT_FORM), DidPeer4.parse(LONG_FORM).resolve());
    }

    @Test
    void resolvesTheSpecShortFormToTheSpecDocument() {
        assertSameDocument(specDocument(SHORT_FORM, LONG_FORM), DidPeer4.parse(LONG_FORM).resolveShort());
    }

    @Test
    void decodesTheInputDocumentItEncodes() {
        assertEquals(json(INPUT_DOCUMENT), DidPeer4.parse(LONG_FORM).inputDocument());
    }

    @Test
    void matchesItsShortFormAndNoOther() {
        DidPeer4 peer = DidPeer4.parse(LONG_FORM);
        assertTrue(peer.hasShortForm(SHORT_FORM));
        assertFalse(peer.hasShortForm(DidPeer4.parse(forge("{\"a\":1}")).shortForm()));
    }

    @Test
    void recognisesTheShortFormSyntax() {
        assertTrue(DidPeer4.isShortForm(SHORT_FORM));
        assertFalse(DidPeer4.isShortForm(LONG_FORM));
        assertFalse(DidPeer4.isShortForm("did:peer:4zQmd8CpeFPci817KDsbSAKWcXAE2mjvCQSasRewvbSF54B"));
    }

    @Test
    void appendsTheOtherFormToAnAlsoKnownAsTheDocumentHas() {
        String did = DidPeer4.create(json("{\"alsoKnownAs\":[\"did:example:1\"]}")).longForm();
        DidPeer4 peer = DidPeer4.parse(did);
        assertEquals(json("{\"a\":[\"did:example:1\",\"" + peer.shortForm() + "\"]}").get("a"),
                peer.resolve().get("alsoKnownAs"));
    }

    @Test
    void keepsAControllerTheDocumentGives() {
        DidPeer4 peer = DidPeer4.create(json("""
                {"verificationMethod": [{"id": "#k", "type": "Multikey", "controller": "did:example:other",
                  "publicKeyMultibase": "%s"}]}""".formatted(TestKeys.ED25519)));
        assertEquals("did:example:other", peer.resolve().get("verificationMethod").get(0).get("controller").asText());
    }

    @Test
    void refusesAHashThatDoesNotMatchTheDocument() {
        String tampered = SHORT_FORM + ":" + forge("{\"a\":1}").split(":")[3];
        DidResolutionException e = assertThrows(DidResolutionException.class, () -> DidPeer4.parse(tampered));
        assertEquals("invalidDid: did:peer:4 hash does not match the encoded document", e.getMessage());
    }

    @Test
    void refusesAHashThatIsNotBase58btc() {
        assertEquals(ResolutionError.INVALID_DID,
                errorOf(() -> DidPeer4.parse("did:peer:4fQmd8CpeFPci817KDsbSAKWcXAE2mjvCQSasRewvbSF54Bd:" + ENCODED_DOCUMENT)));
    }

    @Test
    void refusesAnEncodedDocumentLongerThanTheBoundBeforeDecodingIt() {
        // a valid document (its hash matches) padded past the bound: refused for its length, not decoded
        String pad = "x".repeat(12_000);
        String big = forge("{\"pad\":\"" + pad + "\"}");
        String encoded = big.substring(big.lastIndexOf(':') + 1);
        assertTrue(encoded.length() > DidPeer4.MAX_ENCODED, "the forged document is " + encoded.length() + " characters");
        DidResolutionException e = assertThrows(DidResolutionException.class, () -> DidPeer4.parse(big));
        assertEquals("invalidDid: a did:peer:4 encoded document of " + encoded.length()
                + " characters; this resolver reads at most 16384", e.getMessage());
        // just under it reads as before (here: a document the input rules take)
        String small = forge("{\"pad\":\"" + "x".repeat(11_000) + "\"}");
        assertTrue(small.substring(small.lastIndexOf(':') + 1).length() <= DidPeer4.MAX_ENCODED);
        assertEquals(small, DidPeer4.parse(small).longForm());
    }

    @Test
    void refusesAnEncodedDocumentThatIsNotJsonMulticodec() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.parse(forge(Multicodec.ED25519_PUB, "{}"))));
    }

    @Test
    void refusesADocumentThatIsNotJson() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.parse(forge("{\"a\":"))));
    }

    @Test
    void refusesADocumentWithAKeyTwice() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.parse(forge("{\"a\":1,\"a\":2}"))));
    }

    @Test
    void refusesADocumentWithARootId() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.parse(forge("{\"id\":\"did:example:1\"}"))));
    }

    @Test
    void refusesToCreateFromADocumentWithARootId() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.create(json("{\"id\":\"did:example:1\"}"))));
    }

    @Test
    void refusesAnAbsoluteMethodId() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.parse(forge("""
                {"verificationMethod":[{"id":"did:example:1#k","type":"Multikey","publicKeyMultibase":"%s"}]}"""
                .formatted(TestKeys.ED25519)))));
    }

    @Test
    void refusesAReferenceToAnUndeclaredMethod() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.parse(forge("{\"authentication\":[\"#nowhere\"]}"))));
    }

    @Test
    void refusesASuiteTypeCarryingAnotherKeyType() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, errorOf(() -> DidPeer4.parse(forge("""
                {"verificationMethod":[{"id":"#k","type":"X25519KeyAgreementKey2020","publicKeyMultibase":"%s"}]}"""
                .formatted(TestKeys.ED25519)))));
    }

    @Test
    void refusesAnEd25519KeyForKeyAgreement() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, errorOf(() -> DidPeer4.parse(forge("""
                {"verificationMethod":[{"id":"#k","type":"Multikey","publicKeyMultibase":"%s"}],"keyAgreement":["#k"]}"""
                .formatted(TestKeys.ED25519)))));
    }

    @Test
    void refusesAKeyOffTheCurve() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> DidPeer4.parse(forge("""
                {"verificationMethod":[{"id":"#k","type":"Multikey","publicKeyMultibase":"%s"}]}"""
                .formatted(TestKeys.secp256k1OffCurve())))));
    }

    @Test
    void refusesAShortFormWhereALongFormIsNeeded() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer4.parse(SHORT_FORM)));
    }
}
