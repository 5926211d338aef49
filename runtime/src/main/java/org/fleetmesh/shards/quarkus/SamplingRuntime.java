package org.fleetmesh.shards.quarkus;

import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
import jakarta.inject.Inject;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.relay.client.Dialer;
import org.fleetmesh.relay.client.RelayLink;
import org.fleetmesh.shards.Claim;
import org.fleetmesh.shards.EvidenceException;
import org.fleetmesh.shards.PeerAnswer;
import org.fleetmesh.shards.SamplingRound;
import org.fleetmesh.shards.Shard;
import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.PeerStore;
import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;

/**
 * Samples every declared peer's asserted shards on a clock (docs/spec/sampling.md): a {@link SamplingRound} per peer
 * and interval, over fresh unauthenticated connections to the peer's relay (its {@code /mesh} URL without
 * {@code /mesh}); what it finds is S2 evidence in the link ledger ({@code GET /mesh/peers/<did>/evidence}), and the
 * tallies are the peer's {@code "sampling"} in {@code /mesh/status}. One thread: a round spends one connection at a
 * time, each bounded by the timeout and its answer's size.
 */
@ApplicationScoped
public class SamplingRuntime {
    private static final Logger LOG = Logger.getLogger(SamplingRuntime.class);
    /** An anonymous reader: the private kinds stay out of what a sample may ask for. */
    private static final Reader ANONYMOUS = Reader.of(Set.of(4, 13, 1059), Set.of());
    /** Claims fetched whole that are remembered (not fetched again), and claims with evidence already recorded. */
    private static final int REMEMBERED = 4096;

    @Inject
    SamplingConfig config;

    @Inject
    PeerStore peers;

    @Inject
    org.fleetmesh.peering.quarkus.EvidenceLedger ledger; // its evidence records become findings

    @Inject
    EventStore store;

    @Inject
    ShardsRuntime shards;

    @Inject
    NodeIdentity identity;

    @Inject
    Vertx vertx;

    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    private final Set<String> checkedClaims = remembered();
    private final Set<String> recorded = remembered();
    private final SecureRandom random = new SecureRandom();
    private final MessageParser parser = new MessageParser(MessageParser.Limits.DEFAULT);
    private SamplingRound.Settings settings;
    private volatile ScheduledExecutorService sampler;
    private volatile Dialer dialer;
    private String self;

    /** What a peer's rounds found so far. */
    private static final class Tally {
        long rounds, samples, missing, evidence, lastRound, claims, asserted;
        String problem;
    }

    /** Checks the settings (a bad one stops the start with its reason), then samples on a clock. */
    void onStart(@Observes StartupEvent e) {
        try {
            settings = new SamplingRound.Settings(config.samples(), config.grace().toSeconds(), config.checkMax(), 64, 8);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("fleetmesh.sampling (samples, grace, check-max): " + ex.getMessage(), ex);
        }
        if (config.interval().toMillis() < 100 || config.timeout().toMillis() < 100 || config.maxScan() < 1) {
            throw new IllegalArgumentException("fleetmesh.sampling: interval and timeout are at least 100ms, max-scan >= 1");
        }
        if (!config.enabled()) {
            LOG.info("sampling of peers' asserted shards is off (fleetmesh.sampling.enabled=false)");
            return;
        }
        self = NodeDidDocument.of(identity.secrets().publicKeys(),
                NodeEndpoints.of("ws://localhost/", "ws://localhost/mesh", "http://localhost/didcomm")).did();
        long every = config.interval().toMillis();
        dialer = new Dialer(vertx, Dialer.Options.DEFAULTS.withMaxMessageSize(16 << 20)
                .withConnectTimeout(config.timeout()).withMaxConnectionsPerHost(2));
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-sampling");
            t.setDaemon(true);
            return t;
        });
        s.scheduleWithFixedDelay(Repeating.surviving("a sampling round", this::round), every, every, TimeUnit.MILLISECONDS);
        sampler = s;
        LOG.infof("sampling peers' asserted shards every %ds: %d samples a claim, grace %ds", every / 1000,
                settings.samples(), settings.grace());
    }

    /** One round against every declared peer. */
    void round() {
        for (PeerStore.StoredPeer p : peers.all()) {
            try {
                sample(p);
            } catch (RuntimeException ex) {
                LOG.errorf(ex, "sampling %s failed", p.key());
                Tally t = tally(p.key());
                synchronized (t) {
                    t.problem = ex.toString();
                }
            }
        }
    }

    private void sample(PeerStore.StoredPeer p) {
        Tally t = tally(p.key());
        long now = System.currentTimeMillis() / 1000;
        List<PubKey> keys;
        URI relay;
        try {
            keys = SamplingRound.subjectKeys(p.did());
            relay = relayUrl(URI.create(p.url()));
        } catch (EvidenceException | IllegalArgumentException | URISyntaxException ex) {
            synchronized (t) {
                t.problem = "not sampled: " + ex.getMessage() + " (declare the peer by its did:peer:4 long form)";
            }
            return;
        }
        SamplingRound.Outcome o = new SamplingRound(settings, random, self).run(p.did(), keys,
                (sub, message, max) -> req(relay, sub, message, max), local(now), checkedClaims::contains, now);
        checkedClaims.addAll(o.checked());
        int stored = 0;
        for (SamplingRound.Found f : o.found()) {
            // one record per claim and kind: one withheld event proves the claim false; the rest are counted
            String key = p.key() + " " + f.claim() + " " + f.type();
            if (!recorded.add(key)) {
                continue;
            }
            long ms = System.currentTimeMillis();
            try {
                ledger.addEvidence(new Evidence(0, p.key(), "S2", f.reason(), 0, ms, ms, 0, "", "", f.json()));
                stored++;
                LOG.warnf("sampling %s: %s (S2 evidence recorded)", p.key(), f.reason());
            } catch (RuntimeException ex) {
                recorded.remove(key);
                LOG.errorf("the sampling evidence about %s was not stored: %s", p.key(), ex.toString());
            }
        }
        synchronized (t) {
            t.rounds++;
            t.samples += o.samples();
            t.missing += o.missing();
            t.evidence += stored;
            t.lastRound = now;
            t.claims = o.claims();
            t.asserted = o.asserted();
            t.problem = o.problems().isEmpty() ? null : o.problems().get(0);
        }
        LOG.debugf("sampling %s: %d claims (%d asserted), %d samples, %d missing, %d evidence%s", p.key(), o.claims(),
                o.asserted(), o.samples(), o.missing(), stored, o.problems().isEmpty() ? "" : "; " + o.problems());
    }

    /** The peer's relay: its {@code /mesh} URL with the path {@code /}. */
    static URI relayUrl(URI mesh) throws URISyntaxException {
        String path = mesh.getPath() == null ? "" : mesh.getPath();
        String base = path.endsWith("/mesh") ? path.substring(0, path.length() - "/mesh".length()) : path;
        return new URI(mesh.getScheme(), mesh.getRawAuthority(), base.isEmpty() ? "/" : base + "/", null, null);
    }

    /** One REQ on a fresh connection: the events for {@code sub} until EOSE, CLOSED, the end, a timeout or too many. */
    private SamplingRound.Answer req(URI relay, String sub, String message, int maxEvents) {
        Dialer d = dialer;
        if (d == null) {
            return new SamplingRound.Answer(List.of(), false, "stopped");
        }
        long timeout = config.timeout().toMillis();
        PeerAnswer answer = new PeerAnswer(sub, maxEvents);
        try (RelayLink link = RelayLink.connect(d, relay, Math.max(1, timeout / 1000))) {
            link.send(message);
            long deadline = System.currentTimeMillis() + timeout;
            while (true) {
                long left = deadline - System.currentTimeMillis();
                RelayLink.Incoming in = left <= 0 ? null : link.next(left, TimeUnit.MILLISECONDS);
                if (in == null) {
                    return answer.cut("no EOSE within " + timeout + " ms");
                }
                if (in instanceof RelayLink.Closed c) {
                    return answer.cut("the connection ended: " + c.why());
                }
                if (in instanceof RelayLink.Message m) {
                    SamplingRound.Answer a = answer.offer(m.node());
                    if (a != null) {
                        if (a.eose()) {
                            link.send("[\"CLOSE\"," + NostrJson.quote(sub) + "]");
                        }
                        return a;
                    }
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return answer.cut("interrupted");
        } catch (Exception ex) {
            return answer.cut("could not connect to " + relay + ": " + ex);
        }
    }

    /** This node's events: a declared shard's live index, else a bounded read of the store. */
    private SamplingRound.Local local(long now) {
        return new SamplingRound.Local() {
            @Override
            public Storage items(Claim claim, long latest) {
                for (Shard s : shards.shards()) {
                    if (claim.sameShard(s)) {
                        Optional<Storage> snap = shards.snapshot(s.id());
                        if (snap.isPresent()) {
                            return snap.get();
                        }
                    }
                }
                Filter f = claim.shard().filter();
                long until = f.until() == null ? latest : Math.min(f.until(), latest);
                Filter bounded = new Filter(f.ids(), f.authors(), f.kinds(), f.tags(), f.since(), until, config.maxScan());
                SortedVector.Builder b = SortedVector.builder();
                store.enumerate(List.of(bounded), now, ANONYMOUS, (createdAt, id) -> b.insert(createdAt, Id.of(id.toBytes())));
                return b.seal();
            }

            @Override
            public Map<EventId, Event> events(Collection<EventId> ids) {
                Map<EventId, Event> out = new HashMap<>();
                if (ids.isEmpty()) {
                    return out;
                }
                Filter f = new Filter(Set.copyOf(ids), null, null, Map.of(), null, null, null);
                store.query(f, now, ANONYMOUS, (id, json) -> {
                    try {
                        out.put(id, parser.parseEvent(json));
                    } catch (ProtocolException ex) {
                        LOG.warnf("stored event %s does not parse: %s", id.hex(), ex.getMessage());
                    }
                    return true;
                });
                return out;
            }
        };
    }

    private Tally tally(String peer) {
        return tallies.computeIfAbsent(peer, k -> new Tally());
    }

    /**
     * The peer's {@code "sampling"} in {@code /mesh/status}: rounds, samples asked, missing, evidence recorded,
     * last_round (epoch seconds), claims and asserted (of the last round) and problem (what kept the last round from a
     * verdict, or null).
     */
    public void describe(String peerKey, Map<String, Object> into) {
        Tally t = tallies.get(peerKey);
        if (t == null) {
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        synchronized (t) {
            m.put("rounds", t.rounds);
            m.put("samples", t.samples);
            m.put("missing", t.missing);
            m.put("evidence", t.evidence);
            m.put("last_round", t.lastRound == 0 ? null : t.lastRound);
            m.put("claims", t.claims);
            m.put("asserted", t.asserted);
            m.put("problem", t.problem);
        }
        into.put("sampling", m);
    }

    private static Set<String> remembered() {
        return Collections.synchronizedSet(Collections.newSetFromMap(new LinkedHashMap<>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > REMEMBERED;
            }
        }));
    }

    @PreDestroy
    void stop() {
        ScheduledExecutorService s = sampler;
        if (s != null) {
            s.shutdownNow();
            try {
                s.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Dialer d = dialer;
        dialer = null;
        if (d != null) {
            d.close();
        }
    }
}
