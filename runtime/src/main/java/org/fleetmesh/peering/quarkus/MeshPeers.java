package org.fleetmesh.peering.quarkus;

import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.EndpointAnnouncement;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.quarkus.NodeAddress;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.peering.Backoff;
import org.fleetmesh.peering.EndpointExchange;
import org.fleetmesh.peering.LinkSessions;
import org.fleetmesh.peering.MeshClient;
import org.fleetmesh.peering.MeshSigner;
import org.fleetmesh.peering.PeerAddress;
import org.fleetmesh.peering.PeerLinks;
import org.fleetmesh.peering.SeenProofs;
import org.fleetmesh.spi.peers.PeerStore;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServerStart;
import io.vertx.core.Vertx;

/**
 * The node's peers: reads the declared ones (configuration, upserted into the {@link PeerStore} at start, and the
 * ones an operator added), runs the {@link PeerLinks} that dials them once the HTTP port is bound, gives the
 * {@code /mesh} endpoint the sessions of accepted links, and persists where a peer says it moved (MESH-ENDPOINT).
 */
@ApplicationScoped
public class MeshPeers {
    private static final Logger LOG = Logger.getLogger(MeshPeers.class);

    @Inject
    NodeIdentity identity;

    @Inject
    NodeAddress address;

    @Inject
    MeshConfig config;

    @Inject
    LinkSessions sessions;

    @Inject
    PeerStore store;

    @Inject
    EventStore events;

    @Inject
    PeerMeters meters;

    @Inject
    Vertx vertx;

    @ConfigProperty(name = "fleetmesh.peers")
    Optional<String> peersSetting;

    private volatile PeerLinks links;
    private volatile MeshClient client;
    private volatile Optional<Event> own = Optional.empty();
    private volatile List<PeerAddress> configured = List.of();
    /** The peer store is JDBC: its calls leave the event loops. */
    private final ExecutorService io = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new java.util.concurrent.ArrayBlockingQueue<>(IO_QUEUE), r -> {
                Thread t = new Thread(r, "fleetmesh-peers");
                t.setDaemon(true);
                return t;
            }, (task, pool) -> LOG.warn("the peer store is behind; an endpoint update was dropped"));
    /** Peer store writes waiting (endpoint updates: at most one per link, so one per open link is plenty). */
    private static final int IO_QUEUE = 1024;
    private long ticker = -1;
    private volatile Optional<org.fleetmesh.identity.KeyHandover> handover = Optional.empty();

    /** Refuses to start on a malformed peer list, naming the bad entry. */
    void validate(@Observes StartupEvent started) {
        try {
            new org.fleetmesh.peering.SendBudget(config.sendBudget());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fleetmesh.mesh.send-budget (FLEETMESH_MESH_SEND_BUDGET) is "
                    + config.sendBudget() + ": at least 16384 (" + e.getMessage() + ")", e);
        }
        List<PeerAddress> all = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        List<String> names = List.of("fleetmesh.peers (FLEETMESH_PEERS)", "fleetmesh.mesh.peers (FLEETMESH_MESH_PEERS)");
        List<Optional<String>> settings = List.of(peersSetting, config.peers());
        for (int i = 0; i < settings.size(); i++) {
            Optional<String> setting = settings.get(i);
            if (setting.isPresent()) {
                List<PeerAddress> parsed;
                try {
                    parsed = PeerAddress.parseList(setting.get());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(names.get(i) + ": " + e.getMessage(), e);
                }
                for (PeerAddress p : parsed) {
                    if (keys.add(p.key())) {
                        all.add(p);
                    }
                }
            }
        }
        configured = List.copyOf(all);
        links();
    }

    /** Dials once the port is bound: the endpoint announcement sent on each link names where this node is now. */
    void onHttpStart(@ObservesAsync HttpServerStart started) {
        try {
            own = Optional.of(announcement());
        } catch (RuntimeException e) {
            LOG.error("could not sign this node's endpoint announcement for its links", e);
        }
        io.execute(this::declareStored);
        long period = Math.max(100, Math.min(1000, config.heartbeatInterval().toMillis() / 5));
        ticker = vertx.setPeriodic(period, id -> links().tick());
    }

    void stop(@Observes ShutdownEvent stopping) {
        if (ticker >= 0) {
            vertx.cancelTimer(ticker);
        }
        PeerLinks l = links;
        if (l != null) {
            l.stop();
        }
        MeshClient c = client;
        if (c != null) {
            c.close();
        }
        io.shutdownNow();
    }

    /** The link manager. */
    public PeerLinks links() {
        PeerLinks l = links;
        if (l == null) {
            synchronized (this) {
                l = links;
                if (l == null) {
                    NodeSecrets secrets = identity.secrets();
                    MeshSigner signer = MeshSigner.forNode(secrets, address.endpoints());
                    handover = identity.handover(signer.did());
                    MeshSigner self = handover.map(signer::withHandover).orElse(signer);
                    MeshClient c = new MeshClient(vertx, self, config.settings(), new SeenProofs(config.replayCacheSize()));
                    client = c;
                    PeerLinks.Settings settings = new PeerLinks.Settings(config.heartbeatInterval(),
                            config.heartbeatTimeout(), new Backoff(config.redialBase(), config.redialCap()),
                            config.heartbeatTimeout().multipliedBy(2));
                    PeerLinks[] holder = new PeerLinks[1];
                    l = new PeerLinks(self.transportKey(), settings,
                            (peer, linkSessions) -> c.connect(peer.url(), peer.handshakeExpectation(), linkSessions),
                            (delay, task) -> vertx.setTimer(Math.max(1, delay), id -> task.run()),
                            link -> EndpointExchange.open(link, own, sessions.open(link), this::learnt),
                            sessions::quarantinedUntil,
                            key -> meters.traffic(key, k -> holder[0].find(k)),
                            Clock.systemUTC(), System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
                    holder[0] = l;
                    l.onRotation(this::rotated);
                    links = l;
                }
            }
        }
        return l;
    }

    /** This node's hand-over from its previous DID, presented on every link, if it rotated its keys. */
    public Optional<org.fleetmesh.identity.KeyHandover> handover() {
        links();
        return handover;
    }

    /** The sessions of links accepted at {@code /mesh}. */
    public LinkSessions accepted() {
        return links().accepted();
    }

    /** The link sessions of the node (H2's grants and events, by default {@code unsupported}). */
    public LinkSessions sessions() {
        return sessions;
    }

    public PeerStore store() {
        return store;
    }

    /** Declares a peer an operator added: stored, then dialled. Blocking (JDBC). */
    public PeerStore.StoredPeer add(PeerAddress peer) {
        PeerStore.StoredPeer stored = store.declare(peer.key(), peer.did(), peer.url().toString(),
                PeerStore.Source.ADMIN, Instant.now());
        links().declare(new PeerAddress(stored.did(), URI.create(stored.url())));
        return stored;
    }

    /** Removes a declared peer and closes its links. Blocking (JDBC). */
    public boolean remove(String key) {
        boolean stored = store.remove(key);
        boolean linked = links().forget(key);
        return stored || linked;
    }

    private volatile boolean declaredLoaded;

    private void declareStored() {
        try {
            Instant now = Instant.now();
            Map<String, PeerStore.Rotation> rotations = new java.util.HashMap<>();
            for (PeerStore.Rotation r : store.rotations()) {
                rotations.put(r.oldKey(), r);
                links().retire(r.oldKey(), r.newKey());
            }
            Set<String> keys = new HashSet<>();
            for (PeerAddress p : configured) {
                PeerStore.Rotation r = rotations.get(p.key());
                Set<String> seen = new HashSet<>();
                while (r != null && seen.add(r.oldKey())) { // a chain of hand-overs, followed to its end
                    PeerStore.Rotation next = rotations.get(r.newKey());
                    if (next == null) {
                        LOG.warnf("peer %s is configured, but handed its keys over to %s (hand-over dated %d): declaring "
                                + "%s at %s; put the new DID in the configuration", p.key(), r.newKey(), r.issuedAt(),
                                r.newKey(), p.url());
                        p = new PeerAddress(r.newDid(), p.url());
                    }
                    r = next;
                }
                store.declare(p.key(), p.did(), p.url().toString(), PeerStore.Source.CONFIG, now);
                keys.add(p.key());
            }
            for (PeerStore.StoredPeer p : store.all()) {
                if (p.source() == PeerStore.Source.CONFIG && !keys.contains(p.key())) {
                    LOG.infof("peer %s is no longer configured; forgetting it", p.key());
                    store.remove(p.key());
                    continue;
                }
                links().declare(new PeerAddress(p.did(), URI.create(p.url())));
            }
            LOG.infof("mesh: %d declared peer(s)", links().declared().size());
            declaredLoaded = true;
        } catch (RuntimeException e) {
            LOG.error("could not load the declared peers", e);
        }
    }

    /**
     * Whether the declared peers were loaded from the store since the start (until then {@link #links()} may miss some):
     * the NIP-66 monitor withdraws what it said about relays no longer watched only then.
     */
    public boolean declaredLoaded() {
        return declaredLoaded;
    }

    /** A declared peer handed its keys over (verified by the handshake): the store moves its declaration. */
    private void rotated(PeerLinks.Rotation r) {
        io.execute(() -> {
            try {
                PeerStore.Rotation stored = new PeerStore.Rotation(r.oldKey(), r.address().key(), r.address().did(),
                        r.handover().jwt(), r.handover().issuedAt(), Instant.now());
                if (!store.rotate(stored)) {
                    LOG.infof("the rotation of %s was recorded before", r.oldKey());
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "could not record that %s handed its keys over to %s", r.oldKey(), r.address().key());
            }
        });
    }

    /** A peer told us, signed, where it is now: later dials go there, and the store remembers it across restarts. */
    private void learnt(EndpointAnnouncement a) {
        io.execute(() -> {
            try {
                URI mesh = a.endpoints().mesh();
                Optional<PeerLinks.View> peer = links().find(a.shortForm()).filter(PeerLinks.View::declared);
                if (peer.isEmpty() || !PeerAddress.worthLearning(peer.get().url().orElseThrow(), mesh)) {
                    return; // not declared here, or nothing better than what this node dials
                }
                String key = peer.get().key(); // a did:key declaration keeps its key
                if (store.moved(key, mesh.toString(), a.createdAt())) {
                    links().moved(key, mesh);
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "could not record the endpoint announcement of %s", a.shortForm());
            }
        });
    }

    /** The stored announcement when it names where this node is now, else a fresh one dated after it. */
    private Event announcement() {
        NodeSecrets secrets = identity.secrets();
        NodeDidDocument node = NodeDidDocument.of(secrets.publicKeys(), address.endpoints());
        long now = System.currentTimeMillis() / 1000;
        Filter filter = new Filter(null, Set.of(node.keys().nostr()), Set.of(EndpointAnnouncement.KIND),
                Map.of("d", Set.of(node.shortForm())), null, null, 1);
        List<String> found = new ArrayList<>();
        events.query(filter, now, (id, json) -> {
            found.add(json);
            return false;
        });
        Optional<EndpointAnnouncement> stored = Optional.empty();
        if (!found.isEmpty()) {
            try {
                stored = Optional.of(EndpointAnnouncement.verify(
                        new MessageParser(MessageParser.Limits.DEFAULT).parseEvent(found.get(0))));
            } catch (ProtocolException | IllegalArgumentException e) {
                LOG.debugf("the stored endpoint announcement does not verify: %s", e.getMessage());
            }
        }
        java.util.OptionalLong due = EndpointAnnouncement.due(stored, node.endpoints(), now);
        if (due.isEmpty()) {
            return stored.orElseThrow().event();
        }
        return EndpointAnnouncement.sign(secrets, node, due.getAsLong()).event();
    }
}
