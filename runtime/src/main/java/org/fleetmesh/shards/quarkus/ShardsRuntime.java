package org.fleetmesh.shards.quarkus;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.shards.Claim;
import org.fleetmesh.shards.ClaimException;
import org.fleetmesh.shards.ClaimSchedule;
import org.fleetmesh.shards.DeclaredShards;
import org.fleetmesh.shards.LocalShards;
import org.fleetmesh.shards.Shard;
import org.fleetmesh.shards.ShardFigures;
import org.fleetmesh.shards.ShardFilter;
import org.fleetmesh.shards.ShardsSetting;
import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.shards.ShardBook;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * The node's shards (docs/spec/shards.md): the declared ones (configuration upserted into the {@link ShardBook} at
 * start, plus the admin API's), a live index of each in the relay, and their kind 30803 claims, signed with the node's
 * Nostr key and stored through the relay's ingest, republished when the figures change, at most once per
 * {@code fleetmesh.shards.claim-interval}. Replication and sampling read the shards through {@link LocalShards}.
 */
@ApplicationScoped
public class ShardsRuntime implements LocalShards {
    private static final Logger LOG = Logger.getLogger(ShardsRuntime.class);
    /** How often the figures are looked at; a claim still goes out at most once per claim-interval. */
    private static final long TICK_MILLIS = 1000;
    /** Status computes a root (a pass over the set) only up to this size; larger sets show the current claim's. */
    static final int STATUS_ROOT_MAX = 100_000;

    @Inject
    RelayRuntime relays;

    @Inject
    NodeIdentity identity;

    @Inject
    ShardBook book;

    @Inject
    EventStore store;

    @Inject
    ShardsConfig config;

    /** {@code FLEETMESH_SHARDS}: the name operators use for {@code fleetmesh.shards.declared}. */
    @ConfigProperty(name = "fleetmesh.shards")
    Optional<String> shardsSetting;

    private volatile DeclaredShards declared;
    private volatile ClaimSchedule schedule;
    private ScheduledExecutorService claimer; // guarded by this

    /** Refuses to start on a malformed shards setting, naming the problem; then claims on a clock. */
    void onStart(@Observes StartupEvent e) {
        declared();
        synchronized (this) {
            claimer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fleetmesh-shard-claims");
                t.setDaemon(true);
                return t;
            });
            claimer.scheduleWithFixedDelay(Repeating.surviving("the shard claims", this::claimDue), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** This bean as the replication and sampling seam. */
    public LocalShards localShards() {
        return this;
    }

    private DeclaredShards declared() {
        DeclaredShards d = declared;
        if (d == null) {
            synchronized (this) {
                d = declared;
                if (d == null) {
                    d = load();
                    declared = d;
                }
            }
        }
        return d;
    }

    private DeclaredShards load() {
        List<Shard> configured = configured();
        Set<String> ids = new HashSet<>();
        for (Shard s : configured) {
            book.put(s.id(), ShardFilter.canonicalJson(s.filter()), s.mode().word(), ShardBook.Source.CONFIG);
            ids.add(s.id());
        }
        schedule = new ClaimSchedule(config.claimInterval());
        DeclaredShards d = new DeclaredShards(relays.relay()::index);
        for (ShardBook.StoredShard stored : book.all()) {
            if (stored.source() == ShardBook.Source.CONFIG && !ids.contains(stored.id())) {
                LOG.infof("shard %s is no longer configured; forgetting it", stored.id());
                book.remove(stored.id());
                withdraw(stored.id());
                continue;
            }
            Shard s;
            try {
                s = stored(stored);
            } catch (IllegalArgumentException ex) {
                LOG.errorf("the stored shard %s does not parse (%s); it is not served", stored.id(), ex.getMessage());
                continue;
            }
            try {
                d.put(s);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("shard " + s.id() + ": " + ex.getMessage()
                        + " (configured and admin-declared shards together)", ex);
            }
            storedClaim(s).ifPresent(schedule::published);
        }
        LOG.infof("shards: %d declared (%s), claims at most every %ds", d.shards().size(),
                String.join(", ", d.shards().stream().map(s -> s.id() + " " + s.mode().word()).toList()),
                config.claimInterval().toSeconds());
        return d;
    }

    /** {@code fleetmesh.shards}, else {@code fleetmesh.shards.declared}, else none. */
    private List<Shard> configured() {
        Optional<String> setting = shardsSetting.or(config::declared).filter(s -> !s.isBlank());
        if (setting.isEmpty()) {
            return List.of();
        }
        try {
            return ShardsSetting.parse(setting.get());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fleetmesh.shards (FLEETMESH_SHARDS) " + e.getMessage(), e);
        }
    }

    private static Shard stored(ShardBook.StoredShard s) {
        ShardsSetting.checkId(s.id());
        Shard.Mode mode = Shard.Mode.of(s.mode());
        if (mode == null) {
            throw new IllegalArgumentException("mode " + s.mode());
        }
        try {
            return new Shard(s.id(), ShardFilter.parse(s.filter()), mode);
        } catch (FilterSyntaxException e) {
            throw new IllegalArgumentException("filter: " + e.reason());
        }
    }

    /** This node's stored claim of {@code s}, if it verifies (so a restart does not republish unchanged figures). */
    private Optional<Claim> storedClaim(Shard s) {
        PubKey self = identity.secrets().publicKeys().nostr();
        Filter f = new Filter(null, Set.of(self), Set.of(Claim.KIND), Map.of("d", Set.of(s.id())), null, null, 1);
        List<String> found = new ArrayList<>(1);
        store.query(f, now(), (id, json) -> {
            found.add(json);
            return false;
        });
        if (found.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Claim.read(new MessageParser(MessageParser.Limits.DEFAULT).parseEvent(found.get(0))));
        } catch (ProtocolException | ClaimException e) {
            LOG.warnf("this node's stored claim of shard %s does not read (%s); publishing a new one", s.id(),
                    e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Declares a shard (the admin API): stored, indexed, claimed once its index is built. True when the id is new.
     *
     * @throws IllegalArgumentException when the node declares as many shards as it may
     */
    public boolean declare(Shard shard) {
        DeclaredShards d = declared();
        boolean fresh = d.shard(shard.id()).isEmpty();
        d.put(shard);
        book.put(shard.id(), ShardFilter.canonicalJson(shard.filter()), shard.mode().word(), ShardBook.Source.ADMIN);
        return fresh;
    }

    /**
     * Forgets a shard (the admin API); false when it was not declared. Its claims are withdrawn with a NIP-09 deletion
     * of their address ({@code 30803:<pubkey>:<id>}): the node no longer promises anything about the set.
     */
    public boolean remove(String id) {
        boolean had = declared().remove(id);
        boolean stored = book.remove(id);
        if (had) {
            withdraw(id);
        }
        return had || stored;
    }

    private void withdraw(String id) {
        long at = now();
        schedule.withdrawn(id, at);
        byte[] key = identity.secrets().nostr().bytes();
        Event deletion;
        try {
            deletion = Claim.withdrawal(id, at, key);
        } finally {
            java.util.Arrays.fill(key, (byte) 0);
        }
        relays.relay().ingest().submit(List.of(deletion), new Origin.Import()).thenAccept(outcomes -> {
            var o = outcomes.get(0);
            if (o.accepted()) {
                LOG.infof("claims of shard %s withdrawn (deletion %s)", id, o.id().hex());
            } else {
                LOG.errorf("the withdrawal of this node's claims of shard %s was refused: %s", id, o.reason());
            }
        });
    }

    /** {@code r} runs after every change to the declared shards (replication re-plans on it). */
    public void onChange(Runnable r) {
        declared().onChange(r);
    }

    /**
     * Claims of a shard are published only while {@code ready} says so, e.g. replication holding a restored node's
     * asserted claims until it has rebuilt the shard from its peers. By default every shard is ready.
     */
    public void claimWhen(java.util.function.Predicate<Shard> ready) {
        declared();
        schedule.claimWhen(ready);
    }

    @Override
    public List<Shard> shards() {
        return declared().shards();
    }

    @Override
    public Optional<Storage> snapshot(String id) {
        return declared().snapshot(id);
    }

    /** The last claim this node published (or found stored at start) for the shard with this id. */
    public Optional<Claim> claim(String id) {
        declared();
        return schedule.last(id);
    }

    /**
     * The top-level {@code "shards"} of {@code /mesh/status}: per shard id, mode, filter, count, fingerprint and root
     * now (null while its index is built), and the last claim's id and {@code created_at} (null before the first).
     */
    public void describe(Map<String, Object> into) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Shard s : declared().shards()) {
            list.add(describe(s));
        }
        into.put("shards", list);
    }

    /** One shard as {@link #describe(Map)} shows it; empty when not declared. */
    public Optional<Map<String, Object>> describe(String id) {
        return declared().shard(id).map(this::describe);
    }

    private Map<String, Object> describe(Shard s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.id());
        m.put("mode", s.mode().word());
        m.put("filter", ShardFilter.canonicalJson(s.filter()));
        Optional<Storage> snap = declared().snapshot(s.id());
        String fingerprint = snap.map(x -> x.fingerprint(0, x.size()).toHex()).orElse(null);
        m.put("count", snap.map(Storage::size).orElse(null));
        m.put("fingerprint", fingerprint);
        Optional<Claim> c = schedule.last(s.id());
        boolean current = c.isPresent() && snap.isPresent() && c.get().figures().count() == snap.get().size()
                && c.get().figures().fingerprintHex().equals(fingerprint);
        String root = null;
        if (current) {
            root = c.get().figures().rootHex();
        } else if (snap.isPresent() && snap.get().size() <= STATUS_ROOT_MAX) {
            root = ShardFigures.of(snap.get()).rootHex();
        }
        m.put("root", root);
        m.put("claim", c.map(x -> x.event().id().hex()).orElse(null));
        m.put("claimed_at", c.map(Claim::createdAt).orElse(null));
        return m;
    }

    /** Publishes the claims that are due; runs on the claimer thread. */
    void claimDue() {
        try {
            DeclaredShards d = declared();
            for (Shard s : d.shards()) {
                Optional<Storage> snap = d.snapshot(s.id());
                if (snap.isEmpty()) {
                    continue; // index still building
                }
                long at = now();
                Storage items = snap.get();
                byte[] fp = items.fingerprint(0, items.size()).toBytes();
                if (!schedule.due(s, items.size(), fp, at)) {
                    continue;
                }
                publish(s, ShardFigures.of(items), at);
            }
        } catch (RuntimeException e) {
            LOG.error("publishing shard claims failed", e);
        }
    }

    private void publish(Shard s, ShardFigures figures, long at) {
        byte[] key = identity.secrets().nostr().bytes();
        Event e;
        try {
            e = Claim.sign(s, figures, at, key);
        } finally {
            java.util.Arrays.fill(key, (byte) 0);
        }
        Claim claim;
        try {
            claim = Claim.read(e);
        } catch (ClaimException ex) {
            throw new IllegalStateException("a claim this node signed does not read: " + ex.getMessage(), ex);
        }
        schedule.published(claim); // before the ingest: a slow commit must not let the next tick sign again
        relays.relay().ingest().submit(List.of(e), new Origin.Import()).thenAccept(outcomes -> {
            var o = outcomes.get(0);
            if (o.accepted()) {
                LOG.infof("claim %s of shard %s: %s", o.id().hex(), s.id(), figures);
            } else {
                LOG.errorf("this node's claim of shard %s was refused: %s", s.id(), o.reason());
            }
        });
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    @PreDestroy
    void stop() {
        synchronized (this) {
            if (claimer != null) {
                claimer.shutdownNow();
            }
        }
        DeclaredShards d = declared;
        if (d != null) {
            d.close();
        }
    }
}
