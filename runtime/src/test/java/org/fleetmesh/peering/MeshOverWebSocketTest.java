package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.A;
import static org.fleetmesh.peering.Nodes.A_KEYS;
import static org.fleetmesh.peering.Nodes.B;
import static org.fleetmesh.peering.Nodes.B_KEYS;
import static org.fleetmesh.peering.Nodes.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.relay.client.Dialer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;

/**
 * The handshake over real WebSockets on a free loopback port: a Quarkus-free Vert.x server wires a responder
 * {@link MeshLink} the way {@link org.fleetmesh.peering.quarkus.MeshEndpoint} does (HELLO on open, a timer for the timeout, text frames in, close
 * on refusal), and {@link MeshClient} dials it.
 */
class MeshOverWebSocketTest {
    private Vertx vertx;
    private HttpServer server;
    private final List<MeshLink> serverLinks = new CopyOnWriteArrayList<>();
    private final List<String> serverSent = new CopyOnWriteArrayList<>();
    private final BlockingQueue<String> serverReceived = new LinkedBlockingQueue<>();
    private HandshakeSettings serverSettings = HandshakeSettings.DEFAULTS;
    /** When set, the server's links send through a {@link BudgetedSocket} with this budget, as MeshEndpoint's do. */
    private Long serverBudget;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        SeenProofs seen = new SeenProofs();
        server = vertx.createHttpServer().webSocketHandler(ws -> {
            if (!"/mesh".equals(ws.path())) {
                ws.reject();
                return;
            }
            MeshLink.Socket socket = serverBudget == null ? socket(ws) : new BudgetedSocket(new BudgetedSocket.Transport() {
                @Override
                public void send(String text, Runnable done) {
                    serverSent.add(text);
                    ws.writeTextMessage(text).onComplete(ar -> done.run());
                }

                @Override
                public void close(int code, String reason) {
                    ws.close((short) code, reason);
                }
            }, new SendBudget(serverBudget));
            MeshLink link = new MeshLink(MeshHandshake.responder(B, serverSettings, seen), socket);
            serverLinks.add(link);
            ws.textMessageHandler(t -> {
                serverReceived.add(t);
                link.receive(t);
            });
            ws.closeHandler(v -> link.closed());
            long timer = vertx.setTimer(serverSettings.timeout().toMillis(), id -> link.timedOut());
            link.authenticated().whenComplete((p, t) -> vertx.cancelTimer(timer));
            link.open();
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private MeshLink.Socket socket(ServerWebSocket ws) {
        return new MeshLink.Socket() {
            @Override
            public void send(String text) {
                serverSent.add(text);
                ws.writeTextMessage(text);
            }

            @Override
            public void close(int code, String reason) {
                ws.close((short) code, reason);
            }
        };
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private URI mesh() {
        return URI.create("ws://127.0.0.1:" + server.actualPort() + "/mesh");
    }

    private <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no answer in 10 s; the server sent " + serverSent + ", received "
                    + serverReceived + ", its links " + serverLinks.size(), e);
        }
    }

    @Test
    void bothNodesLearnEachOthersDidOverTheWire() throws Exception {
        try (MeshClient client = new MeshClient(vertx, A, HandshakeSettings.DEFAULTS)) {
            MeshLink link = await(client.connect(mesh()));
            PeerIdentity b = link.peer().orElseThrow();
            assertEquals(B.did(), b.did());
            assertEquals(B_KEYS.publicKeys().transport(), b.transport());
            assertEquals(Optional.of(B_KEYS.publicKeys().nostr()), b.nostr());
            PeerIdentity a = await(serverLinks.get(0).authenticated());
            assertEquals(A.did(), a.did());
            assertEquals(Optional.of(A_KEYS.publicKeys().nostr()), a.nostr());
            link.close();
        }
    }

    /**
     * After MESH-OK a link carries event frames up to {@code fleetmesh.grants.max-frame-bytes} (1 MiB by default) both
     * ways: the dialling side reads messages as long as the accepting side does, not only handshake-sized ones.
     */
    @Test
    void theDiallingSideReadsFrameSizedMessagesAfterTheHandshake() throws Exception {
        try (MeshClient client = new MeshClient(vertx, A, HandshakeSettings.DEFAULTS)) {
            MeshLink link = await(client.connect(mesh()));
            await(serverLinks.get(0).authenticated());
            String big = "[\"BIG\",\"" + "x".repeat(1 << 20) + "\"]";
            serverLinks.get(0).send(big);
            String answer;
            do {
                answer = serverReceived.poll(10, TimeUnit.SECONDS);
            } while (answer != null && !answer.contains("BIG"));
            assertEquals("[\"MESH-ERR\",\"unsupported: message type \\\"BIG\\\" is not served on this link yet\"]",
                    answer);
            link.close();
        }
    }

    @Test
    void afterTheHandshakeUnservedMessagesAreAnsweredAndTheLinkStaysOpen() throws Exception {
        try (MeshClient client = new MeshClient(vertx, A, HandshakeSettings.DEFAULTS)) {
            MeshLink link = await(client.connect(mesh()));
            await(serverLinks.get(0).authenticated());
            link.send("[\"FRAME\",{}]");
            link.send("[\"FRAME\",{}]");
            String unsupported = "[\"MESH-ERR\",\"unsupported: message type \\\"FRAME\\\" is not served on this link"
                    + " yet\"]";
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (serverSent.stream().filter(unsupported::equals).count() < 2 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertEquals(2, serverSent.stream().filter(unsupported::equals).count(), serverSent.toString());
            assertEquals(Optional.of(B.did()), link.peer().map(PeerIdentity::did));
            link.close();
        }
    }

    @Test
    void authenticateGivesThePeerAndClosesTheLink() throws Exception {
        try (MeshClient client = new MeshClient(vertx, A, HandshakeSettings.DEFAULTS)) {
            assertEquals(B.did(), await(client.authenticate(mesh())).did());
        }
    }

    @Test
    void aResponderThatIsNotTheDialledDidIsRefused() throws Exception {
        try (MeshClient client = new MeshClient(vertx, A, HandshakeSettings.DEFAULTS)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> await(client.connect(mesh(), Optional.of(C.did()))));
            MeshRefusedException refused = assertInstanceOf(MeshRefusedException.class, e.getCause());
            assertEquals(Refusal.Kind.INVALID, refused.refusal().kind());
            CompletableFuture<PeerIdentity> serverSide = serverLinks.get(0).authenticated().toCompletableFuture();
            ExecutionException s = assertThrows(ExecutionException.class, () -> serverSide.get(10, TimeUnit.SECONDS));
            Refusal seenByServer = assertInstanceOf(MeshRefusedException.class, s.getCause()).refusal();
            assertTrue(seenByServer.kind() == Refusal.Kind.PEER || seenByServer.kind() == Refusal.Kind.CLOSED,
                    seenByServer.toString());
        }
    }

    /**
     * A plain WebSocket to /mesh, its handlers set before connecting and connected with Dialer.open: the node sends
     * MESH-HELLO as soon as the socket opens, and Vert.x's client can deliver that frame before the handlers are
     * attached when it connects from a test thread (CI lost a HELLO that way; DialerFirstFrameTest).
     */
    private WebSocket rawConnection(WebSocketClient raw, BlockingQueue<String> received, CompletableFuture<Short> closed)
            throws Exception {
        var ws = raw.webSocket();
        ws.textMessageHandler(received::add);
        ws.closeHandler(v -> closed.complete(ws.closeStatusCode()));
        return await(Dialer.open(vertx, ws, new WebSocketConnectOptions()
                .setPort(server.actualPort()).setHost("127.0.0.1").setURI("/mesh")).toCompletionStage());
    }

    @Test
    void aSilentInitiatorIsTimedOutWith1008() throws Exception {
        serverSettings = HandshakeSettings.DEFAULTS.withTimeout(Duration.ofSeconds(1));
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        CompletableFuture<Short> closed = new CompletableFuture<>();
        WebSocketClient raw = vertx.createWebSocketClient();
        WebSocket ws = rawConnection(raw, received, closed);
        assertTrue(received.poll(10, TimeUnit.SECONDS).startsWith("[\"MESH-HELLO\",{\"versions\":[1],\"did\":\""));
        assertEquals("[\"MESH-ERR\",\"timeout: the handshake did not complete within 1 s\"]",
                received.poll(10, TimeUnit.SECONDS));
        assertEquals((short) 1008, closed.get(10, TimeUnit.SECONDS));
        raw.close();
    }

    @Test
    void garbageIsRefusedWithAReasonAndClosed() throws Exception {
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        CompletableFuture<Short> closed = new CompletableFuture<>();
        WebSocketClient raw = vertx.createWebSocketClient();
        WebSocket ws = rawConnection(raw, received, closed);
        assertTrue(received.poll(10, TimeUnit.SECONDS).startsWith("[\"MESH-HELLO\""));
        ws.writeTextMessage("[\"MESH-AUTH\",{\"version\":2}]");
        assertEquals("[\"MESH-ERR\",\"malformed: MESH-AUTH needs \\\"did\\\": a DID string\"]",
                received.poll(10, TimeUnit.SECONDS));
        assertEquals((short) 1008, closed.get(10, TimeUnit.SECONDS));
        raw.close();
    }

    @Test
    void aPeerThatStopsReadingIsClosedSlowOnceTheSendBudgetIsFull() throws Exception {
        serverBudget = 16_384L;
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        CompletableFuture<String> closed = new CompletableFuture<>();
        // a small receive window, so what the server sends piles up on its side while we do not read
        WebSocketClient raw = vertx.createWebSocketClient(new io.vertx.core.http.WebSocketClientOptions()
                .setReceiveBufferSize(8192));
        var ws = raw.webSocket();
        MeshLink ours = new MeshLink(MeshHandshake.initiator(A, HandshakeSettings.DEFAULTS, new SeenProofs(), Optional.empty()),
                new MeshLink.Socket() {
                    @Override
                    public void send(String text) {
                        ws.writeTextMessage(text);
                    }

                    @Override
                    public void close(int code, String reason) {
                        ws.close((short) code, reason);
                    }
                });
        ours.open();
        ws.textMessageHandler(m -> {
            received.add(m);
            ours.receive(m);
        });
        ws.closeHandler(v -> closed.complete(ws.closeStatusCode() + " " + ws.closeReason()));
        await(Dialer.open(vertx, ws, new WebSocketConnectOptions()
                .setPort(server.actualPort()).setHost("127.0.0.1").setURI("/mesh")).toCompletionStage());
        await(ours.authenticated());
        MeshLink theirs = serverLinks.get(0);
        await(theirs.authenticated());
        ws.pause();
        String frame = "[\"FRAME\",\"" + "x".repeat(1000) + "\"]";
        int sends = 20_000; // 20 MB: more than the socket buffers on both sides hold
        for (int i = 0; i < sends; i++) {
            theirs.send(frame);
        }
        ws.resume();
        assertEquals("1008 slow: more than 16384 bytes queued for this peer, which does not read them",
                closed.get(30, TimeUnit.SECONDS));
        long frames = received.stream().filter(frame::equals).count();
        assertTrue(frames < sends, "the server stopped sending: " + frames + " of " + sends + " frames arrived");
        raw.close();
    }
}
