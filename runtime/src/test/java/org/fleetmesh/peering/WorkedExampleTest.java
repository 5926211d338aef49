package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.A;
import static org.fleetmesh.peering.Nodes.A_KEYS;
import static org.fleetmesh.peering.Nodes.B;
import static org.fleetmesh.peering.Nodes.B_KEYS;
import static org.fleetmesh.peering.Nodes.T0;
import static org.fleetmesh.peering.Nodes.only;
import static org.fleetmesh.peering.Nodes.peer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.spec.EdECPoint;
import java.security.spec.EdECPublicKeySpec;
import java.security.spec.NamedParameterSpec;
import java.util.HexFormat;
import java.util.List;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

/**
 * The worked example of docs/spec/mesh-link.md, byte for byte: node A (keys 01…, 02…, 03…) dials node B (keys 04…,
 * 05…, 06…). Every value below is printed in the spec; {@link #theSpecPrintsTheseValues} checks that it does.
 */
class WorkedExampleTest {
    static final String A_TRANSPORT = "ed4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d1";
    static final String A_NOSTR = "1b84c5567b126440995d3ed5aaba0565d71e1834604819ff9c17f5e9d5dd078f";
    static final String B_TRANSPORT = "8a875fff1eb38451577acd5afee405456568dd7c89e090863a0557bc7af49f17";
    static final String B_NOSTR = "462779ad4aad39514614751a71085f2f10e1c7a593e4e030efb5b8721ce55b0b";
    static final String A_SHORT = "did:peer:4zQmaZTRrXXHFvBnhFavT4LnPsuTRswLuVCXvayzrbG1VJPQ";
    static final String B_SHORT = "did:peer:4zQmNNPJUM8fqAjuEuUbDHh6qRTGY9r8QQab2J9JaitaK7xU";
    static final String A_DID_SHA256 = "eb938e00bd55161ea5da763d663a01ff7e257f9021f804275e912f2ff9aa1112";
    static final String B_DID_SHA256 = "df1c6d2c5eb23b8bb7f581d3582989a3614019ff87e0869d53e8c9c12cd73d41";
    static final String RESPONDER_CHALLENGE = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    static final String INITIATOR_CHALLENGE = "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";
    static final String A_AUX = "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f";
    static final String B_AUX = "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f";

    static final String INITIATOR_TRANSCRIPT = "00000016666c6565746d6573682f6d6573682d617574682f7631"
            + "00000009696e69746961746f72"
            + "00000020" + A_DID_SHA256
            + "00000020" + B_DID_SHA256
            + "00000020" + INITIATOR_CHALLENGE
            + "00000020" + RESPONDER_CHALLENGE
            + "00000008000000006955b901";
    static final String INITIATOR_TRANSCRIPT_SHA256 = "302aa12c97374cd025d43363ce7d5597db0e925de7f70cc0ccc3bab2bae2ca63";
    static final String INITIATOR_SIG = "2af120b5c936a3a185a2a652dba79effa37121417b1fe7a2f7b0538bdaf58cab"
            + "a670ea318333a3d17c0b25d04f574751daf0c5ba2588926c88c0871201fae60f";
    static final String INITIATOR_NOSTR_SIG = "2c08add4a858a7716e960453104b0f8a95f6b81eee191c24a75694eec241d6f6"
            + "e8620f9f1a80a7eb486a0a7ac03525880e188ad7d7490cbbcd9289ae5c21bb0a";
    static final String RESPONDER_TRANSCRIPT = "00000016666c6565746d6573682f6d6573682d617574682f7631"
            + "00000009726573706f6e646572"
            + "00000020" + A_DID_SHA256
            + "00000020" + B_DID_SHA256
            + "00000020" + INITIATOR_CHALLENGE
            + "00000020" + RESPONDER_CHALLENGE
            + "00000008000000006955b902";
    static final String RESPONDER_TRANSCRIPT_SHA256 = "0ad409853de663960db456794b003239c0b38a791184dca495d8a3cab501d52e";
    static final String RESPONDER_SIG = "d52cbc08016767e8a8a8766aaec06a6426e63a082f0c8321467fa2c5443e7f03"
            + "b9651ca9a0de774e5d3e093ac98ac8e171f8fc0fd9340ca9aafb3bc7bb83eb06";
    static final String RESPONDER_NOSTR_SIG = "68a674f0188432ce36db6cc81a76ba8ba989b865ce036ec635df013165bb2831"
            + "eeee5b33276fa75f162aa5d9ad4d57c81291a03e69f1399c50045712053e43ad";

    static final String HELLO = "[\"MESH-HELLO\",{\"versions\":[1],\"did\":\"<B>\",\"challenge\":\"" + RESPONDER_CHALLENGE
            + "\",\"time\":1767225600}]";
    static final String INITIATOR_AUTH = "[\"MESH-AUTH\",{\"version\":1,\"did\":\"<A>\",\"peer\":\"<B>\",\"challenge\":\""
            + INITIATOR_CHALLENGE + "\",\"answers\":\"" + RESPONDER_CHALLENGE + "\",\"time\":1767225601,\"sig\":\""
            + INITIATOR_SIG + "\",\"nostr_sig\":\"" + INITIATOR_NOSTR_SIG + "\"}]";
    static final String RESPONDER_AUTH = "[\"MESH-AUTH\",{\"version\":1,\"did\":\"<B>\",\"peer\":\"<A>\",\"challenge\":\""
            + RESPONDER_CHALLENGE + "\",\"answers\":\"" + INITIATOR_CHALLENGE + "\",\"time\":1767225602,\"sig\":\""
            + RESPONDER_SIG + "\",\"nostr_sig\":\"" + RESPONDER_NOSTR_SIG + "\"}]";
    static final String OK = "[\"MESH-OK\",{\"version\":1}]";

    private static String wire(String template) {
        return template.replace("<A>", A.did()).replace("<B>", B.did());
    }

    private static String sha256(String s) {
        return Hex.encode(Transcript.sha256(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void keysAndDids() {
        assertEquals(A_TRANSPORT, Hex.encode(A_KEYS.publicKeys().transport().keyBytes()));
        assertEquals(A_NOSTR, A_KEYS.publicKeys().nostr().hex());
        assertEquals(B_TRANSPORT, Hex.encode(B_KEYS.publicKeys().transport().keyBytes()));
        assertEquals(B_NOSTR, B_KEYS.publicKeys().nostr().hex());
        assertEquals(A_SHORT, PeerIdentity.shortForm(A.did()));
        assertEquals(B_SHORT, PeerIdentity.shortForm(B.did()));
        assertEquals(A_DID_SHA256, sha256(A.did()));
        assertEquals(B_DID_SHA256, sha256(B.did()));
    }

    @Test
    void transcripts() {
        Challenge ic = Challenge.ofHex(INITIATOR_CHALLENGE);
        Challenge rc = Challenge.ofHex(RESPONDER_CHALLENGE);
        Transcript ti = Transcript.of(Role.INITIATOR, A.did(), B.did(), ic, rc, T0 + 1);
        Transcript tr = Transcript.of(Role.RESPONDER, A.did(), B.did(), ic, rc, T0 + 2);
        assertEquals(INITIATOR_TRANSCRIPT, Hex.encode(ti.bytes()));
        assertEquals(INITIATOR_TRANSCRIPT_SHA256, Hex.encode(ti.hash()));
        assertEquals(RESPONDER_TRANSCRIPT, Hex.encode(tr.bytes()));
        assertEquals(RESPONDER_TRANSCRIPT_SHA256, Hex.encode(tr.hash()));
    }

    @Test
    void theHandshakeSendsExactlyTheseMessages() {
        Nodes.TestClock clockA = new Nodes.TestClock(T0);
        Nodes.TestClock clockB = new Nodes.TestClock(T0);
        MeshHandshake a = Nodes.initiator(A, clockA, new SeenProofs(), HexFormat.of().parseHex(INITIATOR_CHALLENGE),
                HexFormat.of().parseHex(A_AUX));
        MeshHandshake b = Nodes.responder(B, clockB, new SeenProofs(), HexFormat.of().parseHex(RESPONDER_CHALLENGE),
                HexFormat.of().parseHex(B_AUX));
        a.start();
        String hello = only(b.start());
        assertEquals(wire(HELLO), hello);
        clockA.set(T0 + 1);
        clockB.set(T0 + 1);
        String initiatorAuth = only(a.receive(hello));
        assertEquals(wire(INITIATOR_AUTH), initiatorAuth);
        clockA.set(T0 + 2);
        clockB.set(T0 + 2);
        String responderAuth = only(b.receive(initiatorAuth));
        assertEquals(wire(RESPONDER_AUTH), responderAuth);
        MeshHandshake.Step ok = a.receive(responderAuth);
        assertEquals(OK, only(ok));
        assertEquals(B.did(), peer(ok).did());
        assertEquals(A.did(), peer(b.receive(OK)).did());
    }

    @Test
    void theSignaturesVerifyWithIndependentImplementations() throws Exception {
        // the JDK's own EdDSA, not BouncyCastle
        assertTrue(jdkEd25519Verifies(A_TRANSPORT, INITIATOR_TRANSCRIPT, INITIATOR_SIG));
        assertTrue(jdkEd25519Verifies(B_TRANSPORT, RESPONDER_TRANSCRIPT, RESPONDER_SIG));
        assertTrue(Schnorr.verifyPortable(Hex.decodeLower(INITIATOR_NOSTR_SIG), Hex.decodeLower(INITIATOR_TRANSCRIPT_SHA256),
                Hex.decodeLower(A_NOSTR)));
        assertTrue(Schnorr.verifyPortable(Hex.decodeLower(RESPONDER_NOSTR_SIG), Hex.decodeLower(RESPONDER_TRANSCRIPT_SHA256),
                Hex.decodeLower(B_NOSTR)));
        assertEquals(RESPONDER_NOSTR_SIG, Hex.encode(Schnorr.signPortable(Hex.decodeLower(RESPONDER_TRANSCRIPT_SHA256),
                Nodes.fill(0x04), Hex.decodeLower(B_AUX))));
    }

    @Test
    void theSpecPrintsTheseValues() throws IOException {
        Path spec = Path.of("..", "docs", "spec", "mesh-link.md");
        assertTrue(Files.exists(spec), "the spec page " + spec.toAbsolutePath() + " is missing");
        String page = Files.readString(spec, StandardCharsets.UTF_8);
        for (String value : List.of(A_TRANSPORT, A_NOSTR, B_TRANSPORT, B_NOSTR, A_SHORT, B_SHORT, A_DID_SHA256,
                B_DID_SHA256, RESPONDER_CHALLENGE, INITIATOR_CHALLENGE, A_AUX, B_AUX, INITIATOR_TRANSCRIPT_SHA256,
                INITIATOR_SIG, INITIATOR_NOSTR_SIG, RESPONDER_TRANSCRIPT_SHA256, RESPONDER_SIG, RESPONDER_NOSTR_SIG,
                A.did(), B.did(), HELLO, OK)) {
            assertTrue(page.contains(value), "the spec does not print " + value.substring(0, Math.min(80, value.length())));
        }
        String unwrapped = page.replaceAll("\\s+", "");
        assertTrue(unwrapped.contains(INITIATOR_TRANSCRIPT), "the spec does not print the initiator's transcript");
        assertTrue(unwrapped.contains(RESPONDER_TRANSCRIPT), "the spec does not print the responder's transcript");
        assertTrue(unwrapped.contains(INITIATOR_AUTH), "the spec does not print the initiator's MESH-AUTH");
        assertTrue(unwrapped.contains(RESPONDER_AUTH), "the spec does not print the responder's MESH-AUTH");
    }

    private static boolean jdkEd25519Verifies(String publicKeyHex, String messageHex, String sigHex) throws Exception {
        byte[] pk = HexFormat.of().parseHex(publicKeyHex);
        boolean xOdd = (pk[31] & 0x80) != 0;
        pk[31] &= 0x7f;
        byte[] bigEndian = new byte[32];
        for (int i = 0; i < 32; i++) {
            bigEndian[i] = pk[31 - i];
        }
        EdECPoint point = new EdECPoint(xOdd, new BigInteger(1, bigEndian));
        java.security.PublicKey key = KeyFactory.getInstance("Ed25519")
                .generatePublic(new EdECPublicKeySpec(NamedParameterSpec.ED25519, point));
        java.security.Signature v = java.security.Signature.getInstance("Ed25519");
        v.initVerify(key);
        v.update(HexFormat.of().parseHex(messageHex));
        return v.verify(HexFormat.of().parseHex(sigHex));
    }
}
