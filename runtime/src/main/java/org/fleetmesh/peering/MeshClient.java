package org.fleetmesh.peering;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jboss.logging.Logger;

import org.fleetmesh.relay.client.Dialer;
import org.fleetmesh.relay.client.OutboundConnection;

import io.vertx.core.Vertx;

/**
 * Dials a peer's {@code /mesh} and runs the initiator side of the mutual authentication over the node's outbound
 * WebSocket client ({@link Dialer}, which holds each link to a send budget).
 * One client serves many links; its replay cache is shared by them. Close it to release the WebSocket client.
 */
public final class MeshClient implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(MeshClient.class);

    private final Vertx vertx;
    private final MeshSigner self;
    private final HandshakeSettings settings;
    private final SeenProofs seen;
    private final Dialer dialer;
    private final LinkSessions sessions;
    /**
     * The longest WebSocket message a dialled link reads: after MESH-OK a frame may be as long as
     * {@code fleetmesh.grants.max-frame-bytes} (1 MiB by default), and the accepting side reads up to
     * {@code quarkus.websockets-next.server.max-message-size} (2 MiB); the handshake bounds its own messages itself.
     */
    static final int MAX_LINK_MESSAGE = 2 * 1024 * 1024;

    public MeshClient(Vertx vertx, MeshSigner self, HandshakeSettings settings) {
        this(vertx, self, settings, new SeenProofs());
    }

    public MeshClient(Vertx vertx, MeshSigner self, HandshakeSettings settings, SeenProofs seen) {
        this(vertx, self, settings, seen, LinkSessions.UNSUPPORTED);
    }

    /** @param sessions opens what runs on each link after MESH-OK */
    public MeshClient(Vertx vertx, MeshSigner self, HandshakeSettings settings, SeenProofs seen,
            LinkSessions sessions) {
        this.sessions = Objects.requireNonNull(sessions, "sessions");
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.self = Objects.requireNonNull(self, "self");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.seen = Objects.requireNonNull(seen, "seen");
        this.dialer = new Dialer(vertx, Dialer.Options.DEFAULTS
                .withMaxMessageSize(Math.max(settings.maxMessageLength() * 4, MAX_LINK_MESSAGE))
                .withConnectTimeout(settings.timeout()));
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
        return connect(url, expectedPeer, sessions);
    }

    /** As {@link #connect(URI, Optional)}, with {@code linkSessions} opening this link's session instead of the client's. */
    public CompletionStage<MeshLink> connect(URI url, Optional<String> expectedPeer, LinkSessions linkSessions) {
        Objects.requireNonNull(linkSessions, "linkSessions");
        CompletableFuture<MeshLink> result = new CompletableFuture<>();
        MeshLink[] link = new MeshLink[1];
        OutboundConnection connection;
        try {
            // the link and its handlers exist before connecting, so MESH-HELLO cannot arrive ahead of them
            connection = dialer.dial(url, c -> {
                link[0] = new MeshLink(MeshHandshake.initiator(self, settings, seen, expectedPeer), new Socket(c),
                        MeshLink.Offload.INLINE, System::nanoTime, linkSessions);
                link[0].open(); // the handshake timeout counts from here, connecting included
                return new OutboundConnection.Handler() {
                    @Override
                    public void onText(String text) {
                        link[0].receive(text);
                    }

                    @Override
                    public void onClosed(String why) {
                        LOG.debugf("mesh link to %s: %s", url, why);
                        link[0].closed();
                    }
                };
            });
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        long timer = vertx.setTimer(settings.timeout().toMillis(), id -> link[0].timedOut());
        connection.opened().whenComplete((v, t) -> {
            if (t != null) {
                vertx.cancelTimer(timer);
                result.completeExceptionally(t);
            }
        });
        link[0].authenticated().whenComplete((peer, failure) -> {
            vertx.cancelTimer(timer);
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(link[0]);
            }
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
        dialer.close();
    }

    /** The connection delivers writes and the close in call order; a peer that stops reading is cut off (1008). */
    private static final class Socket implements MeshLink.Socket {
        private final OutboundConnection connection;

        Socket(OutboundConnection connection) {
            this.connection = connection;
        }

        @Override
        public void send(String text) {
            connection.send(text);
        }

        @Override
        public void close(int code, String reason) {
            connection.close(code, reason);
        }
    }
}
