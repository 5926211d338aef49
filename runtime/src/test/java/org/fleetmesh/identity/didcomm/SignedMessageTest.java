package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.didcomm.DidcommException.Reason;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Signed messages: EdDSA JWS in General JSON, the signer's kid, and every alteration refused. */
class SignedMessageTest {
    private static final SecretResolver NO_SECRETS = SecretResolver.of(Map.of());

    private final Didcomm didcomm = Didcomm.using(Appendix.keys());
    private final Ed25519Secret alice = Appendix.ed25519(Appendix.ALICE_ED25519);

    private static PlaintextMessage fromAlice() {
        return PlaintextMessage.builder("s-1", "https://example.com/protocols/lets_do_lunch/1.0/proposal")
                .from(Appendix.ALICE).to(Appendix.BOB).build();
    }

    private String signed() throws DidcommException {
        return didcomm.packSigned(fromAlice(), Appendix.ALICE_ED25519, alice);
    }

    private Reason refusal(String message) {
        return assertThrows(DidcommException.class, () -> didcomm.unpack(message, NO_SECRETS)).reason();
    }

    @Test
    void roundTripNamesTheSigner() throws Exception {
        String packed = signed();
        UnpackedMessage u = didcomm.unpack(packed, NO_SECRETS);
        assertEquals(fromAlice(), u.message());
        assertEquals(List.of(Protection.SIGNED), u.envelopes());
        assertEquals(Optional.of(Appendix.ALICE_ED25519), u.signerKid());
        assertEquals(Optional.of(Appendix.json(packed).toString()), u.signedMessage().map(s -> Appendix.json(s).toString()));
    }

    @Test
    void isGeneralJsonWithTypAndKid() throws Exception {
        ObjectNode jws = Appendix.json(signed());
        ObjectNode signature = (ObjectNode) jws.get("signatures").get(0);
        assertEquals(Appendix.ALICE_ED25519, signature.get("header").get("kid").asText());
        ObjectNode header = Appendix.json(new String(Base64Url.decode(signature.get("protected").asText(), "p"),
                StandardCharsets.UTF_8));
        assertEquals(MediaType.SIGNED.value(), header.get("typ").asText());
        assertEquals("EdDSA", header.get("alg").asText());
    }

    @Test
    void theFlattenedFormIsRead() throws Exception {
        ObjectNode general = Appendix.json(signed());
        ObjectNode flat = DidcommJson.object();
        flat.set("payload", general.get("payload"));
        ((ObjectNode) general.get("signatures").get(0)).properties().forEach(e -> flat.set(e.getKey(), e.getValue()));
        assertEquals(fromAlice(), didcomm.unpack(flat.toString(), NO_SECRETS).message());
    }

    @Test
    void alteredPayloadIsRefused() throws Exception {
        String other = Base64Url.encode(fromAlice().toBuilder().to("did:example:carol").build().toJson()
                .getBytes(StandardCharsets.UTF_8));
        assertEquals(Reason.INVALID_SIGNATURE, refusal(Tamper.json(signed(), o -> o.put("payload", other))));
    }

    @Test
    void alteredSignatureIsRefused() throws Exception {
        String altered = Tamper.json(signed(), o -> {
            ObjectNode s = (ObjectNode) o.get("signatures").get(0);
            s.put("signature", Tamper.flip(s.get("signature").asText()));
        });
        assertEquals(Reason.INVALID_SIGNATURE, refusal(altered));
    }

    @Test
    void alteredProtectedHeaderIsRefused() throws Exception {
        String header = Base64Url.encode("{\"alg\":\"EdDSA\",\"typ\":\"application/didcomm-signed+json\"}"
                .getBytes(StandardCharsets.UTF_8));
        String altered = Tamper.json(signed(), o -> ((ObjectNode) o.get("signatures").get(0)).put("protected", header));
        assertEquals(Reason.INVALID_SIGNATURE, refusal(altered));
    }

    @Test
    void aSignatureByAnotherKeyUnderAlicesKidIsRefused() throws Exception {
        Ed25519Secret mallory = Ed25519Secret.generate(new java.security.SecureRandom());
        String forged = SignedMessage.sign(fromAlice().toJson().getBytes(StandardCharsets.UTF_8), Appendix.ALICE_ED25519,
                mallory).toJson();
        assertEquals(Reason.INVALID_SIGNATURE, refusal(forged));
    }

    @Test
    void aSignerOfAnotherDidThanFromIsRefused() throws Exception {
        PeerParty mallory = PeerParty.withAgreementKeys(1);
        String forged = SignedMessage.sign(fromAlice().toJson().getBytes(StandardCharsets.UTF_8), mallory.signingKid(),
                mallory.signing).toJson();
        assertEquals(Reason.SENDER_MISMATCH, refusal(forged));
    }

    @Test
    void aKeyAgreementKidCannotSign() throws Exception {
        String packed = SignedMessage.sign(fromAlice().toJson().getBytes(StandardCharsets.UTF_8), Appendix.ALICE_X25519,
                alice).toJson();
        assertEquals(Reason.KEY_NOT_AUTHORIZED, refusal(packed));
    }

    @Test
    void anX25519KeyUnderAuthenticationIsTheWrongKeyType() throws Exception {
        ObjectNode doc = Appendix.json("""
                {"id":"did:example:eve","authentication":[{"id":"did:example:eve#x","type":"JsonWebKey2020",
                 "controller":"did:example:eve","publicKeyJwk":{"kty":"OKP","crv":"X25519",
                 "x":"avH0O2Y4tqLAq8y9zpianr8ajii5m4F_mICrzNlatXs"}}]}""");
        Didcomm withEve = Didcomm.using(Appendix.keys().knowing(doc));
        PlaintextMessage m = PlaintextMessage.builder("1", "t").from("did:example:eve").build();
        String packed = SignedMessage.sign(m.toJson().getBytes(StandardCharsets.UTF_8), "did:example:eve#x", alice)
                .toJson();
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> withEve.unpack(packed, NO_SECRETS)).reason());
    }

    @Test
    void anUnknownSignerKidIsRefused() throws Exception {
        String packed = SignedMessage.sign(fromAlice().toJson().getBytes(StandardCharsets.UTF_8), Appendix.ALICE + "#nope",
                alice).toJson();
        assertEquals(Reason.UNKNOWN_KEY, refusal(packed));
    }

    @Test
    void twoSignaturesAreRefused() throws Exception {
        String altered = Tamper.json(signed(), o -> ((com.fasterxml.jackson.databind.node.ArrayNode) o.get("signatures"))
                .add(o.get("signatures").get(0).deepCopy()));
        assertEquals(Reason.MALFORMED, refusal(altered));
    }

    @Test
    void otherAlgorithmsAreUnsupported() throws Exception {
        String header = Base64Url.encode("{\"typ\":\"application/didcomm-signed+json\",\"alg\":\"ES512\"}"
                .getBytes(StandardCharsets.UTF_8));
        String altered = Tamper.json(signed(), o -> ((ObjectNode) o.get("signatures").get(0)).put("protected", header));
        assertEquals(Reason.UNSUPPORTED, refusal(altered));
    }

    @Test
    void packingChecksFromKeyAndSecret() {
        PlaintextMessage noFrom = PlaintextMessage.builder("1", "t").build();
        assertEquals(Reason.SENDER_MISMATCH, assertThrows(DidcommException.class,
                () -> didcomm.packSigned(noFrom, Appendix.ALICE_ED25519, alice)).reason());
        assertThrows(IllegalArgumentException.class, () -> didcomm.packSigned(fromAlice(), Appendix.ALICE_ED25519,
                Ed25519Secret.generate(new java.security.SecureRandom())));
        assertTrue(alice.toString().startsWith("Ed25519Secret[public z6Mk"));
    }
}
