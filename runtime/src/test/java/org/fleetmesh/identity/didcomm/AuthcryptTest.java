package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.identity.didcomm.DidcommException.Reason;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Authcrypt: ECDH-1PU+A256KW with A256CBC-HS512 over X25519, the sender proven, and every alteration refused. */
class AuthcryptTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Didcomm didcomm = Didcomm.using(Appendix.keys());
    private final X25519Secret alice = Appendix.x25519(Appendix.ALICE_X25519);

    private static PlaintextMessage aliceToBob() {
        ObjectNode body = DidcommJson.object();
        body.put("content", "Your hovercraft is full of eels.");
        return PlaintextMessage.builder("auth-1", "https://didcomm.org/basicmessage/2.0/message")
                .from(Appendix.ALICE).to(Appendix.BOB).createdTime(1700000000).body(body).build();
    }

    private String packForBob() throws DidcommException {
        return didcomm.packAuthcrypt(aliceToBob(), Appendix.ALICE_X25519, alice, Appendix.BOB);
    }

    private Reason refusal(String message) {
        return assertThrows(DidcommException.class, () -> didcomm.unpack(message, Appendix.only(Appendix.BOB_X25519_3)))
                .reason();
    }

    /** An authcrypt built below the {@link Didcomm} checks, as a sender could put on the wire. */
    private static String rawAuthcrypt(PlaintextMessage m, String skid, X25519Secret sender) throws DidcommException {
        return EncryptedMessage.authcrypt(m.toJson().getBytes(StandardCharsets.UTF_8), skid, sender,
                List.of(new RecipientKey(Appendix.BOB_X25519_1, Appendix.keys().keyAgreementKey(Appendix.BOB_X25519_1))),
                RANDOM).toJson();
    }

    @Test
    void opensForEachOfThreeRecipientsAndNamesTheSender() throws Exception {
        String packed = packForBob();
        for (String kid : List.of(Appendix.BOB_X25519_1, Appendix.BOB_X25519_2, Appendix.BOB_X25519_3)) {
            UnpackedMessage u = didcomm.unpack(packed, Appendix.only(kid));
            assertEquals(aliceToBob(), u.message());
            assertEquals(List.of(Protection.AUTHCRYPT), u.envelopes());
            assertEquals(Optional.of(Appendix.ALICE_X25519), u.senderKid());
            assertTrue(u.senderAuthenticated());
        }
    }

    @Test
    void opensForOneRecipient() throws Exception {
        String packed = didcomm.packAuthcrypt(aliceToBob(), Appendix.ALICE_X25519, alice, Appendix.BOB_X25519_2);
        assertEquals(List.of(Appendix.BOB_X25519_2), EncryptedMessage.parse(packed).recipientKids());
        assertEquals(aliceToBob(), didcomm.unpack(packed, Appendix.only(Appendix.BOB_X25519_2)).message());
    }

    @Test
    void headerIsWhatTheSpecPrescribes() throws Exception {
        ObjectNode header = Appendix.json(new String(Base64Url.decode(Appendix.json(packForBob()).get("protected")
                .asText(), "p"), StandardCharsets.UTF_8));
        assertEquals("ECDH-1PU+A256KW", header.get("alg").asText());
        assertEquals("A256CBC-HS512", header.get("enc").asText());
        assertEquals(Appendix.ALICE_X25519, header.get("skid").asText());
        assertEquals(Base64Url.encode(Appendix.ALICE_X25519.getBytes(StandardCharsets.UTF_8)), header.get("apu").asText());
        assertEquals(Base64Url.encode(EncryptedMessage.apv(List.of(Appendix.BOB_X25519_1, Appendix.BOB_X25519_2,
                Appendix.BOB_X25519_3))), header.get("apv").asText());
    }

    @Test
    void opensBetweenPeerDidsWithTheOfflineResolver() throws Exception {
        PeerParty a = PeerParty.withAgreementKeys(1);
        PeerParty b = PeerParty.withAgreementKeys(3);
        Didcomm offline = Didcomm.using(DidDocumentKeys.offline());
        PlaintextMessage m = PlaintextMessage.builder("p-1", "t").from(a.did).to(b.did).build();
        String packed = offline.packAuthcrypt(m, a.agreementKid(0), a.agreement.get(0), b.did);
        assertEquals(3, EncryptedMessage.parse(packed).recipientKids().size());
        UnpackedMessage u = offline.unpack(packed, b.secrets());
        assertEquals(m, u.message());
        assertEquals(Optional.of(a.agreementKid(0)), u.senderKid());
    }

    @Test
    void alteredCiphertextTagIvAreRefused() throws Exception {
        String packed = packForBob();
        for (String member : List.of("ciphertext", "tag", "iv")) {
            assertEquals(Reason.DECRYPTION_FAILED, refusal(Tamper.member(packed, member)), member);
        }
    }

    @Test
    void alteredEncryptedKeyIsRefused() throws Exception {
        String altered = Tamper.recipient(packForBob(), 2,
                r -> r.put("encrypted_key", Tamper.flip(r.get("encrypted_key").asText())));
        assertEquals(Reason.DECRYPTION_FAILED, refusal(altered));
    }

    @Test
    void anotherEphemeralKeyIsRefused() throws Exception {
        String other = Jwk.of(X25519Secret.generate(RANDOM).publicKey()).get("x").asText();
        String altered = Tamper.protectedHeader(packForBob(), h -> ((ObjectNode) h.get("epk")).put("x", other));
        assertEquals(Reason.DECRYPTION_FAILED, refusal(altered));
    }

    @Test
    void theTagOfAnotherMessageDoesNotFitTheWrappedKey() throws Exception {
        // 1PU binds each wrapped key to the tag: a valid tag of another message still fails to unwrap
        String first = packForBob();
        String otherTag = Appendix.json(packForBob()).get("tag").asText();
        assertEquals(Reason.DECRYPTION_FAILED, refusal(Tamper.json(first, o -> o.put("tag", otherTag))));
    }

    @Test
    void aSkidThatIsNotTheApuIsRefused() throws Exception {
        String altered = Tamper.protectedHeader(packForBob(), h -> h.put("skid", Appendix.BOB_X25519_1));
        assertEquals(Reason.SENDER_MISMATCH, refusal(altered));
    }

    @Test
    void withoutSkidTheSenderIsReadFromApu() throws Exception {
        String altered = Tamper.protectedHeader(packForBob(), h -> h.remove("skid"));
        assertEquals(Optional.of(Appendix.ALICE_X25519), EncryptedMessage.parse(altered).skid());
        assertEquals(Reason.DECRYPTION_FAILED, refusal(altered)); // the header is authenticated data
    }

    @Test
    void aSenderKeyOfAnotherDidThanFromIsRefused() throws Exception {
        // Mallory authcrypts with her own key but writes Alice into from
        PeerParty mallory = PeerParty.withAgreementKeys(1);
        String forged = rawAuthcrypt(aliceToBob(), mallory.agreementKid(0), mallory.agreement.get(0));
        DidcommException e = assertThrows(DidcommException.class,
                () -> didcomm.unpack(forged, Appendix.only(Appendix.BOB_X25519_1)));
        assertEquals(Reason.SENDER_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains(mallory.agreementKid(0)), e.getMessage());
    }

    @Test
    void anAuthcryptWithoutFromIsRefused() throws Exception {
        PlaintextMessage noFrom = PlaintextMessage.builder("1", "t").to(Appendix.BOB).build();
        String packed = rawAuthcrypt(noFrom, Appendix.ALICE_X25519, alice);
        assertEquals(Reason.SENDER_MISMATCH, assertThrows(DidcommException.class,
                () -> didcomm.unpack(packed, Appendix.only(Appendix.BOB_X25519_1))).reason());
    }

    @Test
    void aSkidOfUnknownKeyIsRefused() throws Exception {
        String packed = rawAuthcrypt(aliceToBob(), Appendix.ALICE + "#key-x25519-9", alice);
        assertEquals(Reason.UNKNOWN_KEY, assertThrows(DidcommException.class,
                () -> didcomm.unpack(packed, Appendix.only(Appendix.BOB_X25519_1))).reason());
    }

    @Test
    void aSkidOfAnUnresolvableDidIsRefused() throws Exception {
        String packed = rawAuthcrypt(aliceToBob(), "did:web:example.com#key-1", alice);
        assertEquals(Reason.UNRESOLVABLE_DID, assertThrows(DidcommException.class,
                () -> didcomm.unpack(packed, Appendix.only(Appendix.BOB_X25519_1))).reason());
    }

    @Test
    void aSkidThatIsASigningKeyIsRefused() throws Exception {
        // Alice's key-1 is in authentication, not keyAgreement
        String packed = rawAuthcrypt(aliceToBob(), Appendix.ALICE_ED25519, alice);
        assertEquals(Reason.KEY_NOT_AUTHORIZED, assertThrows(DidcommException.class,
                () -> didcomm.unpack(packed, Appendix.only(Appendix.BOB_X25519_1))).reason());
    }

    @Test
    void aSkidWhoseKeyIsNotX25519IsTheWrongKeyType() throws Exception {
        // a document that (wrongly) lists an Ed25519 key for key agreement
        ObjectNode mallory = Appendix.json("""
                {"id":"did:example:mallory","keyAgreement":[{"id":"did:example:mallory#k","type":"JsonWebKey2020",
                 "controller":"did:example:mallory","publicKeyJwk":{"kty":"OKP","crv":"Ed25519",
                 "x":"G-boxFB6vOZBu-wXkm-9Lh79I8nf9Z50cILaOgKKGww"}}]}""");
        Didcomm withMallory = Didcomm.using(Appendix.keys().knowing(mallory));
        PlaintextMessage m = PlaintextMessage.builder("1", "t").from("did:example:mallory").build();
        String packed = rawAuthcrypt(m, "did:example:mallory#k", alice);
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> withMallory.unpack(packed, Appendix.only(Appendix.BOB_X25519_1))).reason());
    }

    @Test
    void onePuWithAnotherContentEncryptionIsRefused() throws Exception {
        String altered = Tamper.protectedHeader(packForBob(), h -> h.put("enc", "A256GCM"));
        assertEquals(Reason.UNSUPPORTED, refusal(altered));
    }

    @Test
    void packingRefusesAFromOfAnotherDid() {
        PlaintextMessage fromCarol = PlaintextMessage.builder("1", "t").from("did:example:carol").build();
        assertEquals(Reason.SENDER_MISMATCH, assertThrows(DidcommException.class,
                () -> didcomm.packAuthcrypt(fromCarol, Appendix.ALICE_X25519, alice, Appendix.BOB)).reason());
    }

    @Test
    void packingRefusesASecretThatIsNotTheSendersKey() {
        assertThrows(IllegalArgumentException.class, () -> didcomm.packAuthcrypt(aliceToBob(), Appendix.ALICE_X25519,
                Appendix.x25519(Appendix.BOB_X25519_1), Appendix.BOB));
    }

    @Test
    void secretsNeverPrint() {
        assertTrue(alice.toString().startsWith("X25519Secret[public z6LS"), alice.toString());
        assertTrue(!alice.toString().contains("r-jK2cO3taR8LQnJB1_ikLBTAnOtShJOsHXRUWT-aZA"));
    }
}
