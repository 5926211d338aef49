package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.A;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;

/**
 * A peer whose process is stopped (SIGSTOP) or hung still has its kernel accept the TCP connection, but never answers
 * the WebSocket upgrade. Found by a soak that froze the peer for 40 s: the dial's handshake timer fired while the
 * WebSocket was still not connected, sending the MESH-ERR threw {@code IllegalStateException: Not connected} out of
 * the timer, and the stage {@link MeshClient#connect} returned never completed, so {@link PeerLinks} kept the peer
 * {@code connecting} for good and never dialled it again (not even after the peer resumed or restarted).
 */
class MeshDialToFrozenPeerTest {
    private Vertx vertx;
    private ServerSocket frozen;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private Thread acceptor;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        frozen = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(frozen.accept()); // accepts, never reads or answers
                }
            } catch (Exception e) {
                // closed
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void stop() throws Exception {
        frozen.close();
        for (Socket s : accepted) {
            s.close();
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aDialToAPeerThatNeverAnswersTheUpgradeFailsAtTheHandshakeTimeout() throws Exception {
        HandshakeSettings settings = HandshakeSettings.DEFAULTS.withTimeout(Duration.ofSeconds(1));
        try (MeshClient client = new MeshClient(vertx, A, settings)) {
            CompletableFuture<MeshLink> dial = client
                    .connect(URI.create("ws://127.0.0.1:" + frozen.getLocalPort() + "/mesh")).toCompletableFuture();
            // without an answer the caller (PeerLinks) would wait for ever and never redial
            ExecutionException e = assertThrows(ExecutionException.class, () -> dial.get(8, TimeUnit.SECONDS));
            assertTrue(e.getCause() != null, "failed with a cause");
            // and the connection it made is not left open on this side
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (!accepted.isEmpty() && accepted.get(0).getInputStream().read() != -1 && System.nanoTime() < deadline) {
                // drain the upgrade request until this side closes the socket
            }
            assertTrue(System.nanoTime() < deadline, "the dialled TCP connection was closed by this side");
        }
    }
}
