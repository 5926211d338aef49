package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.didcomm.DidcommException.Reason;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * DIDComm Messaging v2.1 Appendix C: every vector over X25519, P-256, P-384, Ed25519, ES256 and secp256k1 (ES256K)
 * opens; the P-521 ones are refused by name.
 */
class SpecVectorsTest {
    private final Didcomm didcomm = Didcomm.using(Appendix.keys());

    /**
     * C.1 as the signed and encrypted vectors carry it: they were made when its type was still http://, while C.1
     * now reads https://; every other header and the body are as C.1 gives them.
     */
    private static PlaintextMessage vectorPlaintext() throws DidcommException {
        return PlaintextMessage.parse(SpecVectors.PLAINTEXT.replace("\"https://example.com/", "\"http://example.com/"));
    }

    @Test
    void plaintextVectorReadsAsTheSpecSaysIt() throws Exception {
        PlaintextMessage m = PlaintextMessage.parse(SpecVectors.PLAINTEXT);
        assertEquals("1234567890", m.id());
        assertEquals("https://example.com/protocols/lets_do_lunch/1.0/proposal", m.type());
        assertEquals(Optional.of(Appendix.ALICE), m.from());
        assertEquals(List.of(Appendix.BOB), m.to());
        assertEquals(1516269022L, m.createdTime().getAsLong());
        assertEquals(1516385931L, m.expiresTime().getAsLong());
        assertEquals("and its value", m.body().get("messagespecificattribute").asText());
    }

    @Test
    void appendixSecretsMatchTheirPublicKeys() throws Exception {
        Map<String, Secret> secrets = Appendix.secrets();
        assertEquals(List.of(Appendix.ALICE_ED25519, Appendix.ALICE_P256_SIGNING, Appendix.ALICE_X25519,
                Appendix.ALICE_P256, Appendix.BOB_X25519_1, Appendix.BOB_X25519_2, Appendix.BOB_X25519_3,
                Appendix.BOB_P256_1, Appendix.BOB_P256_2, Appendix.BOB_P384_1, Appendix.BOB_P384_2),
                List.copyOf(secrets.keySet()));
        // each d gives the point the DID documents of Appendix B publish
        DidDocumentKeys keys = Appendix.keys();
        for (Map.Entry<String, Secret> e : secrets.entrySet()) {
            boolean signs = e.getKey().equals(Appendix.ALICE_ED25519) || e.getKey().equals(Appendix.ALICE_P256_SIGNING);
            assertEquals(signs ? keys.authenticationKey(e.getKey()) : keys.keyAgreementKey(e.getKey()),
                    e.getValue().publicKey(), e.getKey());
        }
        assertEquals(org.fleetmesh.identity.KeyType.P256, secrets.get(Appendix.BOB_P256_1).publicKey().type());
        assertEquals(org.fleetmesh.identity.KeyType.P384, secrets.get(Appendix.BOB_P384_1).publicKey().type());
    }

    @Test
    void signedEdDsaVectorVerifiesWithAlicesKey1() throws Exception {
        UnpackedMessage u = didcomm.unpack(SpecVectors.SIGNED_EDDSA, SecretResolver.of(Map.of()));
        assertEquals(List.of(Protection.SIGNED), u.envelopes());
        assertEquals(Optional.of(Appendix.ALICE_ED25519), u.signerKid());
        assertEquals(vectorPlaintext(), u.message());
        assertTrue(u.senderAuthenticated());
        assertFalse(u.encrypted());
    }

    @Test
    void signedEdDsaVectorHasTheSignatureOfTheSpec() throws Exception {
        // Ed25519 is deterministic: signing the vector's payload with Alice's key-1 gives the vector's signature
        SignedMessage vector = SignedMessage.parse(SpecVectors.SIGNED_EDDSA);
        SignedMessage ours = SignedMessage.sign(vector.payload(), Appendix.ALICE_ED25519,
                Appendix.ed25519(Appendix.ALICE_ED25519));
        String signature = Appendix.json(SpecVectors.SIGNED_EDDSA).get("signatures").get(0).get("signature").asText();
        assertEquals(signature, ours.toJsonNode().get("signatures").get(0).get("signature").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = { Appendix.BOB_X25519_1, Appendix.BOB_X25519_2, Appendix.BOB_X25519_3 })
    void anoncryptX25519Xc20pVectorOpensWithEachOfBobsKeys(String kid) throws Exception {
        UnpackedMessage u = didcomm.unpack(SpecVectors.ANONCRYPT_X25519_XC20P, Appendix.only(kid));
        assertEquals(List.of(Protection.ANONCRYPT), u.envelopes());
        assertEquals(List.of(kid), u.decryptedWith());
        assertEquals(Optional.empty(), u.senderKid());
        assertEquals(vectorPlaintext(), u.message());
        assertFalse(u.senderAuthenticated());
    }

    @ParameterizedTest
    @ValueSource(strings = { Appendix.BOB_X25519_1, Appendix.BOB_X25519_2, Appendix.BOB_X25519_3 })
    void authcryptX25519VectorOpensWithEachOfBobsKeys(String kid) throws Exception {
        UnpackedMessage u = didcomm.unpack(SpecVectors.AUTHCRYPT_X25519_A256CBC, Appendix.only(kid));
        assertEquals(List.of(Protection.AUTHCRYPT), u.envelopes());
        assertEquals(List.of(kid), u.decryptedWith());
        assertEquals(Optional.of(Appendix.ALICE_X25519), u.senderKid());
        assertEquals(vectorPlaintext(), u.message());
        assertTrue(u.senderAuthenticated());
    }

    @Test
    void vectorsCarryTheApvOfBobsSortedKids() throws Exception {
        String expected = Base64Url.encode(EncryptedMessage.apv(
                List.of(Appendix.BOB_X25519_3, Appendix.BOB_X25519_1, Appendix.BOB_X25519_2)));
        for (String vector : List.of(SpecVectors.ANONCRYPT_X25519_XC20P, SpecVectors.AUTHCRYPT_X25519_A256CBC)) {
            String header = new String(Base64Url.decode(Appendix.json(vector).get("protected").asText(), "p"));
            assertEquals(expected, Appendix.json(header).get("apv").asText());
        }
    }

    @Test
    void authcryptVectorNamesAliceInSkidAndApu() throws Exception {
        EncryptedMessage m = EncryptedMessage.parse(SpecVectors.AUTHCRYPT_X25519_A256CBC);
        assertEquals(EncryptedMessage.Algorithm.ECDH_1PU_A256KW, m.algorithm());
        assertEquals(ContentEncryption.A256CBC_HS512, m.contentEncryption());
        assertEquals(Optional.of(Appendix.ALICE_X25519), m.skid());
    }

    /** The appendix's keys, but {@code fake}'s key agreement key given for {@code real}. */
    static Didcomm posingAs(String real, String fake) {
        return Didcomm.using(new KeyResolver() {
            @Override
            public org.fleetmesh.identity.Multikey keyAgreementKey(String kid) throws DidcommException {
                return Appendix.keys().keyAgreementKey(kid.equals(real) ? fake : kid);
            }

            @Override
            public org.fleetmesh.identity.Multikey authenticationKey(String kid) throws DidcommException {
                return Appendix.keys().authenticationKey(kid);
            }

            @Override
            public List<String> keyAgreementKids(String did) throws DidcommException {
                return Appendix.keys().keyAgreementKids(did);
            }
        });
    }

    @Test
    void authcryptVectorDoesNotOpenWithoutAlicesRealKey() throws Exception {
        // Bob's key-x25519-2 posing as Alice's: the static-static half of 1PU no longer matches
        Didcomm forged = posingAs(Appendix.ALICE_X25519, Appendix.BOB_X25519_2);
        DidcommException e = assertThrows(DidcommException.class,
                () -> forged.unpack(SpecVectors.AUTHCRYPT_X25519_A256CBC, Appendix.only(Appendix.BOB_X25519_1)));
        assertEquals(Reason.DECRYPTION_FAILED, e.reason());
    }

    /** DIDComm v2 §"Message Signing": recipients MUST verify ES256K (ECDSA over secp256k1) as well as EdDSA. */
    @Test
    void signedEs256kVectorVerifiesWithAlicesKey3() throws Exception {
        UnpackedMessage u = didcomm.unpack(SpecVectors.SIGNED_ES256K, SecretResolver.of(Map.of()));
        assertEquals(List.of(Protection.SIGNED), u.envelopes());
        assertEquals(Optional.of("did:example:alice#key-3"), u.signerKid());
        assertEquals(vectorPlaintext(), u.message());
        assertTrue(u.senderAuthenticated());
        String altered = Tamper.json(SpecVectors.SIGNED_ES256K, o -> {
            var sig = (com.fasterxml.jackson.databind.node.ObjectNode) o.get("signatures").get(0);
            String s = sig.get("signature").asText();
            sig.put("signature", (s.charAt(0) == 'A' ? "B" : "A") + s.substring(1));
        });
        assertEquals(Reason.INVALID_SIGNATURE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(altered, SecretResolver.of(Map.of()))).reason());
        String underEd25519Kid = SpecVectors.SIGNED_ES256K.replace("did:example:alice#key-3", Appendix.ALICE_ED25519);
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(underEd25519Kid, SecretResolver.of(Map.of()))).reason());
    }

    /** DIDComm v2 §"Message Signing": recipients MUST verify ES256 (ECDSA over P-256). */
    @Test
    void signedEs256VectorVerifiesWithAlicesKey2() throws Exception {
        UnpackedMessage u = didcomm.unpack(SpecVectors.SIGNED_ES256, SecretResolver.of(Map.of()));
        assertEquals(List.of(Protection.SIGNED), u.envelopes());
        assertEquals(Optional.of(Appendix.ALICE_P256_SIGNING), u.signerKid());
        assertEquals(vectorPlaintext(), u.message());
        assertTrue(u.senderAuthenticated());
        assertEquals("ES256", SignedMessage.parse(SpecVectors.SIGNED_ES256).algorithm());
    }

    @Test
    void signedEs256VectorAlteredOrUnderAnotherKeyIsRefused() throws Exception {
        for (int i : new int[] { 0, 40, 85 }) { // in R, in S, the last character
            String altered = Tamper.json(SpecVectors.SIGNED_ES256, o -> {
                var sig = (com.fasterxml.jackson.databind.node.ObjectNode) o.get("signatures").get(0);
                String s = sig.get("signature").asText();
                sig.put("signature", s.substring(0, i) + (s.charAt(i) == 'A' ? 'Q' : 'A') + s.substring(i + 1));
            });
            assertEquals(Reason.INVALID_SIGNATURE, assertThrows(DidcommException.class,
                    () -> didcomm.unpack(altered, SecretResolver.of(Map.of()))).reason(), "char " + i);
        }
        String payload = Base64Url.encode(PlaintextMessage.parse(SpecVectors.PLAINTEXT).toJson()
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String otherPayload = Tamper.json(SpecVectors.SIGNED_ES256, o -> o.put("payload", payload));
        assertEquals(Reason.INVALID_SIGNATURE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(otherPayload, SecretResolver.of(Map.of()))).reason());
        String underEd25519Kid = SpecVectors.SIGNED_ES256.replace(Appendix.ALICE_P256_SIGNING, Appendix.ALICE_ED25519);
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(underEd25519Kid, SecretResolver.of(Map.of()))).reason());
        String underSecp256k1Kid = SpecVectors.SIGNED_ES256.replace(Appendix.ALICE_P256_SIGNING, "did:example:alice#key-3");
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(underSecp256k1Kid, SecretResolver.of(Map.of()))).reason());
    }

    @ParameterizedTest
    @ValueSource(strings = { Appendix.BOB_P384_1, Appendix.BOB_P384_2 })
    void anoncryptP384VectorOpensWithEachOfBobsP384Keys(String kid) throws Exception {
        UnpackedMessage u = didcomm.unpack(SpecVectors.ANONCRYPT_P384_A256CBC, Appendix.only(kid));
        assertEquals(List.of(Protection.ANONCRYPT), u.envelopes());
        assertEquals(List.of(kid), u.decryptedWith());
        assertEquals(Optional.empty(), u.senderKid());
        assertEquals(vectorPlaintext(), u.message());
        EncryptedMessage m = EncryptedMessage.parse(SpecVectors.ANONCRYPT_P384_A256CBC);
        assertEquals(org.fleetmesh.identity.KeyType.P384, m.curve());
        assertEquals(ContentEncryption.A256CBC_HS512, m.contentEncryption());
    }

    @ParameterizedTest
    @ValueSource(strings = { Appendix.BOB_P256_1, Appendix.BOB_P256_2 })
    void signedThenAuthcryptP256VectorOpensWithEachOfBobsP256Keys(String kid) throws Exception {
        UnpackedMessage u = didcomm.unpack(SpecVectors.SIGNED_THEN_AUTHCRYPT_P256, Appendix.only(kid));
        assertEquals(List.of(Protection.AUTHCRYPT, Protection.SIGNED), u.envelopes());
        assertEquals(List.of(kid), u.decryptedWith());
        assertEquals(Optional.of(Appendix.ALICE_P256), u.senderKid());
        assertEquals(Optional.of(Appendix.ALICE_ED25519), u.signerKid());
        assertEquals(vectorPlaintext(), u.message());
        assertEquals(org.fleetmesh.identity.KeyType.P256,
                EncryptedMessage.parse(SpecVectors.SIGNED_THEN_AUTHCRYPT_P256).curve());
    }

    @Test
    void nistVectorsAlteredAreRefused() throws Exception {
        for (String member : List.of("ciphertext", "tag", "iv")) {
            assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class, () -> didcomm.unpack(
                    Tamper.member(SpecVectors.ANONCRYPT_P384_A256CBC, member), Appendix.only(Appendix.BOB_P384_1)))
                    .reason(), member);
            assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class, () -> didcomm.unpack(
                    Tamper.member(SpecVectors.SIGNED_THEN_AUTHCRYPT_P256, member), Appendix.only(Appendix.BOB_P256_2)))
                    .reason(), member);
        }
        // the P-384 vector opened with P-384 secret of the other kid: the KEK differs
        SecretResolver swapped = SecretResolver.of(Map.of(Appendix.BOB_P384_1, Appendix.ec(Appendix.BOB_P384_2)));
        assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class,
                () -> didcomm.unpack(SpecVectors.ANONCRYPT_P384_A256CBC, swapped)).reason());
    }

    @Test
    void authcryptP256VectorDoesNotOpenWithoutAlicesRealKey() {
        // Bob's key-p256-2 posing as Alice's key-p256-1: the static-static half of 1PU no longer matches
        Didcomm forged = posingAs(Appendix.ALICE_P256, Appendix.BOB_P256_2);
        assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class,
                () -> forged.unpack(SpecVectors.SIGNED_THEN_AUTHCRYPT_P256, Appendix.only(Appendix.BOB_P256_1))).reason());
    }

    @Test
    void nistVectorsHeldUnderAnotherCurveAreTheWrongKeyType() {
        SecretResolver x25519UnderP384Kid = SecretResolver.of(Map.of(Appendix.BOB_P384_1,
                Appendix.x25519(Appendix.BOB_X25519_1)));
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(SpecVectors.ANONCRYPT_P384_A256CBC, x25519UnderP384Kid)).reason());
        SecretResolver p256UnderP384Kid = SecretResolver.of(Map.of(Appendix.BOB_P384_1, Appendix.ec(Appendix.BOB_P256_1)));
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(SpecVectors.ANONCRYPT_P384_A256CBC, p256UnderP384Kid)).reason());
    }

    /** P-521 is optional in DIDComm v2 (§Curves and Content Encryption Algorithms) and not implemented. */
    @Test
    void p521VectorsAreRefusedAsUnsupported() {
        for (String vector : List.of(SpecVectors.ANONCRYPT_P521_A256GCM,
                SpecVectors.SIGNED_AUTHCRYPT_THEN_ANONCRYPT_P521)) {
            DidcommException e = assertThrows(DidcommException.class,
                    () -> didcomm.unpack(vector, SecretResolver.of(Appendix.secrets())));
            assertEquals(Reason.UNSUPPORTED, e.reason(), e.getMessage());
        }
    }
}
