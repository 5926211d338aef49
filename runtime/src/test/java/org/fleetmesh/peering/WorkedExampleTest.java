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
    static final String A_SHORT = "did:peer:4zQmYyUJZUsuP8oyJcFauSNnHLG6ZrTiqDJYUix5noEs65Xc";
    static final String B_SHORT = "did:peer:4zQmSgsqWWhd8S1yWTbHxLP1ABdAxmTMHj7c1yjrYDfekyCX";
    static final String A_DID_SHA256 = "1958ccfd0a157abb00909c03a454b5973988d2ab762d96b61d89d662be6f1308";
    static final String B_DID_SHA256 = "8dab51a08e1a294ac80875af62d491a4bc1c878597b8c579e170596bb211b64d";
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
    static final String INITIATOR_TRANSCRIPT_SHA256 = "5c36e3f50997eb1b3d19ae8a31b7b424dbbb83a820a88e2e60c94817498d4457";
    static final String INITIATOR_SIG = "722648f7d999906dff1b34eed5923fab53850d1c6d5c7bfa6be2259f74ccbc98"
            + "21aeded914f960e2045d0ed8220a8d833cc46a97a01b2faf11aa967ae896280a";
    static final String INITIATOR_NOSTR_SIG = "539103155c6f33b621c9769e16d5adf8b7bba5c61684cc33a4a13980ba0c9093"
            + "42faea01b5788516bb5173f09d0266248fa46cd050f6e59a59d55112836a6aca";
    static final String RESPONDER_TRANSCRIPT = "00000016666c6565746d6573682f6d6573682d617574682f7631"
            + "00000009726573706f6e646572"
            + "00000020" + A_DID_SHA256
            + "00000020" + B_DID_SHA256
            + "00000020" + INITIATOR_CHALLENGE
            + "00000020" + RESPONDER_CHALLENGE
            + "00000008000000006955b902";
    static final String RESPONDER_TRANSCRIPT_SHA256 = "f8a8021a05afa89db61cd8d368c20ec9f7f94ec4f51d31d53ec2ab68113fb927";
    static final String RESPONDER_SIG = "3b4d4915fa9646b9608a0233c038bfac6388e8f1b8e74ebc9d909e9d5991dcf3"
            + "98ff02d7819b9c53f078cd811f252b14a9288c5771fbfa91cf1ebc6118a7090f";
    static final String RESPONDER_NOSTR_SIG = "f6e7e7d04d07d04f8324ea6b4839cff62faf8db8f8689f798d0f31ddbc2a3a34"
            + "304481c56bd06f2b2635a5656e3b9c3fc8c3e4e60481babd04d4aa7d5b1c13ac";

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
