package org.fleetmesh.peering.quarkus;

import java.time.Duration;
import java.util.Optional;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.peering.BudgetedSocket;
import org.fleetmesh.peering.HandshakeSettings;
import org.fleetmesh.peering.MeshAdmission;
import org.fleetmesh.peering.MeshHandshake;
import org.fleetmesh.peering.MeshLink;
import org.fleetmesh.peering.MeshSigner;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.SeenProofs;
import org.fleetmesh.peering.SendBudget;
import org.fleetmesh.relay.quarkus.RelayConfig;
import org.jboss.logging.Logger;

import io.quarkus.websockets.next.CloseReason;
import io.quarkus.websockets.next.OnClose;
import io.quarkus.websockets.next.OnError;
import io.quarkus.websockets.next.OnOpen;
import io.quarkus.websockets.next.OnPongMessage;
import io.quarkus.websockets.next.OnTextMessage;
import io.quarkus.websockets.next.UserData;
import io.quarkus.websockets.next.WebSocket;
import io.quarkus.websockets.next.WebSocketConnection;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Peers connect here: {@code ws://host:port/mesh}. This node answers as the responder of the mutual authentication
 * (docs/spec/mesh-link.md) with its did:peer:4 and keys; once MESH-OK arrives the peer's {@link PeerIdentity} is on
 * the connection under {@link #PEER}. Every connection is bounded: the connection caps on open, the handshake timeout,
 * a send budget, the idle timeout after MESH-OK; proofs are checked on {@link HandshakeWorkers}, not the event loop.
 */
@WebSocket(path = "/mesh", endpointId = MeshEndpoint.ID)
public class MeshEndpoint {
    private static final Logger LOG = Logger.getLogger(MeshEndpoint.class);
    static final String ID = "fleetmesh-mesh";
    /** After a close frame, how long a peer may take to answer it before the TCP connection is dropped. */
    private static final long CLOSE_GRACE_MILLIS = 5_000;
    /** The link of a connection, from open to close. */
    public static final UserData.TypedKey<MeshLink> LINK = new UserData.TypedKey<>("fleetmesh.mesh.link");
    /** The authenticated peer of a connection, once MESH-OK has arrived. */
    public static final UserData.TypedKey<PeerIdentity> PEER = new UserData.TypedKey<>("fleetmesh.mesh.peer");
    static final UserData.TypedKey<HttpConnection> HTTP_CONNECTION = new UserData.TypedKey<>("fleetmesh.mesh.http");
    private static final UserData.TypedKey<String> ADMITTED = new UserData.TypedKey<>("fleetmesh.mesh.admitted");
    /** Set on a connection whose link holds one of the places strangers may hold. */
    private static final UserData.TypedKey<Boolean> STRANGER = new UserData.TypedKey<>("fleetmesh.mesh.stranger");
    private static final UserData.TypedKey<Transport> TRANSPORT = new UserData.TypedKey<>("fleetmesh.mesh.transport");

    @Inject
    NodeIdentity identity;

    @Inject
    RelayConfig relay;

    @Inject
    MeshConfig config;

    @Inject
    HandshakeWorkers workers;

    @Inject
    MeshPeers peers;

    @Inject
    Vertx vertx;

    @ConfigProperty(name = "quarkus.http.port", defaultValue = "7777")
    int httpPort;

    private volatile MeshSigner signer;
    private volatile SeenProofs seen;
    private volatile MeshAdmission admission;
    private volatile org.fleetmesh.peering.Newcomers newcomers;

    @Inject
    org.fleetmesh.relay.quarkus.RelayRuntime relays;

    @Inject
    org.fleetmesh.spi.peers.LinkLedger ledger;

    @Inject
    GrantedLinkSessions granted;

    @OnOpen
    @NonBlocking
    void open(WebSocketConnection connection) {
        HandshakeSettings settings = config.settings();
        Transport transport = new Transport(connection, vertx, connection.userData().get(HTTP_CONNECTION));
        BudgetedSocket socket = new BudgetedSocket(transport, new SendBudget(config.sendBudget()));
        MeshLink link = new MeshLink(MeshHandshake.responder(signer(), settings, seen()), socket,
                offload(Vertx.currentContext()), System::nanoTime,
                admitted(peers.accepted(), connection));
        connection.userData().put(TRANSPORT, transport);
        connection.userData().put(LINK, link);
        // keyed as client budgets are: IPv4 as it is, IPv6 by its /64 (one subscriber's block, not 2^64 addresses)
        String address = org.fleetmesh.relay.limits.ClientAddress.DIRECT.of(
                connection.handshakeRequest().remoteAddress(), java.util.List.of());
        Optional<Refusal> busy = admission().admit(address);
        if (busy.isPresent()) {
            LOG.debugf("mesh connection %s from %s refused: %s", connection.id(), address, busy.get());
            link.refuse(busy.get());
            return;
        }
        connection.userData().put(ADMITTED, address);
        long timer = vertx.setTimer(settings.timeout().toMillis(), id -> link.timedOut());
        link.authenticated().whenComplete((peer, failure) -> {
            vertx.cancelTimer(timer);
            if (peer != null) {
                connection.userData().put(PEER, peer);
                LOG.infof("mesh link %s authenticated %s", connection.id(), peer);
                watchIdle(connection, link, config.idleTimeout());
            } else {
                LOG.debugf("mesh link %s not authenticated: %s", connection.id(), failure.getMessage());
            }
        });
        link.open();
    }

    @OnTextMessage
    @NonBlocking
    void message(WebSocketConnection connection, String text) {
        try {
            MeshLink link = connection.userData().get(LINK);
            if (link != null) {
                link.receive(text);
            }
        } finally {
            org.fleetmesh.relay.quarkus.InboundUpgradeCheck.handled(connection);
        }
    }

    @OnPongMessage
    @NonBlocking
    void pong(WebSocketConnection connection, Buffer data) {
        MeshLink link = connection.userData().get(LINK);
        if (link != null) {
            link.heard();
        }
    }

    @OnClose
    @NonBlocking
    void close(WebSocketConnection connection) {
        String address = connection.userData().remove(ADMITTED);
        if (address != null) {
            admission().release(address);
        }
        if (connection.userData().remove(STRANGER) != null) {
            admission().strangerLeft();
        }
        Transport transport = connection.userData().get(TRANSPORT);
        if (transport != null) {
            transport.closed();
        }
        MeshLink link = connection.userData().get(LINK);
        if (link != null) {
            link.closed();
        }
    }

    @OnError
    void error(WebSocketConnection connection, Throwable t) {
        LOG.debugf("mesh connection %s failed: %s", connection.id(), t.toString());
    }

    /** Checks a quarter of the idle timeout at a time, so a silent link closes within 1.25 times the timeout. */
    private void watchIdle(WebSocketConnection connection, MeshLink link, Duration idle) {
        if (idle.isZero() || idle.isNegative()) {
            return; // the operator turned the idle timeout off
        }
        long period = Math.max(100, idle.toMillis() / 4);
        vertx.setPeriodic(period, id -> {
            if (connection.isClosed() || link.closeIfIdle(idle)) {
                vertx.cancelTimer(id);
            }
        });
    }

    private MeshLink.Offload offload(Context context) {
        if (context == null) {
            return MeshLink.Offload.INLINE; // not on an event loop: nothing to keep free
        }
        return new MeshLink.Offload() {
            @Override
            public void toWorker(Runnable task) {
                workers.execute(task);
            }

            @Override
            public void toConnection(Runnable task) {
                context.runOnContext(v -> task.run());
            }
        };
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

    /**
     * The sessions of a link on {@code connection}, once its handshake says who the peer is: a peer this node has not
     * declared and holds no record of is held to {@code fleetmesh.mesh.new-peers-per-hour} for its address (loopback and
     * trusted proxies are not), and a peer without standing here (neither declared nor above tier 0) takes one of the
     * places strangers may hold ({@code fleetmesh.mesh.reserved-connections} are kept for the others); past either, its
     * link is ended {@code busy}.
     */
    private org.fleetmesh.peering.LinkSessions admitted(org.fleetmesh.peering.LinkSessions sessions,
            WebSocketConnection connection) {
        String key = relays.clientAddress().connectionKey(connection.handshakeRequest().remoteAddress());
        return new org.fleetmesh.peering.LinkSessions() {
            @Override
            public org.fleetmesh.peering.LinkSession open(org.fleetmesh.peering.MeshLink link) {
                String peer = link.peer().map(PeerIdentity::shortDid).orElse(null);
                if (peer == null) {
                    return sessions.open(link);
                }
                if (key != null && !known(peer) && !newcomers().admit(key, System.currentTimeMillis())) {
                    LOG.debugf("mesh: a new identity %s from %s refused: %d new ones an hour", peer, key,
                            newcomers().perHour());
                    link.end(Refusal.of(Refusal.Kind.BUSY, "this address has linked " + newcomers().perHour()
                            + " new identities this hour, the most this node takes; try again later"));
                    return org.fleetmesh.peering.LinkSession.unsupported(link);
                }
                if (!trusted(peer)) {
                    Optional<Refusal> full = admission().stranger();
                    if (full.isPresent()) {
                        LOG.debugf("mesh: %s refused: %s", peer, full.get());
                        link.end(full.get());
                        return org.fleetmesh.peering.LinkSession.unsupported(link);
                    }
                    connection.userData().put(STRANGER, Boolean.TRUE);
                    if (connection.isClosed() && connection.userData().remove(STRANGER) != null) {
                        admission().strangerLeft(); // closed meanwhile: its close did not see the mark
                    }
                }
                return sessions.open(link);
            }

            @Override
            public void describe(String peerKey, java.util.Map<String, Object> into) {
                sessions.describe(peerKey, into);
            }

            @Override
            public Optional<java.time.Instant> quarantinedUntil(String peerKey) {
                return sessions.quarantinedUntil(peerKey);
            }
        };
    }

    /**
     * A peer with standing here: declared by the operator, or above tier 0 (in its account, or in its link record when
     * no account is in memory). A peer that cannot be looked up is taken as having it.
     */
    private boolean trusted(String peer) {
        try {
            if (peers.store().find(peer).isPresent()) {
                return true;
            }
            Optional<org.fleetmesh.peering.link.PeerAccount> account = granted.links().known(peer);
            if (account.isPresent()) {
                return account.get().tier().level() >= 1;
            }
            return ledger.load(peer).map(r -> r.tier() >= 1).orElse(false);
        } catch (RuntimeException e) {
            LOG.debugf("mesh: could not look %s up (%s); taking it as trusted", peer, e.getMessage());
            return true;
        }
    }

    /** A peer this node holds an account of, has declared, or holds a link record of. */
    private boolean known(String peer) {
        try {
            return granted.links().known(peer).isPresent() || peers.store().find(peer).isPresent()
                    || ledger.load(peer).isPresent();
        } catch (RuntimeException e) {
            LOG.debugf("mesh: could not look %s up (%s); taking it as known", peer, e.getMessage());
            return true;
        }
    }

    private org.fleetmesh.peering.Newcomers newcomers() {
        org.fleetmesh.peering.Newcomers n = newcomers;
        if (n == null) {
            synchronized (this) {
                n = newcomers;
                if (n == null) {
                    n = new org.fleetmesh.peering.Newcomers(config.newPeersPerHour(), 4096);
                    newcomers = n;
                }
            }
        }
        return n;
    }

    private MeshAdmission admission() {
        MeshAdmission a = admission;
        if (a == null) {
            synchronized (this) {
                a = admission;
                if (a == null) {
                    a = new MeshAdmission(config.maxConnections(), config.maxConnectionsPerAddress(),
                            Math.max(0, Math.min(config.reservedConnections(), config.maxConnections() - 1)));
                    admission = a;
                }
            }
        }
        return a;
    }

    /**
     * The {@link BudgetedSocket}'s transport through websockets-next, used on the connection's event loop, so sends
     * and the close leave in call order; a close the peer does not answer within the grace drops the TCP connection
     * (a peer that does not read never gets the close frame).
     */
    private static final class Transport implements BudgetedSocket.Transport {
        private final WebSocketConnection ws;
        private final Vertx vertx;
        private final HttpConnection http;
        private long dropTimer = -1;

        Transport(WebSocketConnection ws, Vertx vertx, HttpConnection http) {
            this.ws = ws;
            this.vertx = vertx;
            this.http = http;
        }

        @Override
        public void send(String text, Runnable done) {
            ws.sendText(text).subscribe().with(v -> done.run(), t -> {
                done.run();
                LOG.debugf("mesh connection %s: send failed: %s", ws.id(), t.toString());
            });
        }

        @Override
        public synchronized void close(int code, String reason) {
            if (ws.isClosed()) {
                return; // the peer closed first
            }
            if (reason.startsWith(Refusal.Kind.SLOW.word() + ":")) {
                LOG.infof("closing mesh link %s: %s", ws.id(), reason);
            }
            ws.close(new CloseReason(code, reason)).subscribe().with(v -> {
            }, t -> LOG.debugf("mesh connection %s: close failed: %s", ws.id(), t.toString()));
            dropTimer = vertx.setTimer(CLOSE_GRACE_MILLIS, id -> drop());
        }

        synchronized void closed() {
            if (dropTimer >= 0) {
                vertx.cancelTimer(dropTimer);
                dropTimer = -1;
            }
        }

        private synchronized void drop() {
            dropTimer = -1;
            // not ws.isClosed(): that is true from the moment this side starts closing, and the WebSocket's own
            // closing timeout only starts once the close frame is written, which a peer that does not read (the
            // "slow" close, behind megabytes queued) never lets happen: the TCP connection stayed until the peer left
            if (http instanceof ConnectionBase base && base.channel().isActive()) {
                LOG.debugf("mesh connection %s did not answer the close in time; dropping it", ws.id());
                // from the front of the pipeline: Vert.x's own handler would hold a channel close for its closing timeout
                // (10 s more) while the close frame waits behind what the peer does not read
                base.channel().pipeline().firstContext().close();
            }
        }
    }
}
