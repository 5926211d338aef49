package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.A;
import static org.fleetmesh.peering.Nodes.A_KEYS;
import static org.fleetmesh.peering.Nodes.B;
import static org.fleetmesh.peering.Nodes.B_KEYS;
import static org.fleetmesh.peering.Nodes.C;
import static org.fleetmesh.peering.Nodes.C_KEYS;
import static org.fleetmesh.peering.Nodes.T0;
import static org.fleetmesh.peering.Nodes.only;
import static org.fleetmesh.peering.Nodes.peer;
import static org.fleetmesh.peering.Nodes.refusal;
import static org.fleetmesh.peering.Nodes.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.DidPeer2;
import org.fleetmesh.nostr.Signature;
import org.junit.jupiter.api.Test;

class MeshHandshakeTest {
    private static final Challenge X = Challenge.of(seq(0x00));
    private static final Challenge Y = Challenge.of(seq(0x80));
    private static final Challenge I = Challenge.of(seq(0x20));

    private final Nodes.TestClock clock = new Nodes.TestClock(T0);

    /** A responder of {@code self} whose challenge is {@code challenge}, with its own replay cache. */
    private MeshHandshake responder(MeshSigner self, Challenge challenge) {
        return responder(self, challenge, new SeenProofs());
    }

    private MeshHandshake responder(MeshSigner self, Challenge challenge, SeenProofs seen) {
        MeshHandshake r = Nodes.responder(self, clock, seen, challenge.bytes());
        only(r.start());
        return r;
    }

    private MeshHandshake initiatorAfterHello(MeshSigner self, MeshHello hello) {
        MeshHandshake i = Nodes.initiator(self, clock, new SeenProofs(), I.bytes());
        i.start();
        only(i.receive(hello.encode()));
        return i;
    }

    private static void assertRefused(MeshHandshake.Step step, Refusal.Kind kind, String detailPart) {
        Refusal r = refusal(step);
        assertEquals(kind, r.kind(), r.toString());
        assertTrue(r.detail().contains(detailPart), "'" + r.detail() + "' should mention '" + detailPart + "'");
        if (kind.sent()) {
            assertEquals(List.of(new MeshErr(r.reason()).encode()), step.send(), "a refusal sends exactly its MESH-ERR");
            assertTrue(r.reason().startsWith(kind.word() + ": "));
        } else {
            assertTrue(step.send().isEmpty());
        }
    }

    @Test
    void eachSideLearnsTheOthersDidAndKeys() {
        MeshHandshake i = Nodes.initiator(A, clock, new SeenProofs());
        MeshHandshake r = Nodes.responder(B, clock, new SeenProofs());
        assertTrue(i.start().send().isEmpty(), "the initiator waits for MESH-HELLO");
        String hello = only(r.start());
        String initiatorAuth = only(i.receive(hello));
        MeshHandshake.Step responderAuth = r.receive(initiatorAuth);
        assertTrue(responderAuth.outcome().isEmpty(), "the responder is done only at MESH-OK");
        MeshHandshake.Step ok = i.receive(only(responderAuth));
        assertEquals(new MeshOk(1).encode(), only(ok));
        MeshHandshake.Step done = r.receive(only(ok));
        assertTrue(done.send().isEmpty());

        PeerIdentity learnedByA = peer(ok);
        assertEquals(B.did(), learnedByA.did());
        assertEquals(B_KEYS.publicKeys().transport(), learnedByA.transport());
        assertEquals(Optional.of(B_KEYS.publicKeys().nostr()), learnedByA.nostr());
        PeerIdentity learnedByB = peer(done);
        assertEquals(A.did(), learnedByB.did());
        assertEquals(A_KEYS.publicKeys().transport(), learnedByB.transport());
        assertEquals(Optional.of(A_KEYS.publicKeys().nostr()), learnedByB.nostr());
        assertEquals(Optional.of(learnedByA), i.peer());
        assertEquals(Optional.of(learnedByB), r.peer());
    }

    @Test
    void eitherNodeMayInitiate() {
        MeshHandshake i = Nodes.initiator(B, clock, new SeenProofs());
        MeshHandshake r = Nodes.responder(A, clock, new SeenProofs());
        i.start();
        MeshHandshake.Step ok = i.receive(only(r.receive(only(i.receive(only(r.start()))))));
        assertEquals(A.did(), peer(ok).did());
        assertEquals(B.did(), peer(r.receive(only(ok))).did());
    }

    @Test
    void responderSendsNoProofBeforeTheInitiatorsVerifies() {
        MeshHandshake r = responder(B, X);
        MeshAuth unsigned = Proofs.withSig(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0),
                Ed25519Signature.of(new byte[64]));
        MeshHandshake.Step step = r.receive(unsigned.encode());
        assertRefused(step, Refusal.Kind.INVALID, "\"sig\" does not verify");
    }

    @Test
    void replayedProofIsRefused() {
        SeenProofs seen = new SeenProofs();
        MeshAuth proof = Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0);
        assertTrue(responder(B, X, seen).receive(proof.encode()).outcome().isEmpty(), "accepted the first time");
        // a second connection that happens to draw the same challenge
        MeshHandshake.Step again = responder(B, X, seen).receive(proof.encode());
        assertRefused(again, Refusal.Kind.REPLAYED, "already accepted");
    }

    @Test
    void replayedResponderProofIsRefusedByTheInitiator() {
        SeenProofs seen = new SeenProofs();
        MeshHello hello = new MeshHello(List.of(1), B.did(), X, T0);
        MeshAuth proof = Proofs.proof(B, Role.RESPONDER, A.did(), B.did(), I, X, T0);
        for (int attempt = 0; attempt < 2; attempt++) {
            MeshHandshake i = MeshHandshake.initiator(A, HandshakeSettings.DEFAULTS, seen, Optional.empty(), clock,
                    new Nodes.Scripted(I.bytes()));
            i.start();
            i.receive(hello.encode());
            MeshHandshake.Step step = i.receive(proof.encode());
            if (attempt == 0) {
                peer(step);
            } else {
                assertRefused(step, Refusal.Kind.REPLAYED, "already accepted");
            }
        }
    }

    @Test
    void proofsAtTheEdgeOfTheSkewWindowAreAccepted() {
        assertTrue(responder(B, X).receive(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0 - 60).encode())
                .outcome().isEmpty());
        assertTrue(responder(B, X).receive(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0 + 60).encode())
                .outcome().isEmpty());
    }

    @Test
    void expiredProofIsRefused() {
        MeshAuth old = Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0 - 61);
        assertRefused(responder(B, X).receive(old.encode()), Refusal.Kind.EXPIRED, "61 s behind");
    }

    @Test
    void futureProofIsRefused() {
        MeshAuth early = Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0 + 61);
        assertRefused(responder(B, X).receive(early.encode()), Refusal.Kind.FUTURE, "61 s ahead");
    }

    @Test
    void expiredResponderProofIsRefused() {
        MeshHandshake i = initiatorAfterHello(A, new MeshHello(List.of(1), B.did(), X, T0));
        MeshAuth old = Proofs.proof(B, Role.RESPONDER, A.did(), B.did(), I, X, T0 - 3600);
        assertRefused(i.receive(old.encode()), Refusal.Kind.EXPIRED, "3600 s behind");
    }

    @Test
    void skewIsConfigurable() {
        MeshHandshake r = MeshHandshake.responder(B, HandshakeSettings.DEFAULTS.withMaxClockSkew(Duration.ofSeconds(5)),
                new SeenProofs(), clock, new Nodes.Scripted(X.bytes()));
        r.start();
        assertRefused(r.receive(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0 - 6).encode()),
                Refusal.Kind.EXPIRED, "at most 5 s");
    }

    @Test
    void helloFromAClockFarAheadIsRefusedBeforeSigning() {
        MeshHandshake i = Nodes.initiator(A, clock, new SeenProofs(), I.bytes());
        i.start();
        assertRefused(i.receive(new MeshHello(List.of(1), B.did(), X, T0 + 3600).encode()), Refusal.Kind.FUTURE,
                "MESH-HELLO time");
    }

    @Test
    void proofBoundToAnotherResponderIsRefused() {
        // A proved itself to C, answering C's challenge; the same proof shown to B (even one whose challenge is
        // the same) is bound to C's DID
        MeshAuth forC = Proofs.proof(A, Role.INITIATOR, A.did(), C.did(), I, X, T0);
        assertRefused(responder(B, X).receive(forC.encode()), Refusal.Kind.INVALID, "bound to "
                + PeerIdentity.shortForm(C.did()));
        // rewriting "peer" does not help: the signature covers the responder's DID
        assertRefused(responder(B, X).receive(Proofs.withPeer(forC, B.did()).encode()), Refusal.Kind.INVALID,
                "\"sig\" does not verify");
    }

    @Test
    void responderProofBoundToAnotherInitiatorIsRefused() {
        MeshHandshake i = initiatorAfterHello(A, new MeshHello(List.of(1), B.did(), X, T0));
        MeshAuth forC = Proofs.proof(B, Role.RESPONDER, C.did(), B.did(), I, X, T0);
        assertRefused(i.receive(forC.encode()), Refusal.Kind.INVALID, "bound to");
        MeshHandshake again = initiatorAfterHello(A, new MeshHello(List.of(1), B.did(), X, T0));
        assertRefused(again.receive(Proofs.withPeer(forC, A.did()).encode()), Refusal.Kind.INVALID,
                "\"sig\" does not verify");
    }

    @Test
    void responderProofReflectedToItsSignerIsRefused() {
        // in a link A -> B, B's proof is handed back to B as if it were an initiator's
        MeshAuth bProof = Proofs.proof(B, Role.RESPONDER, A.did(), B.did(), I, X, T0);
        MeshAuth reflected = new MeshAuth(1, B.did(), B.did(), bProof.answers(), bProof.challenge(), T0, bProof.sig(),
                bProof.nostrSig());
        assertRefused(responder(B, X).receive(reflected.encode()), Refusal.Kind.SELF, "own DID");
    }

    @Test
    void proofSignedInTheOtherRoleIsRefused() {
        // A's signature over the very same DIDs, challenges and time, but labelled responder: refused as initiator
        MeshAuth asResponder = Proofs.proof(A, Role.RESPONDER, A.did(), B.did(), I, X, T0);
        MeshAuth presented = new MeshAuth(1, A.did(), B.did(), I, X, T0, asResponder.sig(), asResponder.nostrSig());
        assertRefused(responder(B, X).receive(presented.encode()), Refusal.Kind.INVALID, "\"sig\" does not verify");
    }

    @Test
    void proofOfAnotherConnectionsChallengeIsRefused() {
        MeshAuth forX = Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0);
        assertRefused(responder(B, Y).receive(forX.encode()), Refusal.Kind.INVALID, "answers challenge " + X.hex());
        assertRefused(responder(B, Y).receive(Proofs.withAnswers(forX, Y).encode()), Refusal.Kind.INVALID,
                "\"sig\" does not verify");
    }

    @Test
    void responderProofOfAnotherChallengeIsRefused() {
        MeshHandshake i = initiatorAfterHello(A, new MeshHello(List.of(1), B.did(), X, T0));
        MeshAuth other = Proofs.proof(B, Role.RESPONDER, A.did(), B.did(), Y, X, T0);
        assertRefused(i.receive(other.encode()), Refusal.Kind.INVALID, "answers challenge " + Y.hex());
    }

    @Test
    void signatureByAKeyNotInTheDidDocumentIsRefused() {
        MeshSigner impostor = MeshSigner.of(A.did(), C_KEYS.transport(), Optional.of(A_KEYS.nostr()));
        MeshAuth forged = Proofs.proof(impostor, Role.INITIATOR, A.did(), B.did(), I, X, T0);
        assertRefused(responder(B, X).receive(forged.encode()), Refusal.Kind.INVALID,
                "\"sig\" does not verify under the Ed25519 authentication key of " + PeerIdentity.shortForm(A.did()));
    }

    @Test
    void nostrSignatureByAnotherKeyIsRefused() {
        MeshSigner halfImpostor = MeshSigner.of(A.did(), A_KEYS.transport(), Optional.of(C_KEYS.nostr()));
        MeshAuth forged = Proofs.proof(halfImpostor, Role.INITIATOR, A.did(), B.did(), I, X, T0);
        assertRefused(responder(B, X).receive(forged.encode()), Refusal.Kind.INVALID, "\"nostr_sig\" does not verify");
    }

    @Test
    void missingNostrSignatureIsRefusedWhenTheDocumentHasANostrKey() {
        MeshAuth proof = Proofs.withNostrSig(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0),
                Optional.empty());
        assertRefused(responder(B, X).receive(proof.encode()), Refusal.Kind.INVALID, "\"nostr_sig\" is missing");
    }

    @Test
    void didKeyPeerAuthenticatesWithoutNostrIdentity() {
        MeshSigner plain = MeshSigner.of(DidKey.of(C_KEYS.publicKeys().transport()), C_KEYS.transport(),
                Optional.empty());
        MeshHandshake r = responder(B, X);
        String bAuth = only(r.receive(Proofs.proof(plain, Role.INITIATOR, plain.did(), B.did(), I, X, T0).encode()));
        assertTrue(bAuth.contains("\"peer\":\"" + plain.did() + "\""));
        PeerIdentity p = peer(r.receive(new MeshOk(1).encode()));
        assertEquals(plain.did(), p.did());
        assertEquals(Optional.empty(), p.nostr());
    }

    @Test
    void nostrSignatureWithoutANostrKeyIsRefused() {
        MeshSigner plain = MeshSigner.of(DidKey.of(C_KEYS.publicKeys().transport()), C_KEYS.transport(),
                Optional.of(C_KEYS.nostr()));
        assertRefused(responder(B, X).receive(Proofs.proof(plain, Role.INITIATOR, plain.did(), B.did(), I, X, T0)
                .encode()), Refusal.Kind.INVALID, "lists no secp256k1");
    }

    @Test
    void ownDidIsRefused() {
        MeshAuth mine = Proofs.proof(B, Role.INITIATOR, B.did(), B.did(), I, X, T0);
        assertRefused(responder(B, X).receive(mine.encode()), Refusal.Kind.SELF, "own DID");
        MeshHandshake i = Nodes.initiator(A, clock, new SeenProofs());
        i.start();
        assertRefused(i.receive(new MeshHello(List.of(1), A.did(), X, T0).encode()), Refusal.Kind.SELF, "own DID");
    }

    @Test
    void anotherDidOfOurOwnKeyIsRefused() {
        MeshSigner didKeyTwin = MeshSigner.of(DidKey.of(B_KEYS.publicKeys().transport()), B_KEYS.transport(),
                Optional.empty());
        assertRefused(responder(B, X).receive(Proofs.proof(didKeyTwin, Role.INITIATOR, didKeyTwin.did(), B.did(), I, X,
                T0).encode()), Refusal.Kind.SELF, "own DID");
        String peer2 = DidPeer2.create(List.of(new DidPeer2.PurposedKey(DidPeer2.Purpose.AUTHENTICATION,
                B_KEYS.publicKeys().transport())), List.of());
        MeshSigner peer2Twin = MeshSigner.of(peer2, B_KEYS.transport(), Optional.empty());
        assertRefused(responder(B, X).receive(Proofs.proof(peer2Twin, Role.INITIATOR, peer2, B.did(), I, X, T0)
                .encode()), Refusal.Kind.SELF, "holds this node's own transport key");
    }

    @Test
    void unknownVersionIsRefusedNamingOurs() {
        MeshAuth v2 = Proofs.withVersion(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0), 2);
        MeshHandshake.Step step = responder(B, X).receive(v2.encode());
        assertRefused(step, Refusal.Kind.UNSUPPORTED, "version 2; this node speaks version 1");
    }

    @Test
    void helloWithoutACommonVersionIsRefused() {
        MeshHandshake i = Nodes.initiator(A, clock, new SeenProofs());
        i.start();
        assertRefused(i.receive(new MeshHello(List.of(2, 3), B.did(), X, T0).encode()), Refusal.Kind.UNSUPPORTED,
                "versions [2, 3] offered; this node speaks version 1");
    }

    @Test
    void initiatorPicksTheVersionItSpeaks() {
        MeshHandshake i = initiatorAfterHello(A, new MeshHello(List.of(3, 1, 2), B.did(), X, T0));
        assertTrue(i.outcome().isEmpty());
        MeshAuth v2 = Proofs.withVersion(Proofs.proof(B, Role.RESPONDER, A.did(), B.did(), I, X, T0), 2);
        assertRefused(i.receive(v2.encode()), Refusal.Kind.INVALID, "this link speaks 1");
    }

    @Test
    void initiatorRefusesAnUnexpectedResponderBeforeSigning() {
        MeshHandshake i = MeshHandshake.initiator(A, HandshakeSettings.DEFAULTS, new SeenProofs(),
                Optional.of(PeerIdentity.shortForm(C.did())), clock, new Nodes.Scripted(I.bytes()));
        i.start();
        assertRefused(i.receive(new MeshHello(List.of(1), B.did(), X, T0).encode()), Refusal.Kind.INVALID,
                "this node dialled " + PeerIdentity.shortForm(C.did()));
        MeshHandshake j = MeshHandshake.initiator(A, HandshakeSettings.DEFAULTS, new SeenProofs(),
                Optional.of(PeerIdentity.shortForm(B.did())), clock, new Nodes.Scripted(I.bytes()));
        j.start();
        assertTrue(j.receive(new MeshHello(List.of(1), B.did(), X, T0).encode()).outcome().isEmpty(),
                "a short form names its long form");
    }

    @Test
    void unresolvableDidsAreRefused() {
        MeshAuth shortForm = Proofs.withDid(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0),
                PeerIdentity.shortForm(A.did()));
        assertRefused(responder(B, X).receive(shortForm.encode()), Refusal.Kind.INVALID, "send the did:peer:4 long form");
        MeshAuth web = Proofs.withDid(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0), "did:web:a.example");
        assertRefused(responder(B, X).receive(web.encode()), Refusal.Kind.UNSUPPORTED, "did:web");
        MeshAuth nostr = Proofs.withDid(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0),
                "did:nostr:" + A_KEYS.publicKeys().nostr().hex());
        assertRefused(responder(B, X).receive(nostr.encode()), Refusal.Kind.INVALID, "no Ed25519 key");
    }

    @Test
    void handshakeTimesOut() {
        MeshHandshake r = responder(B, X);
        clock.advance(11);
        assertRefused(r.receive(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0 + 11).encode()),
                Refusal.Kind.TIMEOUT, "within 10 s");
        MeshHandshake s = responder(B, X);
        assertRefused(s.expire(), Refusal.Kind.TIMEOUT, "within 10 s");
        assertTrue(s.expire().send().isEmpty(), "a handshake that is over does not time out again");
    }

    @Test
    void messagesOutOfOrderAreUnexpected() {
        assertRefused(responder(B, X).receive(new MeshHello(List.of(1), A.did(), X, T0).encode()),
                Refusal.Kind.UNEXPECTED, "waiting for the initiator's MESH-AUTH, got MESH-HELLO");
        assertRefused(responder(B, X).receive(new MeshOk(1).encode()), Refusal.Kind.UNEXPECTED, "got MESH-OK");
        MeshHandshake i = Nodes.initiator(A, clock, new SeenProofs());
        i.start();
        assertRefused(i.receive(Proofs.proof(B, Role.RESPONDER, A.did(), B.did(), I, X, T0).encode()),
                Refusal.Kind.UNEXPECTED, "waiting for MESH-HELLO, got MESH-AUTH");
    }

    @Test
    void okForAnotherVersionIsRefused() {
        MeshHandshake r = responder(B, X);
        only(r.receive(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0).encode()));
        assertRefused(r.receive(new MeshOk(2).encode()), Refusal.Kind.INVALID, "MESH-OK names version 2");
    }

    @Test
    void peersRefusalEndsTheHandshakeUnanswered() {
        MeshHandshake.Step step = responder(B, X).receive(new MeshErr("invalid: no thanks").encode());
        assertRefused(step, Refusal.Kind.PEER, "no thanks");
        assertEquals("invalid: no thanks", refusal(step).reason());
    }

    @Test
    void closedConnectionEndsTheHandshake() {
        MeshHandshake r = responder(B, X);
        assertRefused(r.closed(), Refusal.Kind.CLOSED, "closed");
    }

    @Test
    void malformedMessagesAreRefusedWithAReason() {
        assertRefused(responder(B, X).receive("hello"), Refusal.Kind.MALFORMED, "not JSON");
        assertRefused(responder(B, X).receive("[\"MESH-AUTH\"]"), Refusal.Kind.MALFORMED, "two elements");
        assertRefused(responder(B, X).receive("[\"MESH-AUTH\",{\"version\":1}]"), Refusal.Kind.MALFORMED,
                "MESH-AUTH needs \"did\"");
        String upper = Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0).encode()
                .replace(X.hex(), X.hex().toUpperCase());
        assertRefused(responder(B, X).receive(upper), Refusal.Kind.MALFORMED,
                "\"answers\" must be 64 lower-case hex characters");
        assertRefused(responder(B, X).receive("[\"EVENT\",{}]"), Refusal.Kind.UNSUPPORTED, "\"EVENT\"");
    }

    @Test
    void nostrSignatureMustBeHex() {
        String bad = Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0).encode()
                .replaceFirst("\"nostr_sig\":\"[0-9a-f]+\"", "\"nostr_sig\":\"zz\"");
        assertRefused(responder(B, X).receive(bad), Refusal.Kind.MALFORMED, "\"nostr_sig\" must be 128 lower-case hex");
    }

    @Test
    void nostrSignatureIsBip340OverTheTranscriptHash() {
        MeshAuth proof = Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), I, X, T0);
        Signature s = proof.nostrSig().orElseThrow();
        byte[] hash = Transcript.of(Role.INITIATOR, A.did(), B.did(), I, X, T0).hash();
        assertTrue(org.fleetmesh.nostr.Schnorr.verify(s.unsafeBytes(), hash, A_KEYS.publicKeys().nostr().unsafeBytes()));
    }
}
