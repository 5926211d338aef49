package org.fleetmesh.meshnode.bench;

import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;

/**
 * A WebSocket client for load drivers (Vert.x, non-blocking, so the driver is not the
 * bottleneck): whole text messages go to a callback on the client's event loop.
 */
final class BenchClient {
    private static Vertx vertx;
    private final WebSocket ws;

    private BenchClient(WebSocket ws) {
        this.ws = ws;
    }

    static synchronized Vertx vertx() {
        if (vertx == null) {
            vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        }
        return vertx;
    }

    static BenchClient connect(URI uri, Consumer<String> onMessage) throws Exception {
        var client = vertx().createHttpClient(new HttpClientOptions().setMaxWebSocketMessageSize(64 << 20)
                .setMaxWebSocketFrameSize(64 << 20));
        int port = uri.getPort() > 0 ? uri.getPort() : (uri.getScheme().equals("wss") ? 443 : 80);
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(uri.getHost()).setPort(port)
                .setURI(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                .setSsl(uri.getScheme().equals("wss"));
        WebSocket ws = client.webSocket(options).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        ws.textMessageHandler(onMessage::accept);
        return new BenchClient(ws);
    }

    void send(String text) {
        ws.writeTextMessage(text);
    }

    void close() {
        ws.close().toCompletionStage().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).exceptionally(t -> null).join();
    }

    static void shutdown() {
        if (vertx != null) {
            vertx.close();
        }
    }
}
