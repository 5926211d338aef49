package org.fleetmesh.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The DIDComm {@code from_prior} hand-over (docs/spec/mesh-link.md, "Key hand-over"): signing, reading, refusals. */
class KeyHandoverTest {
    private static final long T = 1_767_225_600L;
    private static final NodeSecrets OLD = secrets(0x11, 0x12, 0x13);
    private static final NodeSecrets NEW = secrets(0x21, 0x22, 0x23);
    private static final String OLD_DID = did(OLD);
    private static final String NEW_DID = did(NEW);

    static NodeSecrets secrets(int a, int b, int c) {
        return NodeSecrets.of(key(a), key(b), key(c));
    }

    static SecretKey key(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return new SecretKey(k);
    }

    static String did(NodeSecrets s) {
        return NodeDidDocument.of(s.publicKeys(), NodeEndpoints.forRelay(Optional.empty(), 7777)).did();
    }

    static KeyHandover handover() {
        return KeyHandover.sign(OLD_DID, OLD_DID + "#key-1", OLD.transport(), NEW_DID, T);
    }

    @Test
    void aSignedHandOverVerifiesAndNamesBothDids() {
        KeyHandover h = KeyHandover.verify(handover().jwt(), T, 0);
        assertEquals(OLD_DID, h.prior());
        assertEquals(NEW_DID, h.next());
        assertEquals(T, h.issuedAt());
        assertEquals(KeyHandover.shortForm(OLD_DID), h.priorKey());
        assertTrue(h.priorKey().startsWith("did:peer:4") && h.priorKey().length() < 80, h.priorKey());
        String[] parts = h.jwt().split("\\.");
        String header = new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8);
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
        assertEquals("{\"typ\":\"JWT\",\"alg\":\"EdDSA\",\"kid\":\"" + OLD_DID + "#key-1\"}", header);
        assertEquals("{\"iss\":\"" + OLD_DID + "\",\"sub\":\"" + NEW_DID + "\",\"iat\":" + T + "}", claims);
    }

    /** The vector of docs/spec/mesh-link.md, "Key hand-over". */
    @Test
    void theSpecVector() throws Exception {
        assertEquals("did:peer:4zQmRMua6UcujYaRg9YFKtf1Rjgk99kdVsRpdgCKf8eYUCLC", KeyHandover.shortForm(OLD_DID));
        assertEquals("did:peer:4zQmXYqBEnYN998TfHibfvi3PjwV6Bm1YUYAFigryMNqNSLn", KeyHandover.shortForm(NEW_DID));
        String jwt = handover().jwt();
        assertEquals(5700, jwt.length());
        assertTrue(jwt.endsWith(".1vPErObecrHYe64P-9XCEdjikcAnRIuVCaN8oy4y1E9LlM6bsVmRtzVQvtSrDKGU77QegppF-TvCEgChBxLIDQ"), jwt);
        assertEquals("9a80249fc50720c66fabf127ff5291a0f955b5fe2b118c50cddb8a373c634caf", java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(jwt.getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void theSignatureIsDeterministicEd25519OverTheSigningInput() {
        assertEquals(handover().jwt(), handover().jwt(), "Ed25519 (RFC 8032) signs deterministically");
    }

    @Test
    void onlyThePriorTransportKeySigns() {
        // signed with the new key, but claiming the old DID's key-1
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KeyHandover.sign(OLD_DID, OLD_DID + "#key-1", NEW.transport(), NEW_DID, T));
        assertTrue(e.getMessage().contains("signature does not verify"), e.getMessage());
    }

    @Test
    void aTamperedClaimOrSignatureIsRefused() {
        String[] p = handover().jwt().split("\\.");
        String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(("{\"iss\":\"" + OLD_DID + "\",\"sub\":\""
                + did(secrets(0x31, 0x32, 0x33)) + "\",\"iat\":" + T + "}").getBytes(StandardCharsets.UTF_8));
        assertRefused(p[0] + "." + forged + "." + p[2], "signature does not verify");
        char c = p[2].charAt(5) == 'A' ? 'B' : 'A';
        assertRefused(p[0] + "." + p[1] + "." + p[2].substring(0, 5) + c + p[2].substring(6), "signature");
        assertRefused(p[0] + "." + p[1], "three base64url parts");
        assertRefused(p[0] + "." + p[1] + "." + p[2] + "==", "base64url");
        assertRefused("", "JWT of 1..");
        assertRefused("x".repeat(KeyHandover.MAX_LENGTH + 1), "JWT of 1..");
    }

    @Test
    void theHeaderMustBeEdDsaWithAKidOfTheIssuer() {
        assertRefused(signed("{\"alg\":\"none\",\"kid\":\"" + OLD_DID + "#key-1\"}", claims(OLD_DID, NEW_DID, T)), "EdDSA");
        assertRefused(signed("{\"alg\":\"EdDSA\",\"typ\":\"JOSE\",\"kid\":\"" + OLD_DID + "#key-1\"}",
                claims(OLD_DID, NEW_DID, T)), "\"typ\"");
        assertRefused(signed("{\"alg\":\"EdDSA\",\"kid\":\"" + NEW_DID + "#key-1\"}", claims(OLD_DID, NEW_DID, T)),
                "DID URL of \"iss\"");
        assertRefused(signed("{\"alg\":\"EdDSA\"}", claims(OLD_DID, NEW_DID, T)), "\"kid\"");
        // key-2 is the x25519 key agreement key: not under authentication
        assertRefused(signed("{\"alg\":\"EdDSA\",\"kid\":\"" + OLD_DID + "#key-2\"}", claims(OLD_DID, NEW_DID, T)),
                "authentication");
        assertRefused(signed("{\"alg\":\"EdDSA\",\"kid\":\"" + OLD_DID + "#key-1\",\"crit\":[\"x\"]}",
                claims(OLD_DID, NEW_DID, T)), "crit");
        // no typ is accepted (RFC 7519 makes it optional)
        KeyHandover.verify(signed("{\"alg\":\"EdDSA\",\"kid\":\"" + OLD_DID + "#key-1\"}", claims(OLD_DID, NEW_DID, T)), T, 0);
    }

    @Test
    void theClaimsMustHandOverToAnotherDidNotInTheFuture() {
        String kid = "{\"alg\":\"EdDSA\",\"kid\":\"" + OLD_DID + "#key-1\"}";
        assertRefused(signed(kid, claims(OLD_DID, OLD_DID, T)), "same DID");
        assertRefused(signed(kid, claims(OLD_DID, KeyHandover.shortForm(OLD_DID), T)), "same DID");
        assertRefused(signed(kid, claims(OLD_DID, "not a did", T)), "\"sub\"");
        assertRefused(signed(kid, "{\"iss\":\"" + OLD_DID + "\",\"sub\":\"" + NEW_DID + "\"}"), "\"iat\"");
        assertRefused(signed(kid, "{\"iss\":\"" + OLD_DID + "\",\"sub\":\"" + NEW_DID + "\",\"iat\":1.5}"), "\"iat\"");
        assertRefused(signed(kid, "{\"iss\":\"" + OLD_DID + "\",\"sub\":\"" + NEW_DID + "\",\"iat\":5.0}"), "\"iat\"");
        assertRefused(signed(kid, "{\"iss\":\"" + OLD_DID + "\",\"sub\":\"" + NEW_DID + "\",\"iat\":\"5\"}"), "\"iat\"");
        String future = signed(kid, claims(OLD_DID, NEW_DID, T + 600));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyHandover.verify(future, T, 300));
        assertTrue(e.getMessage().contains("future"), e.getMessage());
        KeyHandover.verify(future, T + 300, 300);
    }

    @Test
    void aShortFormIssuerCannotBeResolvedOffline() {
        String shortOld = KeyHandover.shortForm(OLD_DID);
        assertRefused(signed("{\"alg\":\"EdDSA\",\"kid\":\"" + shortOld + "#key-1\"}", claims(shortOld, NEW_DID, T)),
                "long form");
    }

    @Test
    void aDidcommMessageCarriesTheRotationOfItsSender() {
        String jwt = handover().jwt();
        org.fleetmesh.identity.didcomm.PlaintextMessage m = org.fleetmesh.identity.didcomm.PlaintextMessage
                .builder("m-1", "https://fleetmesh.org/test/1.0/ping").from(NEW_DID).fromPrior(jwt).build();
        assertEquals(OLD_DID, m.verifiedFromPrior(T, 0).orElseThrow().prior());
        // the rotation names another sender than the message's from: refused (DIDComm: sub MUST match from)
        org.fleetmesh.identity.didcomm.PlaintextMessage other = org.fleetmesh.identity.didcomm.PlaintextMessage
                .builder("m-2", "https://fleetmesh.org/test/1.0/ping").from(did(secrets(0x31, 0x32, 0x33)))
                .fromPrior(jwt).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> other.verifiedFromPrior(T, 0));
        assertTrue(e.getMessage().contains("hands over to"), e.getMessage());
        assertTrue(org.fleetmesh.identity.didcomm.PlaintextMessage.builder("m-3", "https://fleetmesh.org/test/1.0/ping")
                .from(NEW_DID).build().verifiedFromPrior(T, 0).isEmpty());
    }

    private static String claims(String iss, String sub, long iat) {
        return "{\"iss\":\"" + iss + "\",\"sub\":\"" + sub + "\",\"iat\":" + iat + "}";
    }

    /** A JWS over arbitrary header and claims, signed with the old transport key. */
    private static String signed(String header, String claims) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String input = b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        byte[] msg = input.getBytes(StandardCharsets.US_ASCII);
        byte[] sig = new byte[64];
        org.bouncycastle.math.ec.rfc8032.Ed25519.sign(OLD.transport().bytes(), 0, msg, 0, msg.length, sig, 0);
        return input + "." + b64.encodeToString(sig);
    }

    private static void assertRefused(String jwt, String part) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyHandover.verify(jwt, T, 300));
        assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should mention '" + part + "'");
    }
}
