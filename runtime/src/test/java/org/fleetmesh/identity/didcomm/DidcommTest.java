package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.didcomm.DidcommException.Reason;
import org.junit.jupiter.api.Test;

/** Pack and unpack across envelopes: the nestings the spec allows, the ones it forbids, and layer consistency. */
class DidcommTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Didcomm didcomm = Didcomm.using(Appendix.keys());
    private final SecretResolver bob = SecretResolver.of(Map.of(Appendix.BOB_X25519_1,
            Appendix.x25519(Appendix.BOB_X25519_1), Appendix.BOB_X25519_2, Appendix.x25519(Appendix.BOB_X25519_2),
            Appendix.BOB_X25519_3, Appendix.x25519(Appendix.BOB_X25519_3)));

    private static PlaintextMessage aliceToBob() {
        return PlaintextMessage.builder("n-1", "https://didcomm.org/basicmessage/2.0/message").from(Appendix.ALICE)
                .to(Appendix.BOB).build();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<RecipientKey> bobsKey() throws DidcommException {
        return List.of(new RecipientKey(Appendix.BOB_X25519_1, Appendix.keys().keyAgreementKey(Appendix.BOB_X25519_1)));
    }

    @Test
    void plaintextUnpacksWithNoProtection() throws Exception {
        UnpackedMessage u = didcomm.unpack(Didcomm.packPlaintext(aliceToBob()), bob);
        assertEquals(aliceToBob(), u.message());
        assertEquals(List.of(), u.envelopes());
        assertTrue(!u.encrypted() && !u.senderAuthenticated());
    }

    @Test
    void anoncryptOfSignedKeepsTheSignatureForThirdParties() throws Exception {
        String signed = didcomm.packSigned(aliceToBob(), Appendix.ALICE_ED25519, Appendix.ed25519(Appendix.ALICE_ED25519));
        String packed = didcomm.wrapAnoncrypt(signed, ContentEncryption.XC20P, List.of(Appendix.BOB));
        UnpackedMessage u = didcomm.unpack(packed, bob);
        assertEquals(List.of(Protection.ANONCRYPT, Protection.SIGNED), u.envelopes());
        assertEquals(Optional.of(Appendix.ALICE_ED25519), u.signerKid());
        assertEquals(aliceToBob(), didcomm.unpack(u.signedMessage().orElseThrow(), SecretResolver.of(Map.of())).message());
    }

    @Test
    void anoncryptOfAuthcryptHidesTheSkidAndStillNamesTheSender() throws Exception {
        String authcrypted = didcomm.packAuthcrypt(aliceToBob(), Appendix.ALICE_X25519,
                Appendix.x25519(Appendix.ALICE_X25519), Appendix.BOB);
        String packed = didcomm.wrapAnoncrypt(authcrypted, ContentEncryption.A256GCM, List.of(Appendix.BOB_X25519_2));
        assertTrue(!packed.contains("skid") && EncryptedMessage.parse(packed).skid().isEmpty());
        UnpackedMessage u = didcomm.unpack(packed, bob);
        assertEquals(List.of(Protection.ANONCRYPT, Protection.AUTHCRYPT), u.envelopes());
        assertEquals(Optional.of(Appendix.ALICE_X25519), u.senderKid());
        assertEquals(List.of(Appendix.BOB_X25519_2, Appendix.BOB_X25519_1), u.decryptedWith());
    }

    @Test
    void authcryptOfSignedIsAccepted() throws Exception {
        String signed = didcomm.packSigned(aliceToBob(), Appendix.ALICE_ED25519, Appendix.ed25519(Appendix.ALICE_ED25519));
        String packed = EncryptedMessage.authcrypt(utf8(signed), Appendix.ALICE_X25519,
                Appendix.x25519(Appendix.ALICE_X25519), bobsKey(), RANDOM).toJson();
        UnpackedMessage u = didcomm.unpack(packed, bob);
        assertEquals(List.of(Protection.AUTHCRYPT, Protection.SIGNED), u.envelopes());
    }

    @Test
    void authcryptOfASignatureByAnotherDidIsRefused() throws Exception {
        // the spec: a signer other than the authcrypt sender MUST be an error
        PeerParty carol = PeerParty.withAgreementKeys(1);
        PlaintextMessage fromCarol = PlaintextMessage.builder("1", "t").from(carol.did).to(Appendix.BOB).build();
        String signed = SignedMessage.sign(utf8(fromCarol.toJson()), carol.signingKid(), carol.signing).toJson();
        String packed = EncryptedMessage.authcrypt(utf8(signed), Appendix.ALICE_X25519,
                Appendix.x25519(Appendix.ALICE_X25519), bobsKey(), RANDOM).toJson();
        assertEquals(Reason.SENDER_MISMATCH, assertThrows(DidcommException.class, () -> didcomm.unpack(packed, bob))
                .reason());
    }

    @Test
    void anoncryptOfAnoncryptIsRefused() throws Exception {
        String inner = didcomm.packAnoncrypt(aliceToBob(), Appendix.BOB_X25519_1);
        String packed = didcomm.wrapAnoncrypt(inner, ContentEncryption.A256CBC_HS512, List.of(Appendix.BOB_X25519_1));
        DidcommException e = assertThrows(DidcommException.class, () -> didcomm.unpack(packed, bob));
        assertEquals(Reason.MALFORMED, e.reason());
        assertTrue(e.getMessage().contains("[ANONCRYPT, ANONCRYPT]"), e.getMessage());
    }

    @Test
    void aSignatureOverAnEncryptedMessageIsRefused() throws Exception {
        String encrypted = didcomm.packAnoncrypt(aliceToBob(), Appendix.BOB_X25519_1);
        String packed = SignedMessage.sign(utf8(encrypted), Appendix.ALICE_ED25519,
                Appendix.ed25519(Appendix.ALICE_ED25519)).toJson();
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> didcomm.unpack(packed, bob)).reason());
    }

    /**
     * anoncrypt(authcrypt(sign)) is read, as didcomm-rust writes it (protect_sender with sign_by) and the spec's
     * Appendix C.3 has it, with every layer's sender the signer; a fourth envelope, or another triple, is refused.
     */
    @Test
    void anoncryptOfAuthcryptOfSignedIsReadAndNothingDeeper() throws Exception {
        String signed = didcomm.packSigned(aliceToBob(), Appendix.ALICE_ED25519, Appendix.ed25519(Appendix.ALICE_ED25519));
        String auth = EncryptedMessage.authcrypt(utf8(signed), Appendix.ALICE_X25519,
                Appendix.x25519(Appendix.ALICE_X25519), bobsKey(), RANDOM).toJson();
        String packed = didcomm.wrapAnoncrypt(auth, ContentEncryption.A256GCM, List.of(Appendix.BOB));
        UnpackedMessage u = didcomm.unpack(packed, bob);
        assertEquals(List.of(Protection.ANONCRYPT, Protection.AUTHCRYPT, Protection.SIGNED), u.envelopes());
        assertEquals(Optional.of(Appendix.ALICE_X25519), u.senderKid());
        assertEquals(Optional.of(Appendix.ALICE_ED25519), u.signerKid());
        assertEquals(aliceToBob(), u.message());

        String four = didcomm.wrapAnoncrypt(packed, ContentEncryption.A256GCM, List.of(Appendix.BOB));
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> didcomm.unpack(four, bob)).reason());
        String authOfAuth = EncryptedMessage.authcrypt(utf8(auth), Appendix.ALICE_X25519,
                Appendix.x25519(Appendix.ALICE_X25519), bobsKey(), RANDOM).toJson();
        String triple = didcomm.wrapAnoncrypt(authOfAuth, ContentEncryption.A256GCM, List.of(Appendix.BOB));
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> didcomm.unpack(triple, bob)).reason());

        // a signer of another DID than the authcrypt sender is still an error under the outer anoncrypt
        PeerParty carol = PeerParty.withAgreementKeys(1);
        PlaintextMessage fromCarol = PlaintextMessage.builder("1", "t").from(carol.did).to(Appendix.BOB).build();
        String carolSigned = SignedMessage.sign(utf8(fromCarol.toJson()), carol.signingKid(), carol.signing).toJson();
        String mixed = didcomm.wrapAnoncrypt(EncryptedMessage.authcrypt(utf8(carolSigned), Appendix.ALICE_X25519,
                Appendix.x25519(Appendix.ALICE_X25519), bobsKey(), RANDOM).toJson(), ContentEncryption.A256GCM,
                List.of(Appendix.BOB));
        assertEquals(Reason.SENDER_MISMATCH, assertThrows(DidcommException.class, () -> didcomm.unpack(mixed, bob))
                .reason());
    }

    @Test
    void aMessageEncryptedForADidOutsideToIsRefused() throws Exception {
        PlaintextMessage toCarol = PlaintextMessage.builder("1", "t").to("did:example:carol").build();
        String packed = EncryptedMessage.anoncrypt(utf8(toCarol.toJson()), bobsKey(), ContentEncryption.A256GCM, RANDOM)
                .toJson();
        assertEquals(Reason.RECIPIENT_MISMATCH, assertThrows(DidcommException.class, () -> didcomm.unpack(packed, bob))
                .reason());
    }

    @Test
    void notJsonIsMalformed() {
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> didcomm.unpack("eyJhbGciOi.x.y", bob))
                .reason());
    }

    @Test
    void theCompactJweIsNotDidcomm() throws Exception {
        String packed = Tamper.json(didcomm.packAnoncrypt(aliceToBob(), Appendix.BOB_X25519_1), o -> {
            o.set("encrypted_key", o.get("recipients").get(0).get("encrypted_key"));
            o.remove("recipients");
        });
        assertEquals(Reason.UNSUPPORTED, assertThrows(DidcommException.class, () -> didcomm.unpack(packed, bob)).reason());
    }

    @Test
    void didKeySendersAndRecipientsWorkOffline() throws Exception {
        // did:key of an Ed25519 key: authentication is the key itself, keyAgreement its derived X25519 key
        Ed25519Secret edAlice = Ed25519Secret.generate(RANDOM);
        String didAlice = DidKey.of(edAlice.publicKey());
        String kid = didAlice + "#" + edAlice.publicKey().encode();
        Didcomm offline = Didcomm.using(DidDocumentKeys.offline());
        PlaintextMessage m = PlaintextMessage.builder("k", "t").from(didAlice).build();
        UnpackedMessage u = offline.unpack(offline.packSigned(m, kid, edAlice), SecretResolver.of(Map.of()));
        assertEquals(Optional.of(kid), u.signerKid());
        assertEquals(List.of(didAlice + "#" + edAlice.publicKey().x25519FromEd25519().encode()),
                DidDocumentKeys.offline().keyAgreementKids(didAlice));
    }

    @Test
    void didPeer2RelativeKidsResolve() throws Exception {
        PeerParty p = PeerParty.withAgreementKeys(2);
        DidDocumentKeys keys = DidDocumentKeys.offline();
        assertEquals(p.signing.publicKey(), keys.authenticationKey(p.signingKid()));
        assertEquals(p.agreement.get(1).publicKey(), keys.keyAgreementKey(p.agreementKid(1)));
        assertEquals(List.of(p.agreementKid(0), p.agreementKid(1)), keys.keyAgreementKids(p.did));
        assertEquals(Reason.KEY_NOT_AUTHORIZED, assertThrows(DidcommException.class,
                () -> keys.keyAgreementKey(p.signingKid())).reason());
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class,
                () -> keys.keyAgreementKey(p.did)).reason());
    }

    @Test
    void legacyBase58KeysResolve() throws Exception {
        X25519Secret s = X25519Secret.generate(RANDOM);
        String base58 = org.fleetmesh.identity.multiformats.Base58Btc.encode(s.publicKey().keyBytes());
        DidDocumentKeys keys = DidDocumentKeys.offline().knowing(Appendix.json("""
                {"id":"did:example:dave","verificationMethod":[{"id":"#k","type":"X25519KeyAgreementKey2019",
                 "controller":"did:example:dave","publicKeyBase58":"%s"}],"keyAgreement":["#k"]}""".formatted(base58)));
        assertEquals(s.publicKey(), keys.keyAgreementKey("did:example:dave#k"));
    }
}
