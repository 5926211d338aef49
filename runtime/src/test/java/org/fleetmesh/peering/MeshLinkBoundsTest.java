package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.A;
import static org.fleetmesh.peering.Nodes.B;
import static org.fleetmesh.peering.Nodes.T0;
import static org.fleetmesh.peering.Nodes.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.peering.MeshLinkTest.RecordingSocket;
import org.junit.jupiter.api.Test;

/** The bounds a responder's link holds: proofs checked off the connection's thread, the idle timeout, busy refusals. */
class MeshLinkBoundsTest {
    private final Nodes.TestClock clock = new Nodes.TestClock(T0);
    private long nanos;

    /** Worker and connection queues run by hand, so a test sees what happens on which side. */
    static final class Lanes implements MeshLink.Offload {
        final Queue<Runnable> worker = new ArrayDeque<>();
        final Queue<Runnable> connection = new ArrayDeque<>();
        boolean full;

        @Override
        public void toWorker(Runnable task) {
            if (full) {
                throw new RejectedExecutionException("full");
            }
            worker.add(task);
        }

        @Override
        public void toConnection(Runnable task) {
            connection.add(task);
        }

        void runWorker() {
            worker.remove().run();
        }

        void runConnection() {
            connection.remove().run();
        }
    }

    private String initiatorProof() {
        return Proofs.proof(A, Role.INITIATOR, A.did(), B.did(), Challenge.of(seq(0x20)), Challenge.of(seq(0)), T0).encode();
    }

    private MeshLink responder(RecordingSocket socket, MeshLink.Offload offload) {
        MeshLink link = new MeshLink(Nodes.responder(B, clock, new SeenProofs(), seq(0)), socket, offload, () -> nanos);
        link.open();
        return link;
    }

    @Test
    void theInitiatorsProofIsVerifiedOnTheWorkerAndAnsweredFromTheConnection() {
        RecordingSocket toA = new RecordingSocket();
        Lanes lanes = new Lanes();
        MeshLink b = responder(toA, lanes);
        b.receive(initiatorProof());
        assertEquals(1, toA.sent.size(), "nothing is verified or sent on the connection's thread");
        assertEquals(1, lanes.worker.size());
        lanes.runWorker();
        assertEquals(1, toA.sent.size(), "the worker does not send: its result goes back to the connection");
        lanes.runConnection();
        assertTrue(toA.sent.get(1).startsWith("[\"MESH-AUTH\""), toA.sent.get(1));
        b.receive(new MeshOk(1).encode());
        assertTrue(lanes.worker.isEmpty(), "MESH-OK is a version check, done on the connection");
        assertEquals(A.did(), b.authenticated().toCompletableFuture().join().did());
    }

    @Test
    void aMessageThatArrivesWhileTheProofIsCheckedWaitsForIt() {
        RecordingSocket toA = new RecordingSocket();
        Lanes lanes = new Lanes();
        MeshLink b = responder(toA, lanes);
        b.receive(initiatorProof());
        b.receive(new MeshOk(1).encode()); // early, but the proof will verify
        lanes.runWorker();
        lanes.runConnection();
        assertEquals(A.did(), b.authenticated().toCompletableFuture().join().did());
        assertTrue(toA.closes.isEmpty());
    }

    @Test
    void twoMessagesWhileTheProofIsCheckedAreUnexpected() {
        RecordingSocket toA = new RecordingSocket();
        Lanes lanes = new Lanes();
        MeshLink b = responder(toA, lanes);
        b.receive(initiatorProof());
        b.receive(new MeshOk(1).encode());
        b.receive(new MeshOk(1).encode());
        lanes.runWorker();
        lanes.runConnection();
        assertEquals("[\"MESH-ERR\",\"unexpected: more than one message arrived before this node answered the last"
                + " one\"]", toA.sent.get(toA.sent.size() - 1));
        assertEquals(List.of("1008 unexpected: more than one message arrived before this node answered the last one"),
                toA.closes);
    }

    @Test
    void aFullWorkerQueueRefusesTheLinkBusyWith1013() {
        RecordingSocket toA = new RecordingSocket();
        Lanes lanes = new Lanes();
        lanes.full = true;
        MeshLink b = responder(toA, lanes);
        b.receive(initiatorProof());
        assertEquals("[\"MESH-ERR\",\"busy: this node is verifying too many handshakes; try again later\"]",
                toA.sent.get(1));
        assertEquals(List.of("1013 busy: this node is verifying too many handshakes; try again later"), toA.closes);
        CompletionException e = assertThrows(CompletionException.class, () -> b.authenticated().toCompletableFuture().join());
        assertEquals(Refusal.Kind.BUSY, assertInstanceOf(MeshRefusedException.class, e.getCause()).refusal().kind());
    }

    @Test
    void aTimeoutWhileTheProofIsCheckedActsAfterIt() {
        RecordingSocket toA = new RecordingSocket();
        Lanes lanes = new Lanes();
        MeshLink b = responder(toA, lanes);
        b.receive(initiatorProof());
        b.timedOut();
        assertTrue(toA.closes.isEmpty(), "the handshake is not touched while the worker holds it");
        lanes.runWorker();
        lanes.runConnection();
        assertTrue(toA.sent.get(1).startsWith("[\"MESH-AUTH\""));
        assertEquals("[\"MESH-ERR\",\"timeout: the handshake did not complete within 10 s\"]", toA.sent.get(2));
        assertEquals(List.of("1008 timeout: the handshake did not complete within 10 s"), toA.closes);
    }

    @Test
    void aConnectionRefusedBeforeTheHandshakeHearsWhy() {
        RecordingSocket toA = new RecordingSocket();
        MeshLink b = new MeshLink(Nodes.responder(B, clock, new SeenProofs(), seq(0)), toA);
        b.refuse(Refusal.of(Refusal.Kind.BUSY, "this node holds 3 /mesh connections, its limit; try again later"));
        assertEquals(List.of("[\"MESH-ERR\",\"busy: this node holds 3 /mesh connections, its limit; try again later\"]"),
                toA.sent, "no MESH-HELLO: the handshake never starts");
        assertEquals(List.of("1013 busy: this node holds 3 /mesh connections, its limit; try again later"), toA.closes);
    }

    private MeshLink authenticated(RecordingSocket toA) {
        MeshLink b = responder(toA, MeshLink.Offload.INLINE);
        b.receive(initiatorProof());
        b.receive(new MeshOk(1).encode());
        assertTrue(b.peer().isPresent());
        return b;
    }

    @Test
    void aSilentAuthenticatedLinkIsClosedIdleAfterTheTimeout() {
        RecordingSocket toA = new RecordingSocket();
        MeshLink b = authenticated(toA);
        Duration idle = Duration.ofSeconds(30);
        nanos += TimeUnit.SECONDS.toNanos(29);
        assertFalse(b.closeIfIdle(idle));
        b.receive("[\"FRAME\",{}]"); // heard at 29 s
        nanos += TimeUnit.SECONDS.toNanos(29);
        assertFalse(b.closeIfIdle(idle), "a message restarts the idle clock");
        b.heard(); // a pong at 58 s
        nanos += TimeUnit.SECONDS.toNanos(29);
        assertFalse(b.closeIfIdle(idle), "so does a pong");
        assertTrue(toA.closes.isEmpty());
        nanos += TimeUnit.SECONDS.toNanos(1);
        assertTrue(b.closeIfIdle(idle));
        assertEquals("[\"MESH-ERR\",\"idle: nothing received for 30 s; closing the link\"]", toA.sent.get(toA.sent.size() - 1));
        assertEquals(List.of("1000 idle: nothing received for 30 s; closing the link"), toA.closes);
        int said = toA.sent.size();
        b.receive("[\"FRAME\",{}]");
        assertFalse(b.closeIfIdle(idle));
        assertEquals(said, toA.sent.size(), "a closing link answers nothing more");
    }

    @Test
    void theIdleTimeoutDoesNotApplyDuringTheHandshake() {
        RecordingSocket toA = new RecordingSocket();
        MeshLink b = responder(toA, MeshLink.Offload.INLINE);
        nanos += TimeUnit.HOURS.toNanos(1);
        assertFalse(b.closeIfIdle(Duration.ofSeconds(1)), "the handshake timeout covers that phase");
    }
}
