package org.fleetmesh.shards.quarkus;

import java.util.ArrayList;
import java.util.List;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.delivery.Delivery;
import org.fleetmesh.delivery.quarkus.DeliveryRuntime;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.shards.Replication;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;

/**
 * Holds the node's one {@link Replication} (docs/spec/replication.md) over its declared shards ({@link ShardsRuntime}),
 * pushing through its delivery ({@link Delivery#push}): the link sessions install it as the second carrier of every
 * link; every event a peer's frame brought in is reported to it as arrived; a clock ticks it every second; a change of
 * the declared shards replans every link.
 */
@ApplicationScoped
public class ReplicationRuntime {
    private static final Logger LOG = Logger.getLogger(ReplicationRuntime.class);

    @Inject
    ShardsRuntime shards;

    @Inject
    DeliveryRuntime delivery;

    @Inject
    RelayRuntime relays;

    @Inject
    ReplicationConfig config;

    @Inject
    org.fleetmesh.peering.quarkus.MeshPeers peers;

    @Inject
    Vertx vertx;

    private volatile Replication replication;
    private long timer = -1;

    /** Refuses to start on settings out of range, naming the problem. */
    void onStart(@Observes StartupEvent e) {
        Replication r = replication();
        timer = vertx.setPeriodic(1000, id -> {
            try {
                r.tick();
            } catch (RuntimeException ex) {
                LOG.error("a replication tick failed", ex);
            }
        });
    }

    /** The node's replication. */
    public Replication replication() {
        Replication r = replication;
        if (r == null) {
            synchronized (this) {
                r = replication;
                if (r == null) {
                    r = build();
                    replication = r;
                }
            }
        }
        return r;
    }

    private Replication build() {
        Replication.Settings settings;
        try {
            settings = new Replication.Settings(config.interval(), config.wantBatch(), config.maxPending(),
                    config.frameBytes(), config.wantTimeout(), config.grace(), config.replyBytesPerMinute());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fleetmesh.replication: " + e.getMessage(), e);
        }
        Delivery d = delivery.delivery();
        Replication r = new Replication(settings, shards.localShards(), d::push, System::currentTimeMillis);
        shards.onChange(r::shardsChanged);
        // a restored node rebuilding an asserted shard claims it once a pass with a peer has ended synced: before,
        // its claim would assert a half-empty set and earn it withholding evidence (replication.md)
        long startedAt = System.currentTimeMillis();
        long holdMillis = config.claimHold().toMillis();
        shards.claimWhen(s -> s.mode() != org.fleetmesh.shards.Shard.Mode.ASSERTED || r.syncedOnce(s.id())
                || !r.rebuilding(s.id()) && (System.currentTimeMillis() - startedAt >= holdMillis
                        || peers.store().all().isEmpty()));
        // what a peer's frames brought in: stored now, or held already (a duplicate)
        relays.relay().ingest().addListener((origin, batch, outcomes) -> {
            if (!(origin instanceof Origin.Peer)) {
                return;
            }
            List<EventId> ids = new ArrayList<>(outcomes.size());
            List<EventId> refused = new ArrayList<>();
            for (Ingest.Outcome o : outcomes) {
                (o.status() == Ingest.Status.REFUSED ? refused : ids).add(o.id());
            }
            r.arrived(ids);
            r.refused(refused);
        });
        LOG.infof("replication: every %ds per shard and peer, asks of %d ids, %d pending at most, messages of %d bytes",
                settings.interval().toSeconds(), settings.wantBatch(), settings.maxPending(), settings.frameBytes());
        return r;
    }

    @PreDestroy
    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        Replication r = replication;
        if (r != null) {
            r.close();
        }
    }
}
