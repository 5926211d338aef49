package org.fleetmesh.relay.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;

/** The outbound send budget against a real WebSocket server that stops reading. */
class OutboundConnectionTest {
    private static final long BUDGET = 256 * 1024;
    private static final String CHUNK = "x".repeat(64 * 1024);

    private Vertx vertx;
    private HttpServer server;
    private final CompletableFuture<ServerWebSocket> accepted = new CompletableFuture<>();
    private final LinkedBlockingQueue<String> serverReceived = new LinkedBlockingQueue<>();
    private Dialer dialer;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = vertx.createHttpServer(new io.vertx.core.http.HttpServerOptions().setMaxWebSocketMessageSize(1 << 20))
                .webSocketHandler(ws -> {
                    ws.textMessageHandler(serverReceived::add);
                    ws.pause(); // reads nothing until the test resumes it
                    accepted.complete(ws);
                });
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        dialer = Dialer.standalone(1, Dialer.Options.DEFAULTS.withSendBudget(BUDGET).withConnectTimeout(Duration.ofSeconds(5)));
    }

    @AfterEach
    void stop() throws Exception {
        dialer.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private OutboundConnection connect() throws Exception {
        return dialer.connect(URI.create("ws://127.0.0.1:" + server.actualPort() + "/"), text -> {
        }).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Fills the socket buffers until the budget refuses; bounded so a broken budget fails instead of hanging. */
    private static int fill(OutboundConnection c) {
        for (int i = 0; i < 20_000; i++) {
            if (!c.trySend(CHUNK)) {
                return i;
            }
        }
        throw new AssertionError("20000 x 64 KiB accepted by a peer that reads nothing: no send budget");
    }

    /** Before the open, nothing is sent and writable() waits for the open: a caller retrying does not spin. */
    @Test
    void whileConnectingWritableWaitsForTheOpen() {
        OutboundConnection c = new OutboundConnection(vertx.createWebSocketClient().webSocket(), BUDGET);
        assertFalse(c.trySend("[\"REQ\",\"s\",{}]"), "not connected: nothing sent");
        assertEquals(0, c.queued());
        assertFalse(c.writable().toCompletableFuture().isDone(), "writable waits for the open");
    }

    @Test
    void aPeerThatStopsReadingHoldsTheQueueToTheBudget() throws Exception {
        OutboundConnection c = connect();
        accepted.get(10, TimeUnit.SECONDS);
        int sent = fill(c);
        assertTrue(sent > 0);
        assertTrue(c.queued() <= BUDGET, "queued " + c.queued() + " > budget " + BUDGET);
        // writes still on their way into the kernel's socket buffers free budget for a moment after the refusal:
        // fill again until the buffers are full and a refill takes nothing (the peer reads nothing, so it stays so)
        for (int round = 0; round < 100 && fill(c) > 0; round++) {
            assertTrue(c.queued() <= BUDGET, "queued " + c.queued() + " > budget " + BUDGET);
            Thread.sleep(50);
        }
        assertFalse(c.trySend(CHUNK), "still over the budget");
        assertTrue(c.queued() <= BUDGET, "queued " + c.queued() + " > budget " + BUDGET);
        assertFalse(c.isClosed(), "trySend refuses, it does not close");
    }

    @Test
    void theQueueDrainsWhenThePeerReadsAgain() throws Exception {
        OutboundConnection c = connect();
        ServerWebSocket ws = accepted.get(10, TimeUnit.SECONDS);
        int sent = fill(c);
        CompletableFuture<Void> writable = c.writable().toCompletableFuture();
        assertFalse(writable.isDone(), "the queue is over half the budget: not writable yet");
        ws.resume();
        writable.get(10, TimeUnit.SECONDS);
        assertTrue(c.trySend("last"), "room again once the peer reads");
        for (int i = 0; i < sent; i++) {
            assertEquals(CHUNK.length(), serverReceived.poll(10, TimeUnit.SECONDS).length());
        }
        assertEquals("last", serverReceived.poll(10, TimeUnit.SECONDS), "nothing lost, in order");
    }

    @Test
    void sendOverTheBudgetClosesTheConnectionWithPolicyViolation() throws Exception {
        OutboundConnection c = connect();
        accepted.get(10, TimeUnit.SECONDS);
        fill(c);
        c.send(CHUNK);
        String why = c.closed().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertTrue(why.contains("1008") && why.contains("send budget"), why);
        assertFalse(c.trySend("after"), "nothing is sent on a closed connection");
    }
}
