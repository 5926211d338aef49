package org.fleetmesh.peering.quarkus;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.delivery.quarkus.DeliveryRuntime;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.peering.LinkSession;
import org.fleetmesh.peering.LinkSessions;
import org.fleetmesh.peering.MeshLink;
import org.fleetmesh.peering.link.Carrier;
import org.fleetmesh.peering.link.EventLinks;
import org.fleetmesh.peering.link.Intake;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.shards.quarkus.ReplicationRuntime;
import org.fleetmesh.shards.quarkus.SamplingRuntime;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;

/**
 * The node's {@link LinkSessions}: every authenticated link runs an event session held to the grant this node gives
 * the peer ({@link EventLinks}), whose ledger lives in the node's database. Ends each tier window on a timer, and
 * writes the ledger on one thread of its own. What the links carry past the budget is the node's delivery
 * ({@link DeliveryRuntime}).
 */
@ApplicationScoped
public class GrantedLinkSessions implements LinkSessions {
    private static final Logger LOG = Logger.getLogger(GrantedLinkSessions.class);

    @Inject
    NodeIdentity identity;

    @Inject
    RelayRuntime relays;

    /** The link ledger; its evidence records become findings. */
    @Inject
    EvidenceLedger ledger;

    @Inject
    GrantsConfig config;

    @Inject
    MeterRegistry meters;

    @Inject
    DeliveryRuntime delivery;

    @Inject
    ReplicationRuntime replication;

    @Inject
    SamplingRuntime sampling;

    @Inject
    MonitorRuntime monitor;

    @Inject
    org.fleetmesh.standing.quarkus.StandingRuntime standing;

    @Inject
    Vertx vertx;

    private volatile EventLinks links;
    private ThreadPoolExecutor writer;
    private long timer = -1;
    private long meterTimer = -1;
    private volatile LinkMeters linkMeters;

    void onStart(@Observes StartupEvent e) {
        EventLinks l = links();
        long window = Math.max(1000, config.window().toMillis());
        timer = vertx.setPeriodic(window, id -> {
            try {
                l.windowEnded();
            } catch (RuntimeException ex) {
                LOG.error("ending a tier window failed", ex);
            }
        });
        meterTimer = vertx.setPeriodic(5_000, id -> linkMeters.refresh());
    }

    /** The node's event links (standing acts on them). */
    public EventLinks links() {
        EventLinks l = links;
        if (l == null) {
            synchronized (this) {
                l = links;
                if (l == null) {
                    writer = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(10_000), r -> {
                        Thread t = new Thread(r, "fleetmesh-link-ledger");
                        t.setDaemon(true);
                        return t;
                    });
                    writer.allowCoreThreadTimeOut(true);
                    // the DID depends on the keys only: any endpoints give the same one
                    String did = NodeDidDocument.of(identity.secrets().publicKeys(),
                            NodeEndpoints.of("ws://localhost/", "ws://localhost/mesh", "http://localhost/didcomm")).did();
                    Ingest ingest = relays.relay().ingest();
                    Intake intake = new Intake() {
                        @Override
                        public java.util.concurrent.CompletionStage<List<Ingest.Outcome>> fromPeer(List<Event> events,
                                String peerDid) {
                            return ingest.submit(events, new Origin.Peer(peerDid));
                        }

                        @Override
                        public java.util.concurrent.CompletionStage<List<Ingest.Outcome>> own(Event event) {
                            return ingest.submit(List.of(event), new Origin.Import());
                        }
                    };
                    l = new EventLinks(did, identity.secrets(), config.policy(), intake, ledger, writer,
                            System::nanoTime, System::currentTimeMillis, config.maxPeers());
                    l.carriers(Carrier.Carriers.all(List.of(delivery.delivery(), replication.replication())));
                    linkMeters = new LinkMeters(l, meters);
                    links = l;
                    LOG.infof("mesh links held to grants: tier 0 grants %d bytes and %d events per %d s",
                            l.policy().tiers().tier(0).bytesPerWindow(), l.policy().tiers().tier(0).eventsPerWindow(),
                            l.policy().tiers().windowSeconds());
                }
            }
        }
        return l;
    }

    @Override
    public LinkSession open(MeshLink link) {
        return links().open(link);
    }

    @Override
    public void describe(String peerKey, Map<String, Object> into) {
        links().describe(peerKey, into);
        delivery.delivery().describe(peerKey, into);
        replication.replication().describe(peerKey, into);
        sampling.describe(peerKey, into);
        monitor.describe(peerKey, into);
        standing.describe(peerKey, into);
    }

    @Override
    public Optional<Instant> quarantinedUntil(String peerKey) {
        return links().quarantinedUntil(peerKey);
    }

    @PreDestroy
    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            vertx.cancelTimer(meterTimer);
        }
        EventLinks l = links;
        if (l != null) {
            l.flush();
        }
        if (writer != null) {
            writer.shutdown();
            try {
                writer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
