package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.didcomm.DidcommException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Anoncrypt: ECDH-ES+A256KW over X25519, for one and several recipients, and every alteration refused. */
class AnoncryptTest {
    private final Didcomm didcomm = Didcomm.using(Appendix.keys());

    private static PlaintextMessage toBob() {
        return PlaintextMessage.builder("anon-1", "https://didcomm.org/basicmessage/2.0/message").to(Appendix.BOB)
                .createdTime(1700000000).build();
    }

    private static List<String> bobsKeys() {
        return List.of(Appendix.BOB_X25519_1, Appendix.BOB_X25519_2, Appendix.BOB_X25519_3);
    }

    private String packForBob(ContentEncryption enc) throws DidcommException {
        return didcomm.packAnoncrypt(toBob(), enc, bobsKeys());
    }

    private Reason refusal(String message) {
        return assertThrows(DidcommException.class, () -> didcomm.unpack(message, Appendix.only(Appendix.BOB_X25519_2)))
                .reason();
    }

    @ParameterizedTest
    @EnumSource(ContentEncryption.class)
    void opensForEachOfThreeRecipients(ContentEncryption enc) throws Exception {
        String packed = packForBob(enc);
        for (String kid : bobsKeys()) {
            UnpackedMessage u = didcomm.unpack(packed, Appendix.only(kid));
            assertEquals(toBob(), u.message());
            assertEquals(List.of(Protection.ANONCRYPT), u.envelopes());
            assertEquals(List.of(kid), u.decryptedWith());
            assertEquals(Optional.empty(), u.senderKid());
        }
    }

    @Test
    void opensForOneRecipient() throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(), Appendix.BOB_X25519_3);
        EncryptedMessage m = EncryptedMessage.parse(packed);
        assertEquals(List.of(Appendix.BOB_X25519_3), m.recipientKids());
        assertEquals(ContentEncryption.A256CBC_HS512, m.contentEncryption());
        assertEquals(toBob(), didcomm.unpack(packed, Appendix.only(Appendix.BOB_X25519_3)).message());
    }

    @Test
    void aDidStandsForAllItsKeyAgreementKeys() throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(), Appendix.BOB);
        assertEquals(bobsKeys(), EncryptedMessage.parse(packed).recipientKids());
    }

    @Test
    void headerIsWhatTheSpecPrescribes() throws Exception {
        ObjectNode header = Appendix.json(new String(Base64Url.decode(Appendix.json(packForBob(
                ContentEncryption.A256GCM)).get("protected").asText(), "p")));
        assertEquals(MediaType.ENCRYPTED.value(), header.get("typ").asText());
        assertEquals("ECDH-ES+A256KW", header.get("alg").asText());
        assertEquals("A256GCM", header.get("enc").asText());
        assertEquals(Base64Url.encode(EncryptedMessage.apv(bobsKeys())), header.get("apv").asText());
        assertEquals("X25519", header.get("epk").get("crv").asText());
        assertFalse(header.has("skid"));
        assertFalse(header.has("apu"));
        assertFalse(header.get("epk").has("d"));
    }

    @Test
    void opensWithDidKeyAndTheOfflineResolver() throws Exception {
        X25519Secret bob = X25519Secret.generate(new java.security.SecureRandom());
        String did = DidKey.of(bob.publicKey());
        String kid = did + "#" + bob.publicKey().encode();
        Didcomm offline = Didcomm.using(DidDocumentKeys.offline());
        PlaintextMessage m = PlaintextMessage.builder("k-1", "t").to(did).build();
        String packed = offline.packAnoncrypt(m, did);
        assertEquals(m, offline.unpack(packed, SecretResolver.of(Map.of(kid, bob))).message());
    }

    @ParameterizedTest
    @EnumSource(ContentEncryption.class)
    void alteredCiphertextIsRefused(ContentEncryption enc) throws Exception {
        assertEquals(Reason.DECRYPTION_FAILED, refusal(Tamper.member(packForBob(enc), "ciphertext")));
    }

    @ParameterizedTest
    @EnumSource(ContentEncryption.class)
    void alteredTagIsRefused(ContentEncryption enc) throws Exception {
        assertEquals(Reason.DECRYPTION_FAILED, refusal(Tamper.member(packForBob(enc), "tag")));
    }

    @ParameterizedTest
    @EnumSource(ContentEncryption.class)
    void alteredIvIsRefused(ContentEncryption enc) throws Exception {
        assertEquals(Reason.DECRYPTION_FAILED, refusal(Tamper.member(packForBob(enc), "iv")));
    }

    @ParameterizedTest
    @EnumSource(ContentEncryption.class)
    void alteredProtectedHeaderIsRefused(ContentEncryption enc) throws Exception {
        String altered = Tamper.protectedHeader(packForBob(enc), h -> h.put("typ", "didcomm-encrypted+json"));
        assertEquals(Reason.DECRYPTION_FAILED, refusal(altered));
    }

    @Test
    void alteredEncryptedKeyIsRefused() throws Exception {
        String altered = Tamper.recipient(packForBob(ContentEncryption.A256CBC_HS512), 1,
                r -> r.put("encrypted_key", Tamper.flip(r.get("encrypted_key").asText())));
        assertEquals(Reason.DECRYPTION_FAILED, refusal(altered));
    }

    @Test
    void anotherEphemeralKeyIsRefused() throws Exception {
        String other = Jwk.of(X25519Secret.generate(new java.security.SecureRandom()).publicKey()).get("x").asText();
        String altered = Tamper.protectedHeader(packForBob(ContentEncryption.A256CBC_HS512),
                h -> ((ObjectNode) h.get("epk")).put("x", other));
        assertEquals(Reason.DECRYPTION_FAILED, refusal(altered));
    }

    @Test
    void aSmallOrderEphemeralKeyIsRefused() throws Exception {
        String zero = Base64Url.encode(new byte[32]);
        String altered = Tamper.protectedHeader(packForBob(ContentEncryption.A256CBC_HS512),
                h -> ((ObjectNode) h.get("epk")).put("x", zero));
        assertEquals(Reason.MALFORMED, refusal(altered));
    }

    @Test
    void swappedEncryptedKeysAreRefused() throws Exception {
        String packed = packForBob(ContentEncryption.A256CBC_HS512);
        String first = Appendix.json(packed).get("recipients").get(0).get("encrypted_key").asText();
        String altered = Tamper.recipient(packed, 1, r -> r.put("encrypted_key", first));
        assertEquals(Reason.DECRYPTION_FAILED, refusal(altered));
    }

    @Test
    void aRenamedRecipientIsRefusedByApv() throws Exception {
        String altered = Tamper.recipient(packForBob(ContentEncryption.A256CBC_HS512), 1,
                r -> ((ObjectNode) r.get("header")).put("kid", Appendix.BOB + "#key-x25519-9"));
        DidcommException e = assertThrows(DidcommException.class,
                () -> didcomm.unpack(altered, SecretResolver.of(Map.of(Appendix.BOB + "#key-x25519-9",
                        Appendix.x25519(Appendix.BOB_X25519_2)))));
        assertEquals(Reason.MALFORMED, e.reason());
    }

    @Test
    void aDroppedRecipientIsRefusedByApv() throws Exception {
        String altered = Tamper.json(packForBob(ContentEncryption.A256CBC_HS512),
                o -> ((com.fasterxml.jackson.databind.node.ArrayNode) o.get("recipients")).remove(0));
        assertEquals(Reason.MALFORMED, refusal(altered));
    }

    @Test
    void noSecretForAnyRecipientIsAnUnknownKey() throws Exception {
        DidcommException e = assertThrows(DidcommException.class, () -> didcomm
                .unpack(packForBob(ContentEncryption.A256GCM), Appendix.only(Appendix.ALICE_X25519)));
        assertEquals(Reason.UNKNOWN_KEY, e.reason());
    }

    @Test
    void aSigningSecretForARecipientKidIsTheWrongKeyType() throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(), Appendix.BOB_X25519_1);
        SecretResolver wrong = SecretResolver.of(Map.of(Appendix.BOB_X25519_1, Appendix.ed25519(Appendix.ALICE_ED25519)));
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class, () -> didcomm.unpack(packed, wrong))
                .reason());
    }

    @Test
    void anotherSecretUnderTheRightKidIsRefused() throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(), Appendix.BOB_X25519_1);
        SecretResolver wrong = SecretResolver.of(Map.of(Appendix.BOB_X25519_1, Appendix.x25519(Appendix.BOB_X25519_2)));
        assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class, () -> didcomm.unpack(packed, wrong))
                .reason());
    }

    @Test
    void aSigningKeyCannotBeARecipient() {
        // Alice's key-1 is Ed25519, and not in her keyAgreement
        assertEquals(Reason.KEY_NOT_AUTHORIZED, assertThrows(DidcommException.class,
                () -> didcomm.packAnoncrypt(PlaintextMessage.builder("1", "t").build(), Appendix.ALICE_ED25519)).reason());
    }

    @Test
    void anUnknownRecipientKidIsRefused() {
        assertEquals(Reason.UNKNOWN_KEY, assertThrows(DidcommException.class,
                () -> didcomm.packAnoncrypt(toBob(), Appendix.BOB + "#key-x25519-9")).reason());
    }

    @Test
    void anoncryptWithASkidIsRefused() throws Exception {
        String altered = Tamper.protectedHeader(packForBob(ContentEncryption.A256GCM),
                h -> h.put("skid", Appendix.ALICE_X25519));
        assertEquals(Reason.MALFORMED, refusal(altered));
    }

    @Test
    void recipientsOfSeveralDidsArePackedOncePerDid() {
        assertThrows(IllegalArgumentException.class,
                () -> didcomm.packAnoncrypt(toBob(), Appendix.BOB_X25519_1, Appendix.ALICE_X25519));
    }

    @Test
    void aRecipientOutsideToIsRefused() {
        PlaintextMessage toCarol = PlaintextMessage.builder("1", "t").to("did:example:carol").build();
        assertEquals(Reason.RECIPIENT_MISMATCH, assertThrows(DidcommException.class,
                () -> didcomm.packAnoncrypt(toCarol, Appendix.BOB_X25519_1)).reason());
    }
}
