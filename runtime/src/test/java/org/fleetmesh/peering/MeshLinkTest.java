package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.A;
import static org.fleetmesh.peering.Nodes.B;
import static org.fleetmesh.peering.Nodes.T0;
import static org.fleetmesh.peering.Nodes.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

class MeshLinkTest {
    private final Nodes.TestClock clock = new Nodes.TestClock(T0);

    /** Records what the link sends and closes. */
    static final class RecordingSocket implements MeshLink.Socket {
        final List<String> sent = new ArrayList<>();
        final List<String> closes = new ArrayList<>();
        MeshLink peer;

        @Override
        public void send(String text) {
            sent.add(text);
            if (peer != null) {
                peer.receive(text);
            }
        }

        @Override
        public void close(int code, String reason) {
            closes.add(code + " " + reason);
        }
    }

    private MeshLink[] linked() {
        RecordingSocket toB = new RecordingSocket();
        RecordingSocket toA = new RecordingSocket();
        MeshLink a = new MeshLink(Nodes.initiator(A, clock, new SeenProofs()), toB);
        MeshLink b = new MeshLink(Nodes.responder(B, clock, new SeenProofs()), toA);
        toB.peer = b;
        toA.peer = a;
        a.open();
        b.open();
        return new MeshLink[] { a, b };
    }

    @Test
    void bothLinksCompleteWithThePeer() {
        MeshLink[] ab = linked();
        assertEquals(B.did(), ab[0].authenticated().toCompletableFuture().join().did());
        assertEquals(A.did(), ab[1].authenticated().toCompletableFuture().join().did());
        assertEquals(Role.INITIATOR, ab[0].role());
    }

    @Test
    void afterTheHandshakeOtherMessagesAreUnsupportedButTheLinkStays() {
        RecordingSocket toA = new RecordingSocket();
        MeshLink solo = new MeshLink(Nodes.responder(B, clock, new SeenProofs(), seq(0)), toA);
        solo.open();
        solo.receive(Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), Challenge.of(seq(0x20)), Challenge.of(seq(0)), T0)
                .encode());
        solo.receive(new MeshOk(1).encode());
        assertTrue(solo.peer().isPresent());
        int before = toA.sent.size();
        solo.receive("[\"FRAME\",{\"events\":[]}]");
        solo.receive("garbage");
        solo.receive(new MeshErr("invalid: whatever").encode());
        assertEquals(List.of("[\"MESH-ERR\",\"unsupported: message type \\\"FRAME\\\" is not served on this link yet\"]",
                "[\"MESH-ERR\",\"unsupported: a message that is not a typed JSON array is not served on this link yet\"]"),
                toA.sent.subList(before, toA.sent.size()), "MESH-ERR is never answered");
        assertTrue(toA.closes.isEmpty(), "the link stays open");
    }

    @Test
    void aRefusalSendsItsReasonThenClosesWith1008() {
        RecordingSocket toA = new RecordingSocket();
        MeshLink b = new MeshLink(Nodes.responder(B, clock, new SeenProofs()), toA);
        b.open();
        b.receive("[\"MESH-AUTH\"]");
        assertEquals("[\"MESH-ERR\",\"malformed: MESH-AUTH is [\\\"MESH-AUTH\\\", {...}]: two elements, the second an"
                + " object\"]", toA.sent.get(1));
        assertEquals(1, toA.closes.size());
        assertTrue(toA.closes.get(0).startsWith("1008 malformed: MESH-AUTH is"));
        CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> b.authenticated().toCompletableFuture().join());
        MeshRefusedException refused = assertInstanceOf(MeshRefusedException.class, e.getCause());
        assertEquals(Refusal.Kind.MALFORMED, refused.refusal().kind());
        b.receive("[\"MESH-OK\",{\"version\":1}]");
        assertEquals(2, toA.sent.size(), "nothing more is said on a refused link");
    }

    @Test
    void aTimerExpiryClosesAnUnfinishedHandshake() {
        RecordingSocket toA = new RecordingSocket();
        MeshLink b = new MeshLink(Nodes.responder(B, clock, new SeenProofs()), toA);
        b.open();
        b.timedOut();
        assertEquals("[\"MESH-ERR\",\"timeout: the handshake did not complete within 10 s\"]", toA.sent.get(1));
        assertEquals(List.of("1008 timeout: the handshake did not complete within 10 s"), toA.closes);
    }

    @Test
    void thePeersRefusalClosesWithoutAnswer() {
        RecordingSocket toA = new RecordingSocket();
        MeshLink b = new MeshLink(Nodes.responder(B, clock, new SeenProofs()), toA);
        b.open();
        b.receive("[\"MESH-ERR\",\"invalid: nope\"]");
        assertEquals(1, toA.sent.size());
        assertEquals(List.of("1000 refused by the peer"), toA.closes);
    }

    @Test
    void closeReasonsFitA123ByteCloseFrame() {
        String reason = MeshLink.closeReason(Refusal.of(Refusal.Kind.INVALID, "é".repeat(200)));
        assertTrue(reason.getBytes(StandardCharsets.UTF_8).length <= 123, reason);
        assertTrue(reason.startsWith("invalid: éé") && reason.endsWith("..."));
    }
}
