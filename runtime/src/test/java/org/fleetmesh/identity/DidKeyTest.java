package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.assertSameDocumentInOrder;
import static org.fleetmesh.identity.DocumentAssertions.errorOf;
import static org.fleetmesh.identity.DocumentAssertions.fieldNames;
import static org.fleetmesh.identity.DocumentAssertions.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.identity.multiformats.Multicodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

class DidKeyTest {
    private static final String SPEC_DID = "did:key:" + TestKeys.ED25519;

    @ParameterizedTest
    @ValueSource(strings = { TestKeys.ED25519, TestKeys.X25519, TestKeys.SECP256K1 })
    void resolvesToTheKeyItWasCreatedFrom(String multikey) {
        Multikey key = Multikey.decode(multikey);
        String did = DidKey.of(key);
        assertEquals(key, DidKey.parse(did));
        assertEquals(multikey, DidKey.resolve(did).get("verificationMethod").get(0).get("publicKeyMultibase").asText());
    }

    @Test
    void writesMultikeyMethodsByDefault() {
        ObjectNode doc = DidKey.resolve(SPEC_DID);
        assertSameDocumentInOrder(json("""
                {
                  "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
                  "id": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                  "verificationMethod": [{
                    "id": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                    "type": "Multikey",
                    "controller": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                    "publicKeyMultibase": "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
                  }, {
                    "id": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p",
                    "type": "Multikey",
                    "controller": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                    "publicKeyMultibase": "z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p"
                  }],
                  "assertionMethod": ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"],
                  "authentication": ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"],
                  "capabilityInvocation": ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"],
                  "capabilityDelegation": ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"],
                  "keyAgreement": ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p"]
                }"""), doc);
    }

    /**
     * The did:key spec's example document (§ Create) in the 2020 suites. The spec embeds the key agreement method
     * in keyAgreement; the method's vectors list it in verificationMethod and refer to it, as this does.
     */
    @Test
    void writesTheSpecExampleMethodsInThe2020Suites() {
        ObjectNode doc = DidKey.resolve(SPEC_DID, PublicKeyFormat.VERIFICATION_KEY_2020);
        assertEquals(json("""
                {"@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/ed25519-2020/v1",
                  "https://w3id.org/security/suites/x25519-2020/v1"]}""").get("@context"), doc.get("@context"));
        assertSameDocumentInOrder(json("""
                {
                  "id": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                  "type": "Ed25519VerificationKey2020",
                  "controller": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                  "publicKeyMultibase": "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
                }"""), doc.get("verificationMethod").get(0));
        assertSameDocumentInOrder(json("""
                {
                  "id": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p",
                  "type": "X25519KeyAgreementKey2020",
                  "controller": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                  "publicKeyMultibase": "z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p"
                }"""), doc.get("verificationMethod").get(1));
        assertEquals(doc.get("verificationMethod").get(1).get("id"), doc.get("keyAgreement").get(0));
    }

    @Test
    void givesAnX25519KeyOnlyKeyAgreement() {
        ObjectNode doc = DidKey.resolve("did:key:" + TestKeys.X25519);
        assertEquals(List.of("@context", "id", "verificationMethod", "keyAgreement"), fieldNames(doc));
    }

    @Test
    void letsASecp256k1KeyAgreeKeysItself() {
        ObjectNode doc = DidKey.resolve("did:key:" + TestKeys.SECP256K1);
        assertEquals(doc.get("authentication"), doc.get("keyAgreement"));
    }

    @Test
    void refusesSecp256k1InThe2020SuitesThatHaveNoSuchType() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE,
                errorOf(() -> DidKey.resolve("did:key:" + TestKeys.SECP256K1, PublicKeyFormat.VERIFICATION_KEY_2020)));
    }

    @Test
    void acceptsTheVersionedForm() {
        assertEquals(Multikey.decode(TestKeys.ED25519), DidKey.parse("did:key:1:" + TestKeys.ED25519));
    }

    @Test
    void refusesAVersionThatIsNotAPositiveInteger() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidKey.parse("did:key:0:" + TestKeys.ED25519)));
    }

    @Test
    void refusesAMultibaseOtherThanBase58btc() {
        String base16 = Multikey.decode(TestKeys.ED25519).encode(Multibase.BASE16_LOWER);
        DidResolutionException e = assertThrows(DidResolutionException.class,
                () -> DidKey.parse("did:key:" + base16));
        assertEquals("invalidDid: did:key needs a base58btc multibase value starting with 'z', got 'f'", e.getMessage());
    }

    @Test
    void refusesCharactersOutsideBase58() {
        assertEquals(ResolutionError.INVALID_DID,
                errorOf(() -> DidKey.parse("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2do0")));
    }

    @Test
    void refusesAKeyOfTheWrongLength() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_LENGTH,
                errorOf(() -> DidKey.parse("did:key:" + TestKeys.ed25519TooShort())));
    }

    @Test
    void refusesAnEd25519KeyOffTheCurve() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY,
                errorOf(() -> DidKey.parse("did:key:" + TestKeys.ed25519OffCurve())));
    }

    @Test
    void refusesASecp256k1KeyOffTheCurve() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY,
                errorOf(() -> DidKey.parse("did:key:" + TestKeys.secp256k1OffCurve())));
    }

    @Test
    void refusesAMulticodecThatIsNotAKey() {
        String json = TestKeys.multikey(Multicodec.JSON, "{}".getBytes(StandardCharsets.UTF_8));
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, errorOf(() -> DidKey.parse("did:key:" + json)));
    }
}
