package org.fleetmesh.peering.quarkus;


import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.peering.HandshakeSettings;
import org.fleetmesh.peering.MeshHandshake;
import org.fleetmesh.peering.MeshLink;
import org.fleetmesh.peering.MeshSigner;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.SeenProofs;
import org.fleetmesh.relay.RelayConfig;
import org.jboss.logging.Logger;

import io.quarkus.websockets.next.CloseReason;
import io.quarkus.websockets.next.OnClose;
import io.quarkus.websockets.next.OnError;
import io.quarkus.websockets.next.OnOpen;
import io.quarkus.websockets.next.OnTextMessage;
import io.quarkus.websockets.next.UserData;
import io.quarkus.websockets.next.WebSocket;
import io.quarkus.websockets.next.WebSocketConnection;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

/**
 * Peers connect here: {@code ws://host:port/mesh}. This node answers as the responder of the mutual authentication
 * (docs/spec/mesh-link.md) with its did:peer:4 and keys; once MESH-OK arrives the peer's {@link PeerIdentity} is on
 * the connection under {@link #PEER}.
 */
@WebSocket(path = "/mesh")
public class MeshEndpoint {
    private static final Logger LOG = Logger.getLogger(MeshEndpoint.class);
    /** The link of a connection, from open to close. */
    public static final UserData.TypedKey<MeshLink> LINK = new UserData.TypedKey<>("fleetmesh.mesh.link");
    /** The authenticated peer of a connection, once MESH-OK has arrived. */
    public static final UserData.TypedKey<PeerIdentity> PEER = new UserData.TypedKey<>("fleetmesh.mesh.peer");

    @Inject
    NodeIdentity identity;

    @Inject
    RelayConfig relay;

    @Inject
    MeshConfig config;

    @Inject
    Vertx vertx;

    @ConfigProperty(name = "quarkus.http.port", defaultValue = "7777")
    int httpPort;

    private volatile MeshSigner signer;
    private volatile SeenProofs seen;

    @OnOpen
    @NonBlocking
    void open(WebSocketConnection connection) {
        HandshakeSettings settings = config.settings();
        MeshLink link = new MeshLink(MeshHandshake.responder(signer(), settings, seen()), new Socket(connection));
        connection.userData().put(LINK, link);
        long timer = vertx.setTimer(settings.timeout().toMillis(), id -> link.timedOut());
        link.authenticated().whenComplete((peer, failure) -> {
            vertx.cancelTimer(timer);
            if (peer != null) {
                connection.userData().put(PEER, peer);
                LOG.infof("mesh link %s authenticated %s", connection.id(), peer);
            } else {
                LOG.debugf("mesh link %s not authenticated: %s", connection.id(), failure.getMessage());
            }
        });
        link.open();
    }

    @OnTextMessage
    @NonBlocking
    void message(WebSocketConnection connection, String text) {
        MeshLink link = connection.userData().get(LINK);
        if (link != null) {
            link.receive(text);
        }
    }

    @OnClose
    void close(WebSocketConnection connection) {
        MeshLink link = connection.userData().get(LINK);
        if (link != null) {
            link.closed();
        }
    }

    @OnError
    void error(WebSocketConnection connection, Throwable t) {
        LOG.debugf("mesh connection %s failed: %s", connection.id(), t.toString());
    }

    private MeshSigner signer() {
        MeshSigner s = signer;
        if (s == null) {
            synchronized (this) {
                s = signer;
                if (s == null) {
                    s = MeshSigner.forNode(identity.secrets(), NodeEndpoints.forRelay(relay.url(), httpPort));
                    signer = s;
                    LOG.infof("mesh link answers as %s", PeerIdentity.shortForm(s.did()));
                }
            }
        }
        return s;
    }

    private SeenProofs seen() {
        SeenProofs s = seen;
        if (s == null) {
            synchronized (this) {
                s = seen;
                if (s == null) {
                    s = new SeenProofs(config.replayCacheSize());
                    seen = s;
                }
            }
        }
        return s;
    }

    /** Sends and closes through websockets-next; a close waits for the sends before it. */
    private static final class Socket implements MeshLink.Socket {
        private final WebSocketConnection ws;
        private Uni<Void> last = Uni.createFrom().voidItem();

        Socket(WebSocketConnection ws) {
            this.ws = ws;
        }

        @Override
        public synchronized void send(String text) {
            Uni<Void> sent = ws.sendText(text).memoize().indefinitely();
            sent.subscribe().with(v -> {
            }, t -> LOG.debugf("mesh connection %s: send failed: %s", ws.id(), t.toString()));
            last = sent;
        }

        @Override
        public synchronized void close(int code, String reason) {
            last.onFailure().recoverWithNull().chain(() -> ws.close(new CloseReason(code, reason)))
                    .subscribe().with(v -> {
                    }, t -> LOG.debugf("mesh connection %s: close failed: %s", ws.id(), t.toString()));
        }
    }
}
