package org.fleetmesh.meshnode.sync;

import java.net.URI;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.ClientWebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;

/**
 * One WebSocket connection to a relay, read by a blocking caller: every whole text message is
 * parsed and queued; the end of the connection is queued as a {@link Closed} marker. Handlers are
 * attached before connecting, so nothing the relay says on connect (its NIP-42 AUTH) is lost.
 */
final class RelayLink implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the queue holds: a parsed message, an unparsable text, or the end of the connection. */
    sealed interface Incoming permits Message, Garbage, Closed {
    }

    record Message(JsonNode node) implements Incoming {
    }

    record Garbage(String text) implements Incoming {
    }

    record Closed(String why) implements Incoming {
    }

    private final Vertx vertx;
    private final WebSocketClient client;
    private final ClientWebSocket ws;
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    private RelayLink(Vertx vertx, WebSocketClient client, ClientWebSocket ws) {
        this.vertx = vertx;
        this.client = client;
        this.ws = ws;
    }

    static RelayLink connect(URI uri, long timeoutSeconds) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
        try {
            WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions()
                    .setMaxMessageSize(64 << 20).setMaxFrameSize(64 << 20)
                    .setConnectTimeout((int) TimeUnit.SECONDS.toMillis(timeoutSeconds))
                    .setTrustAll(false).setVerifyHost(true));
            ClientWebSocket ws = client.webSocket();
            RelayLink link = new RelayLink(vertx, client, ws);
            ws.textMessageHandler(link::received);
            ws.closeHandler(v -> link.ended("the relay closed the connection"
                    + (ws.closeStatusCode() != null ? " (" + ws.closeStatusCode()
                            + (ws.closeReason() != null && !ws.closeReason().isEmpty() ? " " + ws.closeReason() : "")
                            + ")" : "")));
            ws.exceptionHandler(t -> link.ended("connection error: " + t));
            boolean tls = uri.getScheme().equalsIgnoreCase("wss");
            int port = uri.getPort() > 0 ? uri.getPort() : (tls ? 443 : 80);
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            if (uri.getRawQuery() != null) {
                path += "?" + uri.getRawQuery();
            }
            WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(uri.getHost()).setPort(port)
                    .setURI(path).setSsl(tls);
            ws.connect(options).toCompletionStage().toCompletableFuture().get(timeoutSeconds + 1, TimeUnit.SECONDS);
            return link;
        } catch (Exception e) {
            vertx.close();
            throw e;
        }
    }

    private void received(String text) {
        try {
            inbox.add(new Message(JSON.readTree(text)));
        } catch (Exception e) {
            inbox.add(new Garbage(text));
        }
    }

    private void ended(String why) {
        if (!closed) {
            closed = true;
            inbox.add(new Closed(why));
        }
    }

    /** The next thing the relay said, or null when nothing arrived within the timeout. */
    Incoming next(long timeout, TimeUnit unit) throws InterruptedException {
        Incoming i = inbox.poll(timeout, unit);
        if (i instanceof Closed) {
            inbox.add(i); // the end stays the end for every later reader
        }
        return i;
    }

    boolean isClosed() {
        return closed;
    }

    void send(JsonNode message) {
        if (closed) {
            return;
        }
        try {
            ws.writeTextMessage(JSON.writeValueAsString(message));
        } catch (Exception e) {
            ended("could not send: " + e);
        }
    }

    @Override
    public void close() {
        try {
            if (!closed) {
                ws.close().toCompletionStage().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS)
                        .exceptionally(t -> null).join();
            }
            client.close().toCompletionStage().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS)
                    .exceptionally(t -> null).join();
        } catch (RuntimeException e) {
            // closing anyway
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS)
                    .exceptionally(t -> null).join();
        }
    }
}
