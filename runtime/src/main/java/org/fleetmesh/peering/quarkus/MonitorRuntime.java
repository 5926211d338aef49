package org.fleetmesh.peering.quarkus;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;

import org.fleetmesh.identity.quarkus.NodeAddress;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.nip66.Announcement;
import org.fleetmesh.nostr.nip66.Discovery;
import org.fleetmesh.nostr.nip66.Hints;
import org.fleetmesh.nostr.nip66.Nip66Exception;
import org.fleetmesh.nostr.nip66.Probe;
import org.fleetmesh.nostr.nip66.RelayUrl;
import org.fleetmesh.peering.PeerLinks;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.IngestListener;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.client.Dialer;
import org.fleetmesh.relay.client.RelayProbe;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServerStart;
import io.vertx.core.Vertx;

/**
 * The node as a NIP-66 monitor (docs/spec/monitoring.md): once the port is bound it publishes its kind 10166
 * announcement, then every {@code fleetmesh.monitor.frequency} probes this relay and each declared peer's relay and
 * publishes a kind 30166 for each relay that answered, signed with the node's Nostr key, into its own relay. Other
 * monitors' 30166 events about those relays are kept as hints ({@link Hints}) and shown per peer in
 * {@code /mesh/status} as {@code monitor_hints}; nothing else reads them: they are never evidence.
 */
@ApplicationScoped
public class MonitorRuntime {
    private static final Logger LOG = Logger.getLogger(MonitorRuntime.class);
    /** The write check's event: ephemeral (never stored), a kind no NIP uses. */
    static final int WRITE_CHECK_KIND = 20166;
    /** How often the watched relay URLs are re-read from the peers (so a new peer's hints are kept soon). */
    private static final long WATCH_MILLIS = 5000;
    /** This node's own discovery events read per round to find those about relays no longer watched. */
    private static final int MAX_RETRACTED = 1000;

    @Inject
    MonitorConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    NodeAddress address;

    @Inject
    RelayRuntime relays;

    @Inject
    org.fleetmesh.relay.quarkus.RelayConfig relayConfig;

    @Inject
    MeshPeers peers;

    @Inject
    EventStore store;

    @Inject
    Vertx vertx;

    private volatile Hints hints;
    private volatile Set<String> watched = Set.of();
    private final Map<String, Probed> probed = new ConcurrentHashMap<>();
    private final MessageParser parser = new MessageParser(MessageParser.Limits.DEFAULT);
    private volatile ScheduledExecutorService monitor;
    private volatile Dialer dialer;
    private volatile RelayProbe prober;
    private volatile IngestListener listener;
    private volatile String self;

    /** This node's last probe of a relay, and when (epoch seconds). */
    record Probed(Probe probe, long at, Optional<String> published) {
    }

    /** Refuses to start on a bad setting, naming it. */
    void validate(@Observes StartupEvent started) {
        if (config.frequency().getSeconds() < 1 || config.hintsPerRelay() < 1 || config.hintRelays() < 1) {
            throw new IllegalArgumentException("fleetmesh.monitor: frequency is at least 1s, hints-per-relay and "
                    + "hint-relays at least 1");
        }
        timeouts();
    }

    private RelayProbe.Timeouts timeouts() {
        try {
            return new RelayProbe.Timeouts(config.timeout().open(), config.timeout().read(), config.timeout().write(),
                    config.timeout().nip11());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fleetmesh.monitor.timeout.*: " + e.getMessage(), e);
        }
    }

    void onHttpStart(@ObservesAsync HttpServerStart started) {
        try {
            start();
        } catch (RuntimeException e) {
            LOG.error("NIP-66 monitoring did not start", e);
        }
    }

    synchronized void start() {
        if (!config.enabled()) {
            LOG.info("NIP-66 monitoring is off (fleetmesh.monitor.enabled=false)");
            return;
        }
        if (monitor != null) {
            return;
        }
        RelayProbe.Timeouts timeouts = timeouts();
        self = identity.secrets().publicKeys().nostr().hex();
        hints = new Hints(config.hintsPerRelay(), config.hintRelays());
        dialer = new Dialer(vertx, Dialer.Options.DEFAULTS.withMaxMessageSize(4 << 20)
                .withConnectTimeout(config.timeout().open()).withMaxConnectionsPerHost(2));
        prober = new RelayProbe(dialer, timeouts);
        listener = this::ingested;
        relays.relay().ingest().addListener(listener);
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-monitor");
            t.setDaemon(true);
            return t;
        });
        monitor = s;
        s.execute(this::announce);
        s.scheduleWithFixedDelay(Repeating.surviving("the NIP-66 monitor's watch", this::watch), 0, WATCH_MILLIS, TimeUnit.MILLISECONDS);
        s.scheduleWithFixedDelay(Repeating.surviving("a NIP-66 monitor round", this::round), 1, config.frequency().getSeconds(), TimeUnit.SECONDS);
        LOG.infof("NIP-66 monitor: this relay and %d peer relay(s) every %ds", relayUrls().size() - 1,
                config.frequency().getSeconds());
    }

    /** The kind 10166 announcement: frequency, the checks and their timeouts. */
    void announce() {
        Map<String, java.time.Duration> timeouts = new LinkedHashMap<>();
        timeouts.put("open", config.timeout().open());
        timeouts.put("read", config.timeout().read());
        timeouts.put("write", config.timeout().write());
        timeouts.put("nip11", config.timeout().nip11());
        long now = now();
        Event e = sign(key -> Announcement.sign(config.frequency(), timeouts, now, key));
        publish(e, "monitor announcement");
        // NIP-66: monitors SHOULD also publish a kind 0 profile and a kind 10002 relay list (where their 30166 are)
        String relay = RelayUrl.normalize(address.endpoints().relay());
        publish(sign(key -> Announcement.profile(relayConfig.name(), "NIP-66 relay monitor: this node publishes kind "
                + "30166 relay discovery events about its own relay " + relay + " and its peers' relays there, every "
                + config.frequency().getSeconds() + " s", now, key)), "monitor profile");
        publish(sign(key -> Announcement.relayList(List.of(relay), now, key)), "monitor relay list");
    }

    /** This relay first, then each declared peer's relay, normalized and without repeats. */
    private List<String> relayUrls() {
        Set<String> urls = new LinkedHashSet<>();
        urls.add(RelayUrl.normalize(address.endpoints().relay()));
        for (PeerLinks.View v : peers.links().view()) {
            relayOf(v).ifPresent(urls::add);
        }
        return new ArrayList<>(urls);
    }

    private static Optional<String> relayOf(PeerLinks.View v) {
        try {
            return v.url().map(RelayUrl::ofMesh);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** One round: probe and publish, one relay at a time; then withdraw what it published about relays it left. */
    void round() {
        List<String> urls = relayUrls();
        for (String url : urls) {
            try {
                Event write = sign(key -> Events.sign(key, now(), WRITE_CHECK_KIND,
                        List.of(List.of("alt", "fleetmesh NIP-66 monitor write check")), ""));
                Probe p = prober.probe(URI.create(url), write);
                long at = now();
                if (!p.reached()) {
                    LOG.infof("NIP-66: %s did not answer: %s", url, p.failures());
                    probed.put(url, new Probed(p, at, Optional.empty()));
                    continue;
                }
                Event d = sign(key -> Discovery.sign(p, at, key));
                probed.put(url, new Probed(p, at, Optional.of(d.id().hex())));
                publish(d, "relay discovery of " + url);
                if (!p.failures().isEmpty()) {
                    LOG.debugf("NIP-66: %s: %s", url, p.failures());
                }
            } catch (RuntimeException e) {
                LOG.warnf(e, "NIP-66: probing %s failed", url);
            }
        }
        try {
            if (peers.declaredLoaded()) { // before, a peer not loaded yet would look like one no longer watched
                retractStale(Set.copyOf(urls));
            }
        } catch (RuntimeException e) {
            LOG.warn("NIP-66: withdrawing discovery events about relays no longer watched failed", e);
        }
    }

    /**
     * This node's stored 30166 events about relays it no longer watches (a peer that moved to a new URL or was removed,
     * this relay under an old URL) would go on describing them as this node last saw them: they are withdrawn with one
     * NIP-09 deletion request ({@link Discovery#retraction}).
     */
    void retractStale(Set<String> watching) {
        List<String> published = new ArrayList<>();
        Filter mine = new Filter(null, Set.of(org.fleetmesh.nostr.PubKey.ofHex(self)), Set.of(Discovery.KIND), Map.of(),
                null, null, MAX_RETRACTED);
        store.query(mine, now(), (id, json) -> {
            try {
                Event e = parser.parseEvent(json);
                e.tags().stream().filter(t -> t.size() >= 2 && t.get(0).equals("d")).findFirst()
                        .ifPresent(t -> published.add(t.get(1)));
            } catch (ProtocolException x) {
                LOG.debugf("NIP-66: a stored discovery event does not parse: %s", x.getMessage());
            }
            return true;
        });
        Optional.ofNullable(sign(key -> Discovery.retraction(published, watching, now(), key).orElse(null)))
                .ifPresent(d -> publish(d, "withdrawal of discovery events about relays no longer watched"));
    }

    /** Re-reads which relays are watched; a relay newly watched gets the hints already stored about it. */
    void watch() {
        try {
            Set<String> now = new LinkedHashSet<>(relayUrls());
            Set<String> before = watched;
            watched = Set.copyOf(now);
            hints.watch(now);
            for (String url : now) {
                if (!before.contains(url)) {
                    backfill(url);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("NIP-66: could not read the relays to watch", e);
        }
    }

    private void backfill(String url) {
        Filter f = new Filter(null, null, Set.of(Discovery.KIND), Map.of("d", Set.of(url)), null, null,
                config.hintsPerRelay() * 2);
        store.query(f, now(), (id, json) -> {
            try {
                hint(parser.parseEvent(json));
            } catch (ProtocolException e) {
                LOG.debugf("NIP-66: a stored discovery event does not parse: %s", e.getMessage());
            }
            return true;
        });
    }

    /** Told of every ingest batch (on the writer thread): keeps what other monitors say about watched relays. */
    private void ingested(Origin origin, List<Event> batch, List<Ingest.Outcome> outcomes) {
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i);
            if (e.kind() == Discovery.KIND && outcomes.get(i).status() == Ingest.Status.ACCEPTED) {
                hint(e);
            }
        }
    }

    private void hint(Event e) {
        if (e.pubkey().hex().equals(self)) {
            return; // this node's own measurements are not hints
        }
        try {
            hints.offer(Discovery.read(e)); // kept only when it is about a watched relay
        } catch (Nip66Exception x) {
            LOG.debugf("NIP-66: discovery event %s does not read: %s", e.id().hex(), x.getMessage());
        }
    }

    /**
     * A peer's {@code "monitor"} (this node's last probe of its relay, or null) and {@code "monitor_hints"} (what
     * other monitors say, newest first) in {@code /mesh/status}.
     */
    public void describe(String peerKey, Map<String, Object> into) {
        Hints h = hints;
        if (h == null) {
            return;
        }
        Optional<String> url = peers.links().find(peerKey).flatMap(MonitorRuntime::relayOf);
        Probed last = url.map(probed::get).orElse(null);
        into.put("monitor", last == null ? null : probeJson(last));
        List<Map<String, Object>> list = new ArrayList<>();
        for (Hints.Hint hint : url.map(h::about).orElse(List.of())) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("monitor", hint.monitor());
            m.put("id", hint.eventId());
            m.put("created_at", hint.createdAt());
            m.put("rtt_open", hint.rttOpen().isPresent() ? hint.rttOpen().getAsLong() : null);
            m.put("rtt_read", hint.rttRead().isPresent() ? hint.rttRead().getAsLong() : null);
            m.put("rtt_write", hint.rttWrite().isPresent() ? hint.rttWrite().getAsLong() : null);
            m.put("network", hint.networks());
            m.put("nips", hint.nips());
            m.put("requirements", hint.requirements());
            list.add(m);
        }
        into.put("monitor_hints", list);
    }

    private static Map<String, Object> probeJson(Probed p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("url", p.probe().url());
        m.put("at", p.at());
        m.put("rtt_open", p.probe().open().isPresent() ? p.probe().open().getAsLong() : null);
        m.put("rtt_read", p.probe().read().isPresent() ? p.probe().read().getAsLong() : null);
        m.put("rtt_write", p.probe().write().isPresent() ? p.probe().write().getAsLong() : null);
        m.put("nip11", p.probe().nip11().isPresent());
        m.put("failures", p.probe().failures());
        m.put("event", p.published().orElse(null));
        return m;
    }

    private Event sign(java.util.function.Function<byte[], Event> signer) {
        byte[] key = identity.secrets().nostr().bytes();
        try {
            return signer.apply(key);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    private void publish(Event e, String what) {
        relays.relay().ingest().submit(List.of(e), new Origin.Import()).thenAccept(outcomes -> {
            Ingest.Outcome o = outcomes.get(0);
            if (o.accepted()) {
                LOG.debugf("NIP-66: stored %s %s", what, o.id().hex());
            } else {
                LOG.errorf("NIP-66: this node's %s was refused: %s", what, o.reason());
            }
        });
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    @PreDestroy
    synchronized void stop() {
        if (monitor != null) {
            monitor.shutdownNow();
        }
        IngestListener l = listener;
        if (l != null) {
            relays.relay().ingest().removeListener(l);
        }
        if (prober != null) {
            prober.close();
        }
        if (dialer != null) {
            dialer.close();
        }
    }
}
