package org.fleetmesh.relay.client;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.ClientWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.impl.VertxInternal;

/**
 * The node's one WebSocket client for outbound connections (to a relay's {@code /}, a peer's {@code /mesh}):
 * a Vert.x WebSocket client whose connections each keep an outbound send budget, since websockets-next has no
 * backpressure API. One dialer serves many connections; close it to release the client (and the Vert.x instance
 * when it owns one).
 */
public final class Dialer implements AutoCloseable {

    /**
     * @param maxMessageSize largest message accepted from the other side, in bytes
     * @param connectTimeout how long the TCP/TLS/WebSocket handshake may take
     * @param sendBudget characters a connection may have queued for sending and not yet written to the socket
     * @param maxConnectionsPerHost open connections to one host and port; more wait for one to close
     */
    public record Options(int maxMessageSize, Duration connectTimeout, long sendBudget, int maxConnectionsPerHost) {
        public static final Options DEFAULTS = new Options(16 << 20, Duration.ofSeconds(10), 8L << 20, 50);

        public Options {
            if (maxMessageSize < 1024) {
                throw new IllegalArgumentException("maxMessageSize must be at least 1024");
            }
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            if (sendBudget < 1) {
                throw new IllegalArgumentException("sendBudget must be positive");
            }
            if (maxConnectionsPerHost < 1) {
                throw new IllegalArgumentException("maxConnectionsPerHost must be positive");
            }
        }

        public Options withMaxMessageSize(int bytes) {
            return new Options(bytes, connectTimeout, sendBudget, maxConnectionsPerHost);
        }

        public Options withConnectTimeout(Duration timeout) {
            return new Options(maxMessageSize, timeout, sendBudget, maxConnectionsPerHost);
        }

        public Options withSendBudget(long chars) {
            return new Options(maxMessageSize, connectTimeout, chars, maxConnectionsPerHost);
        }

        public Options withMaxConnectionsPerHost(int n) {
            return new Options(maxMessageSize, connectTimeout, sendBudget, n);
        }
    }

    private final Vertx vertx;
    private final boolean ownsVertx;
    private final WebSocketClient client;
    private final Options options;

    /** A dialer on the caller's Vert.x (the node's, inside Quarkus). */
    public Dialer(Vertx vertx, Options options) {
        this(vertx, false, options);
    }

    private Dialer(Vertx vertx, boolean ownsVertx, Options options) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.ownsVertx = ownsVertx;
        this.options = Objects.requireNonNull(options, "options");
        // Vert.x 4.5 cancels a WebSocket's handshake timer, once the upgrade is answered, only when the timer's id is
        // above 0, and a Vert.x instance numbers its timers from 0: on a fresh instance (the CLI's sync, a standalone
        // dialer) the first dial's timer would be id 0 and close the open WebSocket at the timeout, whatever it was
        // doing. Taking (and cancelling) one timer here first keeps id 0 away from any handshake (RelaySyncTest).
        vertx.cancelTimer(vertx.setTimer(3_600_000, id -> {
        }));
        this.client = vertx.createWebSocketClient(new WebSocketClientOptions()
                .setMaxMessageSize(options.maxMessageSize()).setMaxFrameSize(options.maxMessageSize())
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
                .setMaxConnections(options.maxConnectionsPerHost()).setTrustAll(false).setVerifyHost(true));
    }

    /** A dialer with its own small Vert.x (the CLI, load drivers), closed with it. */
    public static Dialer standalone(int eventLoops, Options options) {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops).setWorkerPoolSize(1));
        return new Dialer(vertx, true, options);
    }

    public Vertx vertx() {
        return vertx;
    }

    public Options options() {
        return options;
    }

    /**
     * Starts connecting to {@code url} (ws:// or wss://). The handler is attached before the connection opens,
     * so nothing the other side says first (a NIP-42 AUTH, a MESH-HELLO) is lost. The returned connection
     * exists at once; {@link OutboundConnection#opened()} completes when the WebSocket is open.
     *
     * @throws IllegalArgumentException when the URL is not ws:// or wss:// with a host
     */
    public OutboundConnection dial(URI url, OutboundConnection.Handler handler) {
        return dial(url, c -> handler);
    }

    /** As {@link #dial(URI, OutboundConnection.Handler)}, the handler made for the connection before it connects. */
    public OutboundConnection dial(URI url, Function<OutboundConnection, OutboundConnection.Handler> handlerFor) {
        // the timeout bounds the upgrade too (Vert.x's connect timeout is the TCP connect's only): a peer that
        // accepts the connection and never answers (a stopped process) fails the dial instead of holding it
        WebSocketConnectOptions connect = connectOptions(url).setTimeout(options.connectTimeout().toMillis());
        OutboundConnection c = new OutboundConnection(client.webSocket(), options.sendBudget());
        c.connect(ws -> open(vertx, ws, connect), handlerFor.apply(c));
        return c;
    }

    /** {@link #dial} and wait for the connection to open. */
    public CompletionStage<OutboundConnection> connect(URI url, OutboundConnection.Handler handler) {
        OutboundConnection c;
        try {
            c = dial(url, handler);
        } catch (IllegalArgumentException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        return c.opened().thenApply(v -> c);
    }

    /**
     * Connects {@code ws}, whose handlers are already set, so that they see every frame, including those the
     * other side sends the moment the WebSocket opens (a relay's NIP-42 AUTH, a peer's MESH-HELLO). Vert.x 4.5's
     * client opens the WebSocket paused, resumes it (which schedules the delivery of the frames already read, on
     * the connection's event loop) and only then completes the connect future, whose listener attaches the
     * handlers. When that future belongs to another context than the connection's (a caller on a test, worker or
     * scheduler thread), the listener runs as a later task, possibly after the delivery: frames read together with
     * the 101 response met no handler and were dropped, in a few per cent of connections (DialerFirstFrameTest).
     * Connecting from a plain event-loop context of its own makes that the connection's context too, and the future
     * then completes on it synchronously, handlers in place before any delivery. (Always a new one, even on an event
     * loop: the caller's may be a duplicated context, whose listeners Vert.x also defers.) Use this for every outbound
     * WebSocket.
     */
    public static Future<WebSocket> open(Vertx vertx, ClientWebSocket ws, WebSocketConnectOptions options) {
        Context context = ((VertxInternal) vertx).createEventLoopContext();
        Promise<WebSocket> opened = Promise.promise();
        context.runOnContext(v -> ws.connect(options).onComplete(opened));
        return opened.future();
    }

    public static WebSocketConnectOptions connectOptions(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase();
        if (!scheme.equals("ws") && !scheme.equals("wss") || url.getHost() == null) {
            throw new IllegalArgumentException("a WebSocket URL is ws:// or wss:// with a host, got " + url);
        }
        boolean tls = scheme.equals("wss");
        int port = url.getPort() > 0 ? url.getPort() : tls ? 443 : 80;
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        String uri = url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
        return new WebSocketConnectOptions().setHost(url.getHost()).setPort(port).setSsl(tls).setURI(uri);
    }

    /** Releases the client; blocks for the shutdown only when the dialer owns its Vert.x (never on an event loop). */
    @Override
    public void close() {
        if (!ownsVertx) {
            client.close();
            return;
        }
        try {
            client.close().toCompletionStage().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS)
                    .exceptionally(t -> null).join();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS)
                    .exceptionally(t -> null).join();
        }
    }
}
