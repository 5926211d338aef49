package org.fleetmesh.peering.link;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.peering.LinkSession;
import org.fleetmesh.peering.LinkSessions;
import org.fleetmesh.peering.MeshLink;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.budget.Direction;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantTerms;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.LinkLedger;
import org.fleetmesh.spi.peers.PeerRecord;
import org.jboss.logging.Logger;

/**
 * This node's side of every link: opens an {@link EventLink} per authenticated link, keeps one {@link PeerAccount}
 * per peer DID (loaded from the {@link LinkLedger} on first sight, at most {@code maxPeers} in memory), signs, stores
 * and offers the grant it gives each peer (its tier's default), re-issues it when the tier changes, quarantines and
 * records evidence, and persists tiers and strain. Storage writes run on {@code storage}, never on a link's thread.
 */
public final class EventLinks implements LinkSessions {
    private static final Logger LOG = Logger.getLogger(EventLinks.class);

    private final String selfDid;
    private final String selfShort;
    private final NodeSecrets secrets;
    private final LinkPolicy policy;
    private final Intake intake;
    private final LinkLedger ledger;
    private final Executor storage;
    private final LongSupplier nanoTime;
    private final LongSupplier millisTime;
    private final int maxPeers;
    private final Map<String, PeerAccount> accounts;
    private final Map<String, EventLink> open = new ConcurrentHashMap<>();
    private volatile Carrier.Carriers carriers = Carrier.Carriers.NONE;
    private final Map<String, DidcommHandler> handlers = new ConcurrentHashMap<>();

    /**
     * What serves a DIDComm protocol on the links besides grants (compute/1.0): told of each link that opens and closes
     * and of every message of its protocol, unpacked and from the link's peer. Called on the link's thread: hand
     * anything slow to another.
     */
    public interface DidcommHandler {
        void opened(EventLink link);

        void received(EventLink link, GrantMessages.Received message);

        default void closed(EventLink link) {
        }
    }

    /** Serves messages whose type starts with {@code protocolPrefix} (e.g. {@code https://fleetmesh.org/compute/1.0/}). */
    public void handle(String protocolPrefix, DidcommHandler h) {
        if (protocolPrefix.equals(GrantMessages.PROTOCOL)) {
            throw new IllegalArgumentException("grants are served by the link itself");
        }
        handlers.put(protocolPrefix, Objects.requireNonNull(h, "handler"));
        for (EventLink l : open.values()) {
            h.opened(l);
        }
    }

    /** The handler of a message type, or null. */
    DidcommHandler handler(String type) {
        for (Map.Entry<String, DidcommHandler> e : handlers.entrySet()) {
            if (type.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return null;
    }

    void handlersClosed(EventLink link) {
        for (DidcommHandler h : handlers.values()) {
            try {
                h.closed(link);
            } catch (RuntimeException e) {
                LOG.errorf(e, "a DIDComm handler failed on the close of %s", link.account().peer());
            }
        }
    }

    public EventLinks(String selfDid, NodeSecrets secrets, LinkPolicy policy, Intake intake, LinkLedger ledger,
            Executor storage, LongSupplier nanoTime, LongSupplier millisTime, int maxPeers) {
        this.selfDid = Objects.requireNonNull(selfDid, "selfDid");
        this.selfShort = PeerIdentity.shortForm(selfDid);
        this.secrets = secrets;
        this.policy = policy;
        this.intake = intake;
        this.ledger = ledger;
        this.storage = storage;
        this.nanoTime = nanoTime;
        this.millisTime = millisTime;
        this.maxPeers = maxPeers;
        this.accounts = new LinkedHashMap<>(64, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, PeerAccount> eldest) {
                if (size() <= EventLinks.this.maxPeers || open.containsKey(eldest.getKey())) {
                    return false;
                }
                persist(eldest.getValue(), true); // an evicted peer comes back as it left
                return true;
            }
        };
    }

    public LinkPolicy policy() {
        return policy;
    }

    /** What carries the frames of links opened from now on (delivery); {@link Carrier.Carriers#NONE} by default. */
    public void carriers(Carrier.Carriers c) {
        this.carriers = java.util.Objects.requireNonNull(c, "carriers");
    }

    /** The open link of {@code peer} (short DID), if any. */
    public Optional<EventLink> link(String peer) {
        return Optional.ofNullable(open.get(peer));
    }

    Intake ingest() {
        return intake;
    }

    long nowSeconds() {
        return millisTime.getAsLong() / 1000;
    }

    @Override
    public LinkSession open(MeshLink link) {
        PeerIdentity peer = link.peer().orElseThrow();
        return open(new EventLink.Wire() {
            @Override
            public void send(String text) {
                link.send(text);
            }

            @Override
            public void end(Refusal refusal) {
                link.end(refusal);
            }

            @Override
            public PeerIdentity peer() {
                return peer;
            }
        });
    }

    /** The session of a link whose peer has just authenticated. */
    public EventLink open(EventLink.Wire wire) {
        PeerIdentity peer = wire.peer();
        PeerAccount account = account(peer.shortDid());
        EventLink link = new EventLink(this, wire, account,
                new GrantMessages(selfDid, peer.did(), agreementSecret()));
        Optional<Long> quarantined = account.quarantinedUntil();
        if (quarantined.isPresent()) {
            LOG.infof("mesh peer %s is quarantined until %s; ending its link", peer.shortDid(),
                    Instant.ofEpochMilli(quarantined.get()));
            link.endQuarantined(quarantined.get());
            return link;
        }
        open.put(account.peer(), link);
        Grant g = grantFor(account);
        link.offer(g);
        account.suspension().ifPresent(why -> link.suspend(g, why, g.terms().expiration() * 1000));
        link.carry(carriers.open(new EventLink.Wire() {
            @Override
            public void send(String text) {
                wire.send(text);
            }

            @Override
            public void end(Refusal refusal) {
                wire.end(refusal);
            }

            @Override
            public PeerIdentity peer() {
                return wire.peer();
            }

            @Override
            public void violation() {
                link.carrierViolation();
            }
        }, account));
        for (DidcommHandler h : handlers.values()) {
            try {
                h.opened(link);
            } catch (RuntimeException e) {
                LOG.errorf(e, "a DIDComm handler failed on the opening of %s", peer.shortDid());
            }
        }
        return link;
    }

    private byte[] agreementSecret() {
        return secrets.agreement().bytes();
    }

    /** The peer's account, loaded from the ledger the first time (a fresh peer starts in tier 0). */
    PeerAccount account(String peer) {
        synchronized (accounts) {
            PeerAccount a = accounts.get(peer);
            if (a == null) {
                Optional<PeerRecord> stored;
                try {
                    stored = ledger.load(peer);
                } catch (RuntimeException e) {
                    LOG.warnf("could not read the link record of %s (%s); treating it as new", peer, e.getMessage());
                    stored = Optional.empty();
                }
                a = new PeerAccount(peer, stored, policy, nanoTime, millisTime);
                accounts.put(peer, a);
            }
            return a;
        }
    }

    /** The grant in force for {@code a}: the current one while its terms hold and half its validity remains. */
    private Grant grantFor(PeerAccount a) {
        long now = nowSeconds();
        GrantTerms terms = a.termsToGive(selfShort, now + policy.grantValidity().toSeconds());
        Optional<Grant> current = a.given();
        if (current.isPresent() && sameBudget(current.get().terms(), terms)
                && current.get().terms().expiration() - now > policy.grantValidity().toSeconds() / 2) {
            return current.get();
        }
        Grant g = Grant.sign(terms, nostrSecret(), now);
        a.gave(g);
        intake.own(g.event()).thenAccept(outcomes -> {
            if (!outcomes.get(0).accepted()) {
                LOG.warnf("the grant to %s was not stored: %s", a.peer(), outcomes.get(0).message());
            }
        });
        return g;
    }

    private byte[] nostrSecret() {
        return secrets.nostr().bytes();
    }

    private static boolean sameBudget(GrantTerms x, GrantTerms y) {
        return x.bytesPerWindow() == y.bytesPerWindow() && x.eventsPerWindow() == y.eventsPerWindow()
                && x.windowSeconds() == y.windowSeconds() && x.tier() == y.tier();
    }

    /** The peer's tier changed: a new grant, offered as a revision on its open link. */
    void reissue(PeerAccount a) {
        Grant g = grantFor(a);
        EventLink link = open.get(a.peer());
        if (link != null) {
            link.offer(g);
        }
    }

    /** A grant the peer gave this node, verified: stored like any event (REQ serves it). */
    java.util.concurrent.CompletionStage<Ingest.Outcome> store(Grant g, String peerDid) {
        return intake.fromPeer(List.of(g.event()), peerDid).thenApply(outcomes -> {
            if (!outcomes.get(0).accepted()) {
                LOG.warnf("the grant of %s was not stored: %s", PeerIdentity.shortForm(peerDid), outcomes.get(0).message());
            }
            return outcomes.get(0);
        });
    }

    void answered(PeerAccount a, List<Ingest.Outcome> outcomes) {
        // the answers go back on the link; what they cost was counted when the frame was admitted
    }

    void violated(PeerAccount a) {
        // counted in the account; persisted at the end of the window
    }

    void suspended(PeerAccount a) {
        EventLink link = open.get(a.peer());
        Carrier c = link == null ? null : link.carrier();
        if (c != null) {
            c.suspended();
        }
    }

    /**
     * S3: quarantines the peer, tells it its grant is suspended, and stores the evidence record (counts, the grant it
     * broke, times). Gives the quarantine's end, epoch milliseconds.
     */
    long quarantine(PeerAccount a, EventLink link) {
        long until = a.quarantine();
        Optional<Grant> broken = a.given();
        String reason = "quarantined: " + a.violationsInPeriod() + " violations in "
                + policy.violations().periodSeconds() + " s";
        broken.ifPresent(g -> link.suspend(g, reason, until));
        long[] refused = a.refused();
        long[] used = a.used();
        var in = a.inbound();
        String detail = "{\"refused_frames\":" + refused[0] + ",\"refused_bytes\":" + refused[1]
                + ",\"refused_events\":" + refused[2] + ",\"used_bytes\":" + used[0] + ",\"used_events\":" + used[1]
                + ",\"grant_bytes\":" + in.bytes() + ",\"grant_events\":" + in.events() + ",\"window\":"
                + in.windowSeconds() + ",\"tier\":" + a.tier().level() + ",\"violations_total\":" + a.violationsTotal()
                + ",\"threshold\":" + policy.violations().threshold() + ",\"tolerance\":"
                + policy.violations().tolerance() + "}";
        Evidence e = new Evidence(0, a.peer(), "S3", reason, a.violationsInPeriod(), a.periodStartMillis(),
                millisTime.getAsLong(), until, broken.map(g -> g.event().id().hex()).orElse(""),
                broken.map(g -> g.event().json()).orElse(""), detail);
        LOG.warnf("mesh peer %s %s; quarantined until %s", a.peer(), reason, Instant.ofEpochMilli(until));
        runStorage(() -> {
            ledger.addEvidence(e);
            persistNow(a, true);
        });
        return until;
    }

    /** Standing: the peer drops one tier and gets the grant of its new tier. False when it was in tier 0 already. */
    public boolean demote(String peer, String reason) {
        PeerAccount a = account(peer);
        if (!a.demote()) {
            return false;
        }
        LOG.warnf("mesh peer %s demoted to tier %d: %s", peer, a.tier().level(), reason);
        reissue(a);
        persist(a, false);
        return true;
    }

    /**
     * Standing: the grant this node gives the peer is suspended (the peer is told, as for S3, and its event frames
     * are refused) until {@link #reinstate}; its link stays. False when it already was.
     */
    public boolean suspend(String peer, String reason) {
        PeerAccount a = account(peer);
        if (a.suspension().isPresent()) {
            return false;
        }
        a.suspended(reason);
        LOG.warnf("mesh peer %s: grant suspended: %s", peer, reason);
        EventLink link = open.get(peer);
        Optional<Grant> g = a.given();
        if (link != null && g.isPresent()) {
            link.suspend(g.get(), reason, g.get().terms().expiration() * 1000);
        }
        return true;
    }

    /** Standing recovered: a suspended grant is given again (a fresh offer on the open link). False when none was. */
    public boolean reinstate(String peer) {
        Optional<PeerAccount> a = known(peer);
        if (a.isEmpty() || a.get().suspension().isEmpty()) {
            return false;
        }
        a.get().suspended(null);
        LOG.infof("mesh peer %s: grant reinstated", peer);
        EventLink link = open.get(peer);
        if (link != null) {
            link.offer(grantFor(a.get()));
        }
        return true;
    }

    /**
     * Standing: the peer is quarantined for the policy's time (its grant suspended, its link ended, a relink refused),
     * without a budget evidence record: the findings are the evidence. The quarantine takes the place of a standing
     * suspension: once it ends, the peer starts again as after an S3. Gives the end, epoch milliseconds.
     */
    public long quarantine(String peer, String reason) {
        PeerAccount a = account(peer);
        a.suspended(null);
        Optional<Long> already = a.quarantinedUntil();
        if (already.isPresent()) {
            return already.get();
        }
        long until = a.quarantine();
        LOG.warnf("mesh peer %s quarantined until %s: %s", peer, Instant.ofEpochMilli(until), reason);
        EventLink link = open.get(peer);
        if (link != null) {
            link.endQuarantined(a.given().orElse(null), reason, until);
        }
        runStorage(() -> persistNow(a, true));
        return until;
    }

    /** The peers with an open link, as they authenticated. */
    public List<PeerIdentity> linked() {
        List<PeerIdentity> all = new ArrayList<>();
        for (EventLink l : open.values()) {
            all.add(l.peer());
        }
        return all;
    }

    /**
     * The identity a peer proved on its open link, or on its last link since this node started (the newest 4,096
     * peers): evidence is often signed after the link that earned it has closed (a quarantine ends it), and the
     * finding needs the Nostr key the peer proved.
     */
    public Optional<PeerIdentity> lastLinked(String shortDid) {
        EventLink l = open.get(shortDid);
        if (l != null) {
            return Optional.of(l.peer());
        }
        synchronized (recentlyLinked) {
            return Optional.ofNullable(recentlyLinked.get(shortDid));
        }
    }

    private static final int RECENTLY_LINKED = 4096;
    private final java.util.Map<String, PeerIdentity> recentlyLinked = new java.util.LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, PeerIdentity> eldest) {
            return size() > RECENTLY_LINKED;
        }
    };

    void closed(EventLink link) {
        synchronized (recentlyLinked) {
            recentlyLinked.put(link.account().peer(), link.peer());
        }
        open.remove(link.account().peer(), link);
        persist(link.account(), false);
    }

    /**
     * A tier window ended: each peer's streak grows or resets, a peer that climbed gets its new grant, a grant past half
     * its validity is renewed, and changed records are persisted. The edge calls it every window.
     */
    public void windowEnded() {
        List<PeerAccount> all;
        synchronized (accounts) {
            all = new ArrayList<>(accounts.values());
        }
        for (PeerAccount a : all) {
            boolean changed = a.windowEnded();
            EventLink link = open.get(a.peer());
            if (link != null && (changed || a.given().map(g -> g.terms().expiration() - nowSeconds()
                    <= policy.grantValidity().toSeconds() / 2).orElse(true))) {
                reissue(a);
            }
            persist(a, false);
        }
    }

    /** Writes every record now (at shutdown). */
    public void flush() {
        List<PeerAccount> all;
        synchronized (accounts) {
            all = new ArrayList<>(accounts.values());
        }
        for (PeerAccount a : all) {
            persistNow(a, false);
        }
    }

    private void persist(PeerAccount a, boolean always) {
        runStorage(() -> persistNow(a, always));
    }

    private void persistNow(PeerAccount a, boolean always) {
        a.takeRecord(always).ifPresent(r -> {
            try {
                ledger.save(r);
            } catch (RuntimeException e) {
                LOG.warnf("could not persist the link record of %s: %s", a.peer(), e.getMessage());
            }
        });
    }

    private void runStorage(Runnable r) {
        try {
            storage.execute(r);
        } catch (RejectedExecutionException e) {
            LOG.warn("the link ledger's writer is full or stopped; a record waits for the next window");
        }
    }

    /** The peer's quarantine end, while it lasts. */
    public Optional<Instant> quarantinedUntil(String peer) {
        return account(peer).quarantinedUntil().map(Instant::ofEpochMilli);
    }

    /** The peer's account when this node holds one in memory. */
    public Optional<PeerAccount> known(String peer) {
        synchronized (accounts) {
            return Optional.ofNullable(accounts.get(peer));
        }
    }

    /** Peers held in memory. */
    public List<PeerAccount> accounts() {
        synchronized (accounts) {
            return new ArrayList<>(accounts.values());
        }
    }

    public boolean isOpen(String peer) {
        return open.containsKey(peer);
    }

    /** The status fields of {@code peer} (H1's {@code /mesh/status}): tier, grants both ways, use, violations, strain. */
    public void describe(String peer, Map<String, Object> into) {
        Optional<PeerAccount> known = known(peer);
        if (known.isEmpty()) {
            into.put("tier", null);
            into.put("grant_in", null);
            into.put("grant_out", null);
            into.put("used", null);
            into.put("violations", null);
            into.put("strain", null);
            return;
        }
        PeerAccount a = known.get();
        long now = nanoTime.getAsLong();
        into.put("tier", a.tier().level());
        into.put("grant_in", a.given().map(g -> grant(g, a.givenAccepted())).orElse(null));
        into.put("grant_out", a.received().map(g -> grant(g, true)).orElse(null));
        long[] used = a.used();
        Map<String, Object> u = new LinkedHashMap<>();
        u.put("in_bytes", used[0]);
        u.put("in_events", used[1]);
        StrainLedger s = a.strain();
        u.put("out_bytes", s.get(Direction.OUT, StrainLedger.Measure.BYTES, now));
        u.put("out_events", s.get(Direction.OUT, StrainLedger.Measure.EVENTS, now));
        into.put("used", u);
        into.put("violations", a.violationsTotal());
        Map<String, Object> strain = new LinkedHashMap<>();
        for (Direction d : Direction.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (StrainLedger.Measure measure : StrainLedger.Measure.values()) {
                m.put(measure.name().toLowerCase(java.util.Locale.ROOT), s.get(d, measure, now));
            }
            strain.put(d.name().toLowerCase(java.util.Locale.ROOT), m);
        }
        into.put("strain", strain);
        a.quarantinedUntil().ifPresent(q -> into.put("quarantined_until", Instant.ofEpochMilli(q).toString()));
        a.suspension().ifPresent(why -> into.put("suspended", why));
    }

    private static Map<String, Object> grant(Grant g, boolean agreed) {
        Map<String, Object> m = new LinkedHashMap<>();
        GrantTerms t = g.terms();
        m.put("id", g.event().id().hex());
        m.put("bytes", t.bytesPerWindow());
        m.put("events", t.eventsPerWindow());
        m.put("window", t.windowSeconds());
        m.put("tier", t.tier());
        m.put("expiration", t.expiration());
        m.put("agreed", agreed);
        return m;
    }

    /** For log lines and evidence: a JSON string. */
    static String quote(String s) {
        return NostrJson.quote(s);
    }
}
