package org.fleetmesh.relay.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

/**
 * The dial's timeout bounds the WebSocket upgrade only: an open connection outlives it. Vert.x 4.5 leaves a handshake
 * timer whose id is 0 (the first timer of a fresh Vert.x) running after the upgrade, and it then closed the open
 * WebSocket at the timeout: a standalone dialer's first connection (the CLI's sync) died after its connect timeout.
 */
class DialerHandshakeTimeoutTest {
    @Test
    void aStandaloneDialersFirstConnectionOutlivesTheConnectTimeout() throws Exception {
        Vertx serverVertx = Vertx.vertx();
        HttpServer server = serverVertx.createHttpServer()
                .webSocketHandler(ws -> ws.textMessageHandler(ws::writeTextMessage));
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        Dialer dialer = Dialer.standalone(1, Dialer.Options.DEFAULTS.withConnectTimeout(Duration.ofMillis(500)));
        List<String> echoed = new CopyOnWriteArrayList<>();
        List<String> closed = new CopyOnWriteArrayList<>();
        try {
            OutboundConnection c = dialer.connect(URI.create("ws://127.0.0.1:" + server.actualPort() + "/"),
                    new OutboundConnection.Handler() {
                        @Override
                        public void onText(String text) {
                            echoed.add(text);
                        }

                        @Override
                        public void onClosed(String why) {
                            closed.add(why);
                        }
                    }).toCompletableFuture().get(10, TimeUnit.SECONDS);
            Thread.sleep(1500); // three connect timeouts
            assertEquals(List.of(), closed, "the open connection was closed");
            assertFalse(c.isClosed());
            c.trySend("still here");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (echoed.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(List.of("still here"), echoed);
            c.close();
        } finally {
            dialer.close();
            serverVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
