package org.fleetmesh.delivery.quarkus;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.delivery.Delivery;
import org.fleetmesh.delivery.FederateMessage;
import org.fleetmesh.delivery.FrameException;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.peering.link.Intake;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.IngestListener;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayConfig;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.peers.PeerStore;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;

/**
 * Holds the node's one {@link Delivery} (docs/spec/delivery.md), built from configuration over the node's store,
 * ingest and ledgers: the link sessions install it as the carrier of every link; each commit that stored something
 * wakes its forwarders (and a timer does every second, for events another writer stored); its storage work runs on
 * one bounded pool. Stopped before the relay and the store are.
 */
@ApplicationScoped
public class DeliveryRuntime {
    private static final Logger LOG = Logger.getLogger(DeliveryRuntime.class);
    /** The forwarders look for events no commit of this process announced (another writer's) this often. */
    private static final long RESCAN_MILLIS = 1000;

    @Inject
    NodeIdentity identity;

    @Inject
    RelayRuntime relays;

    @Inject
    RelayConfig relayConfig;

    @Inject
    EventStore store;

    @Inject
    CustodyLedger custody;

    @Inject
    org.fleetmesh.peering.quarkus.EvidenceLedger links; // its evidence records become findings

    @Inject
    PeerStore peers;

    @Inject
    DeliveryConfig config;

    @Inject
    Vertx vertx;

    /** {@code FLEETMESH_FEDERATE}: the name operators use for {@code fleetmesh.delivery.federate}. */
    @ConfigProperty(name = "fleetmesh.federate")
    Optional<String> federateSetting;

    private volatile Delivery delivery;
    private ThreadPoolExecutor io;
    private IngestListener commits;
    private long timer = -1;

    /** Refuses to start on malformed federate filters, naming the problem. */
    void onStart(@Observes StartupEvent e) {
        Delivery d = delivery();
        timer = vertx.setPeriodic(RESCAN_MILLIS, id -> d.committed());
    }

    /** The node's delivery. */
    public Delivery delivery() {
        Delivery d = delivery;
        if (d == null) {
            synchronized (this) {
                d = delivery;
                if (d == null) {
                    d = build();
                    delivery = d;
                }
            }
        }
        return d;
    }

    private Delivery build() {
        List<Filter> federate = defaultFilters();
        Map<String, List<Filter>> perPeer = new HashMap<>();
        for (PeerStore.StoredPeer p : peers.all()) {
            if (p.federate().isPresent()) {
                try {
                    perPeer.put(p.key(), filters(p.federate().get()));
                } catch (IllegalArgumentException ex) {
                    LOG.warnf("the stored federate filters of %s do not parse (%s); it gets the default",
                            p.key(), ex.getMessage());
                }
            }
        }
        Delivery.Settings settings = new Delivery.Settings(config.receipts(), config.frameEvents(),
                config.frameBytes(), config.inFlight(), config.maxHops(), config.maxSkew(), config.maxFilters(),
                federate, perPeer);
        AtomicInteger n = new AtomicInteger();
        io = new ThreadPoolExecutor(config.ioThreads(), config.ioThreads(), 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.ioQueue()), r -> {
                    Thread t = new Thread(r, "fleetmesh-delivery-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        io.allowCoreThreadTimeOut(true);
        if (!store.sequenced()) {
            LOG.warn("the event store does not number its events: nothing is forwarded to peers");
        }
        // the DID depends on the keys only: any endpoints give the same one
        String did = NodeDidDocument.of(identity.secrets().publicKeys(),
                NodeEndpoints.of("ws://localhost/", "ws://localhost/mesh", "http://localhost/didcomm")).did();
        Ingest ingest = relays.relay().ingest();
        Delivery d = new Delivery(settings, identity.secrets(), did, store, intake(ingest), custody, links, io,
                System::currentTimeMillis);
        // only a commit that stored something can give a forwarder work
        commits = (origin, batch, outcomes) -> {
            for (Ingest.Outcome o : outcomes) {
                if (o.status() == Ingest.Status.ACCEPTED) {
                    d.committed();
                    return;
                }
            }
        };
        ingest.addListener(commits);
        LOG.infof("delivery: receipts %s, frames of %d events / %d bytes, %d in flight, hop limit %d; asking peers for %s",
                config.receipts() ? "on" : "off", config.frameEvents(), config.frameBytes(), config.inFlight(),
                config.maxHops(), FederateMessage.json(federate));
        return d;
    }

    private static Intake intake(Ingest ingest) {
        return new Intake() {
            @Override
            public CompletionStage<List<Ingest.Outcome>> fromPeer(List<Event> events, String peerDid) {
                return ingest.submit(events, new Origin.Peer(peerDid));
            }

            @Override
            public CompletionStage<List<Ingest.Outcome>> own(Event event) {
                return ingest.submit(List.of(event), new Origin.Import());
            }
        };
    }

    /** {@code fleetmesh.federate}, else {@code fleetmesh.delivery.federate}, else nothing. */
    private List<Filter> defaultFilters() {
        Optional<String> setting = federateSetting.or(config::federate).filter(s -> !s.isBlank());
        if (setting.isEmpty()) {
            return List.of();
        }
        try {
            return filters(setting.get());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fleetmesh.federate (FLEETMESH_FEDERATE) " + e.getMessage(), e);
        }
    }

    /**
     * Reads a JSON array of NIP-01 filters with the limits of {@code MESH-FEDERATE} (at most
     * {@code fleetmesh.delivery.max-filters}, each with the relay's filter limits); IllegalArgumentException saying
     * what is wrong.
     */
    public List<Filter> filters(String json) {
        MessageParser.Limits p = relayConfig.limits().parserLimits();
        try {
            return FederateMessage.parseFilters(json, config.maxFilters(),
                    new FilterJson.Limits(p.maxFilterValues(), p.maxLimit()));
        } catch (FrameException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The filters this node asks of {@code peer} by default (when the operator gave it none of its own). */
    public List<Filter> defaults() {
        return defaultFilters();
    }

    void stop(@Observes ShutdownEvent stopping) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        Delivery d = delivery;
        if (d == null) {
            return;
        }
        if (commits != null) {
            relays.relay().ingest().removeListener(commits);
        }
        try {
            d.close();
        } catch (RuntimeException e) {
            LOG.warn("closing delivery failed", e);
        }
        io.shutdown();
        try {
            if (!io.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warnf("delivery's storage work did not finish within 5 s; %d tasks dropped", io.shutdownNow().size());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
