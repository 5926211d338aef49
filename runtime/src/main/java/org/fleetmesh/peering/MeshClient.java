package org.fleetmesh.peering;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jboss.logging.Logger;

import io.vertx.core.Vertx;
import io.vertx.core.http.ClientWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;

/**
 * Dials a peer's {@code /mesh} and runs the initiator side of the mutual authentication over a Vert.x WebSocket.
 * One client serves many links; its replay cache is shared by them. Close it to release the WebSocket client.
 */
public final class MeshClient implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(MeshClient.class);

    private final Vertx vertx;
    private final MeshSigner self;
    private final HandshakeSettings settings;
    private final SeenProofs seen;
    private final WebSocketClient client;

    public MeshClient(Vertx vertx, MeshSigner self, HandshakeSettings settings) {
        this(vertx, self, settings, new SeenProofs());
    }

    public MeshClient(Vertx vertx, MeshSigner self, HandshakeSettings settings, SeenProofs seen) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.self = Objects.requireNonNull(self, "self");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.seen = Objects.requireNonNull(seen, "seen");
        this.client = vertx.createWebSocketClient(new WebSocketClientOptions()
                .setMaxMessageSize(Math.max(settings.maxMessageLength() * 4, 65_536))
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, settings.timeout().toMillis())));
    }

    /**
     * Opens a link to {@code url} (ws:// or wss://, the peer's {@code #mesh} service) and authenticates it. The
     * stage completes with the open, authenticated link, or fails with a {@link MeshRefusedException} (a refusal
     * by either side, a timeout, a close) or the connection's own error.
     */
    public CompletionStage<MeshLink> connect(URI url) {
        return connect(url, Optional.empty());
    }

    /** As {@link #connect(URI)}, refusing a responder whose DID is not {@code expectedPeer} before signing anything. */
    public CompletionStage<MeshLink> connect(URI url, Optional<String> expectedPeer) {
        CompletableFuture<MeshLink> result = new CompletableFuture<>();
        WebSocketConnectOptions options;
        try {
            options = connectOptions(url);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        // handlers go on before connecting, so MESH-HELLO cannot arrive ahead of them
        ClientWebSocket ws = client.webSocket();
        MeshLink link = new MeshLink(MeshHandshake.initiator(self, settings, seen, expectedPeer), new Socket(ws));
        ws.textMessageHandler(link::receive);
        ws.closeHandler(v -> link.closed());
        ws.exceptionHandler(t -> LOG.debugf("mesh link to %s: %s", url, t.toString()));
        link.open(); // the handshake timeout counts from here, connecting included
        long timer = vertx.setTimer(settings.timeout().toMillis(), id -> link.timedOut());
        link.authenticated().whenComplete((peer, failure) -> {
            vertx.cancelTimer(timer);
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(link);
            }
        });
        ws.connect(options).onFailure(t -> {
            vertx.cancelTimer(timer);
            result.completeExceptionally(t);
        });
        return result;
    }

    /** Connects, authenticates, closes the link normally and gives the peer's identity. */
    public CompletionStage<PeerIdentity> authenticate(URI url) {
        return connect(url).thenApply(link -> {
            PeerIdentity peer = link.peer().orElseThrow();
            link.close();
            return peer;
        });
    }

    @Override
    public void close() {
        client.close();
    }

    static WebSocketConnectOptions connectOptions(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase();
        if (!scheme.equals("ws") && !scheme.equals("wss") || url.getHost() == null) {
            throw new IllegalArgumentException("a mesh URL is ws:// or wss:// with a host, got " + url);
        }
        boolean tls = scheme.equals("wss");
        int port = url.getPort() > 0 ? url.getPort() : tls ? 443 : 80;
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        String uri = url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
        return new WebSocketConnectOptions().setHost(url.getHost()).setPort(port).setSsl(tls).setURI(uri);
    }

    /** Vert.x delivers writes and the close in call order on one connection. */
    private static final class Socket implements MeshLink.Socket {
        private final WebSocket ws;

        Socket(WebSocket ws) {
            this.ws = ws;
        }

        @Override
        public void send(String text) {
            ws.writeTextMessage(text).onFailure(t -> LOG.debugf("mesh link send failed: %s", t.toString()));
        }

        @Override
        public void close(int code, String reason) {
            ws.close((short) code, reason).onFailure(t -> LOG.debugf("mesh link close failed: %s", t.toString()));
        }
    }
}
