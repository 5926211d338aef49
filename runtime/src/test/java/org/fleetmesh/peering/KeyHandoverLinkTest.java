package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.A;
import static org.fleetmesh.peering.Nodes.B;
import static org.fleetmesh.peering.Nodes.B_KEYS;
import static org.fleetmesh.peering.Nodes.C;
import static org.fleetmesh.peering.Nodes.C_KEYS;
import static org.fleetmesh.peering.Nodes.T0;
import static org.fleetmesh.peering.Nodes.only;
import static org.fleetmesh.peering.Nodes.peer;
import static org.fleetmesh.peering.Nodes.refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.fleetmesh.identity.KeyHandover;
import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.Test;

/** A node that rotated its keys presents its hand-over on the link (docs/spec/mesh-link.md, "Key hand-over"). */
class KeyHandoverLinkTest {
    private static final NodeSecrets B2_KEYS = Nodes.secrets(0x14, 0x15, 0x16);
    private static final MeshSigner B2_PLAIN = MeshSigner.forNode(B2_KEYS, Nodes.B_AT);
    private static final KeyHandover B_TO_B2 = KeyHandover.sign(B.did(), B.did() + "#key-1", B_KEYS.transport(),
            B2_PLAIN.did(), T0 - 60);
    private static final MeshSigner B2 = B2_PLAIN.withHandover(B_TO_B2);

    private final Nodes.TestClock clock = new Nodes.TestClock(T0);

    private MeshHandshake.Step[] run(MeshSigner initiator, Optional<String> expected, MeshSigner responder) {
        MeshHandshake i = MeshHandshake.initiator(initiator, HandshakeSettings.DEFAULTS, new SeenProofs(), expected,
                clock, new java.util.Random(1));
        MeshHandshake r = Nodes.responder(responder, clock, new SeenProofs());
        i.start();
        MeshHandshake.Step auth = i.receive(only(r.start()));
        if (auth.outcome().isPresent()) {
            return new MeshHandshake.Step[] { auth, null };
        }
        MeshHandshake.Step rAuth = r.receive(only(auth));
        if (rAuth.outcome().isPresent()) {
            return new MeshHandshake.Step[] { null, rAuth };
        }
        MeshHandshake.Step ok = i.receive(only(rAuth));
        return new MeshHandshake.Step[] { ok, r.receive(only(ok)) };
    }

    @Test
    void aDiallerOfTheOldDidAcceptsTheNewOneWithItsHandOver() {
        MeshHandshake.Step[] steps = run(A, Optional.of(PeerIdentity.shortForm(B.did())), B2);
        PeerIdentity learnt = peer(steps[0]);
        assertEquals(B2.did(), learnt.did());
        assertEquals(PeerIdentity.shortForm(B.did()), learnt.prior().orElseThrow().priorKey());
        assertEquals(B_TO_B2.jwt(), learnt.prior().orElseThrow().jwt());
        assertTrue(peer(steps[1]).prior().isEmpty(), "A rotated nothing");
    }

    @Test
    void withoutAHandOverTheNewDidIsNotTheOneDialled() {
        MeshHandshake.Step[] steps = run(A, Optional.of(B.did()), B2_PLAIN);
        Refusal r = refusal(steps[0]);
        assertEquals(Refusal.Kind.INVALID, r.kind());
        assertTrue(r.detail().contains("dialled"), r.detail());
    }

    @Test
    void aHandOverFromAnotherDidDoesNotAnswerTheDial() {
        MeshHandshake.Step[] steps = run(A, Optional.of(C.did()), B2);
        assertTrue(refusal(steps[0]).detail().contains("dialled"), refusal(steps[0]).detail());
    }

    @Test
    void theResponderLearnsTheInitiatorsHandOverFromItsProof() {
        MeshHandshake.Step[] steps = run(B2, Optional.empty(), A);
        PeerIdentity learnt = peer(steps[1]);
        assertEquals(PeerIdentity.shortForm(B.did()), learnt.prior().orElseThrow().priorKey());
        assertEquals(PeerIdentity.shortForm(B2.did()), learnt.shortDid());
    }

    @Test
    void aHandOverToAnotherDidThanThePresentedOneIsRefused() {
        // C presents B's hand-over to B2: the JWT verifies, but does not name C
        MeshSigner cWithB2sHandOver = MeshSigner.forNode(C_KEYS, Nodes.C_AT);
        MeshHello hello = new MeshHello(java.util.List.of(1), cWithB2sHandOver.did(), Challenge.of(Nodes.seq(0)), T0,
                Optional.of(B_TO_B2.jwt()));
        MeshHandshake i = Nodes.initiator(A, clock, new SeenProofs());
        i.start();
        Refusal r = refusal(i.receive(hello.encode()));
        assertEquals(Refusal.Kind.INVALID, r.kind());
        assertTrue(r.detail().contains("not to the presented DID"), r.detail());
    }

    @Test
    void aMalformedHandOverIsRefusedWithItsReason() {
        MeshHello hello = new MeshHello(java.util.List.of(1), B2.did(), Challenge.of(Nodes.seq(0)), T0,
                Optional.of("a.b.c"));
        MeshHandshake i = Nodes.initiator(A, clock, new SeenProofs());
        i.start();
        Refusal r = refusal(i.receive(hello.encode()));
        assertEquals(Refusal.Kind.INVALID, r.kind());
        assertTrue(r.detail().startsWith("\"from_prior\": "), r.detail());
    }

    @Test
    void aSignerPresentsOnlyAHandOverToItsOwnDid() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> C.withHandover(B_TO_B2));
    }

    @Test
    void theHelloCarriesTheJwtVerbatim() throws Exception {
        MeshHandshake r = Nodes.responder(B2, clock, new SeenProofs());
        String hello = only(r.start());
        MeshHello h = (MeshHello) MeshMessage.parse(hello, HandshakeSettings.DEFAULTS.maxMessageLength());
        assertEquals(Optional.of(B_TO_B2.jwt()), h.fromPrior());
        assertTrue(hello.length() < HandshakeSettings.DEFAULTS.maxMessageLength(), "fits the handshake's bound: "
                + hello.length());
    }
}
