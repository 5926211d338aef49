package org.fleetmesh.peering;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.KeyHandover;
import org.fleetmesh.identity.Multikey;
import org.jboss.logging.Logger;

/**
 * The node's links to its peers (docs/spec/mesh-link.md, "Links"): dials every declared peer that has no link, with
 * {@link Backoff}, and again after any close; keeps at most one authenticated link per peer, choosing between two by
 * the tie-break both sides apply alike ({@link #prefers}); refuses a link from a quarantined peer and does not dial
 * one; runs {@link Heartbeat}s on every kept link; and says what it knows per peer ({@link #view()}).
 *
 * <p>
 * Links call in from their own threads. No link method is called while this object's lock is held (a link's own
 * lock may be held by its caller), so links and this table cannot deadlock.
 */
public final class PeerLinks {
    private static final Logger LOG = Logger.getLogger(PeerLinks.class);

    /** A peer's state as {@code /mesh/status} names it. */
    public enum State {
        UP("up"), CONNECTING("connecting"), DOWN("down"), QUARANTINED("quarantined");

        private final String word;

        State(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /** Opens a link to a peer: {@link MeshClient#connect(URI, Optional, LinkSessions)} outside tests. */
    @FunctionalInterface
    public interface Dialler {
        CompletionStage<MeshLink> dial(PeerAddress peer, LinkSessions sessions);
    }

    /** Runs a task later, off the caller's thread and locks. */
    @FunctionalInterface
    public interface Timer {
        void schedule(long delayMillis, Runnable task);
    }

    /** Until when a peer (by its key) is quarantined; the node's {@link LinkSessions#quarantinedUntil}. */
    @FunctionalInterface
    public interface Quarantine {
        Optional<Instant> until(String peerKey);
    }

    /**
     * @param heartbeatInterval how often each side pings
     * @param heartbeatTimeout how long a link may go without a pong before it is ended {@code late}
     * @param backoff when to redial
     * @param stable a link that lived shorter than this counts as a failed dial for the backoff
     */
    public record Settings(Duration heartbeatInterval, Duration heartbeatTimeout, Backoff backoff, Duration stable) {
        public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(5), Duration.ofSeconds(15),
                Backoff.DEFAULTS, Duration.ofSeconds(10));

        public Settings {
            Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
            Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout");
            Objects.requireNonNull(backoff, "backoff");
            Objects.requireNonNull(stable, "stable");
            if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()
                    || heartbeatTimeout.compareTo(heartbeatInterval) < 0) {
                throw new IllegalArgumentException("the heartbeat interval must be positive and at most the timeout");
            }
        }
    }

    /**
     * What this node knows of one peer.
     *
     * @param key the peer's key (did:peer:4 short form, or the declared did:key until a link proves its DID)
     * @param peerKey the key its per-peer state goes by: the proven DID's short form once known, else {@code key}
     * @param declared whether the peer is declared (and dialled), or only linked to this node
     * @param url where it is dialled, for a declared peer
     * @param state up, connecting, down or quarantined
     * @param since when it entered that state
     * @param rttMillis the round trip of the latest answered heartbeat on its link
     * @param links authenticated links open to it now (1 while up; 2 for the moment a tie-break takes)
     * @param role this node's side of the kept link
     * @param duplicates links to it this node closed as duplicates, since start
     * @param quarantinedUntil until when it is quarantined
     * @param lastError why the latest dial or link failed
     */
    public record View(String key, String peerKey, boolean declared, Optional<URI> url, State state, Instant since,
            Optional<Double> rttMillis, int links, Optional<Role> role, long duplicates,
            Optional<Instant> quarantinedUntil, Optional<String> lastError) {
    }

    private final Multikey self;
    private final Settings settings;
    private final Dialler dialler;
    private final Timer timer;
    private final LinkSessions inner;
    private final Quarantine quarantine;
    private final Function<String, LinkTraffic> traffic;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final DoubleSupplier random;
    private final Map<String, Peer> peers = new LinkedHashMap<>();
    /** Declared DIDs that handed over to another (old key to new key): links proving them are refused. */
    private final Map<String, String> retired = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > MAX_RETIRED;
        }
    };
    private volatile Consumer<Rotation> rotations = r -> {
    };
    private boolean stopped;

    /** Retired DIDs remembered (each was a declared peer's): a bound on the table. */
    static final int MAX_RETIRED = 4096;

    /**
     * A declared peer rotated its keys: its entry now goes by the new DID (docs/spec/mesh-link.md, "Key hand-over").
     *
     * @param oldKey the key it was declared under
     * @param address where it is dialled, under the new DID
     * @param handover the verified hand-over
     */
    public record Rotation(String oldKey, PeerAddress address, KeyHandover handover) {
    }

    /**
     * @param self this node's transport key (the tie-break compares initiators' transport keys)
     * @param inner opens what runs inside the heartbeats on each kept link
     * @param traffic the counters of a peer's links, by its peer key
     */
    public PeerLinks(Multikey self, Settings settings, Dialler dialler, Timer timer, LinkSessions inner,
            Quarantine quarantine, Function<String, LinkTraffic> traffic, Clock clock, LongSupplier nanoTime,
            DoubleSupplier random) {
        this.self = Objects.requireNonNull(self, "self");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.dialler = Objects.requireNonNull(dialler, "dialler");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.inner = Objects.requireNonNull(inner, "inner");
        this.quarantine = Objects.requireNonNull(quarantine, "quarantine");
        this.traffic = Objects.requireNonNull(traffic, "traffic");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * Who learns of a declared peer's key rotation (the edge persists it). Called under this table's lock: it must not
     * block or call back.
     */
    public void onRotation(Consumer<Rotation> listener) {
        this.rotations = Objects.requireNonNull(listener, "listener");
    }

    /** A stored rotation: links proving {@code oldKey} are refused from now on, naming {@code newKey}. */
    public synchronized void retire(String oldKey, String newKey) {
        retired.put(oldKey, newKey);
    }

    /** The DID a retired key handed over to, if it did. */
    public synchronized Optional<String> successor(String oldKey) {
        return Optional.ofNullable(retired.get(oldKey));
    }

    /** The sessions of links this node accepts (its {@code /mesh} endpoint). */
    public LinkSessions accepted() {
        return link -> open(link, Optional.empty());
    }

    /** Declares a peer (or changes its URL) and dials it at once when it has no link. */
    public void declare(PeerAddress address) {
        synchronized (this) {
            if (stopped) {
                return;
            }
            Peer p = peers.get(address.key());
            if (p == null && address.did().startsWith(DidKey.PREFIX)) {
                p = adopt(address); // an undeclared peer already linked under its did:peer:4
            }
            if (p == null) {
                p = new Peer(address.key());
                peers.put(p.key, p);
            }
            p.declared = address;
            p.failures = 0;
            touch(p);
            scheduleDial(p, 0);
        }
    }

    /** Stops dialling a peer and closes its links; false when it was not declared. */
    public boolean forget(String key) {
        List<MeshLink> close;
        synchronized (this) {
            Peer p = peers.get(key);
            if (p == null || p.declared == null) {
                return false;
            }
            peers.remove(key);
            p.removed = true;
            close = new ArrayList<>(p.open);
        }
        close.forEach(MeshLink::close);
        return true;
    }

    /** A declared peer is reached at {@code url} now (it said so, signed): later dials go there. */
    public synchronized void moved(String key, URI url) {
        Peer p = peers.get(key);
        if (p != null && p.declared != null && !p.declared.url().equals(url)) {
            LOG.infof("peer %s moved: %s -> %s", key, p.declared.url(), url);
            p.declared = new PeerAddress(p.declared.did(), url);
        }
    }

    /** Sends due heartbeats and ends links past their latency bound; the edge calls it often (every second, say). */
    public void tick() {
        List<Heartbeat> beats = new ArrayList<>();
        synchronized (this) {
            for (Peer p : peers.values()) {
                if (p.heartbeat != null) {
                    beats.add(p.heartbeat);
                }
            }
        }
        long now = nanoTime.getAsLong();
        for (Heartbeat h : beats) {
            try {
                h.tick(now);
            } catch (RuntimeException e) {
                LOG.warnf(e, "heartbeat failed");
            }
        }
    }

    /** Stops dialling and closes every link (shutdown). */
    public void stop() {
        List<MeshLink> close = new ArrayList<>();
        synchronized (this) {
            stopped = true;
            for (Peer p : peers.values()) {
                close.addAll(p.open);
            }
        }
        close.forEach(MeshLink::close);
    }

    /** Every peer, declared ones first in declaration order, then peers that linked to this node. */
    public List<View> view() {
        List<View> out = new ArrayList<>();
        synchronized (this) {
            for (Peer p : peers.values()) {
                out.add(viewOf(p));
            }
        }
        out.sort((a, b) -> Boolean.compare(b.declared(), a.declared()));
        return out;
    }

    /** One peer, by its key or its proven DID's short form (a metrics scrape asks this per peer). */
    public synchronized Optional<View> find(String key) {
        Peer p = peers.get(key);
        if (p == null) {
            p = peers.values().stream().filter(q -> q.peerKey().equals(key)).findFirst().orElse(null);
        }
        return p == null ? Optional.empty() : Optional.of(viewOf(p));
    }

    /** Under the lock. */
    private View viewOf(Peer p) {
        touch(p);
        return new View(p.key, p.peerKey(), p.declared != null, Optional.ofNullable(p.declared).map(PeerAddress::url),
                p.state, p.since, p.heartbeat == null ? Optional.empty() : p.heartbeat.rttMillis(), p.open.size(),
                p.link == null ? Optional.empty() : Optional.of(p.link.role()), p.duplicates, p.quarantinedUntil(),
                Optional.ofNullable(p.lastError));
    }

    /** Declared peers' keys. */
    public synchronized Set<String> declared() {
        Set<String> out = new HashSet<>();
        peers.values().stream().filter(p -> p.declared != null).forEach(p -> out.add(p.key));
        return out;
    }

    /**
     * The tie-break (docs/spec/mesh-link.md, "One link per pair"): of two authenticated links between the same two
     * nodes, keep the one whose initiator has the lower Ed25519 transport public key (32 bytes, compared unsigned);
     * of two with the same initiator, the one authenticated later (the initiator dialled again: the earlier one is
     * stale). True when {@code candidate}, authenticated after {@code kept}, replaces it.
     */
    public static boolean prefers(Multikey candidateInitiator, Multikey keptInitiator) {
        int c = Arrays.compareUnsigned(candidateInitiator.keyBytes(), keptInitiator.keyBytes());
        return c <= 0;
    }

    private Multikey initiatorOf(MeshLink link) {
        return link.role() == Role.INITIATOR ? self : link.peer().orElseThrow().transport();
    }

    private LinkSession open(MeshLink link, Optional<PeerAddress> dialled) {
        PeerIdentity id = link.peer().orElseThrow();
        Refusal refusal = null;
        MeshLink loser = null;
        Peer p = null;
        synchronized (this) {
            boolean handedOver = dialled.isPresent() && id.prior().isPresent()
                    && PeerAddress.keyOf(dialled.get().did()).equals(id.prior().get().priorKey());
            if (dialled.isPresent() && !dialled.get().matches(id) && !handedOver) {
                refusal = Refusal.of(Refusal.Kind.INVALID, "this node dialled " + dialled.get().key()
                        + ", the peer proved " + id.shortDid());
            } else if (retired.containsKey(id.shortDid())) {
                refusal = Refusal.of(Refusal.Kind.INVALID, id.shortDid() + " handed its keys over to "
                        + retired.get(id.shortDid()) + "; this node no longer links to it");
            } else if (stopped) {
                refusal = Refusal.of(Refusal.Kind.BUSY, "this node is stopping");
            } else {
                // not Optional.map: a dial that completes after its peer was forgotten must find no entry here,
                // not make an undeclared one (which nobody would close)
                p = dialled.isPresent() ? peers.get(dialled.get().key()) : entryFor(id);
                if (p != null && !p.removed && handedOver) {
                    p = rekey(p, id);
                }
                if (p == null || p.removed) {
                    refusal = Refusal.of(Refusal.Kind.BUSY, "this node no longer dials " + id.shortDid());
                    p = null;
                } else {
                    p.identity = id;
                    Optional<Instant> until = p.quarantinedUntil();
                    if (until.isPresent()) {
                        refusal = Refusal.of(Refusal.Kind.QUARANTINED, "until " + until.get() + "; this node quarantines "
                                + p.peerKey()); // the same opening as the session's (link-events.md)
                    } else {
                        p.open.add(link);
                        if (p.link == null || prefers(initiatorOf(link), initiatorOf(p.link))) {
                            loser = p.link;
                            keep(p, link);
                        } else {
                            refusal = Refusal.of(Refusal.Kind.DUPLICATE, "a link between these nodes is up already; "
                                    + "keeping the one its initiator's lower transport key dialled");
                        }
                        if (refusal != null || loser != null) {
                            p.duplicates++;
                        }
                    }
                    touch(p);
                }
            }
        }
        if (p != null) {
            link.traffic(traffic.apply(p.peerKey()));
        }
        if (loser != null) {
            MeshLink old = loser;
            LOG.infof("mesh: two links to %s; keeping the new one (%s), closing the older (%s)", id.shortDid(),
                    link.role(), old.role());
            timer.schedule(0, () -> old.end(Refusal.of(Refusal.Kind.DUPLICATE, "a link between these nodes is up "
                    + "already; keeping the one its initiator's lower transport key dialled")));
        }
        if (refusal != null) {
            LOG.infof("mesh: ending a link (%s) from %s: %s", link.role(), id.shortDid(), refusal);
            link.end(refusal);
            return p == null ? text -> {
            } : new Tracked(p, link, text -> {
            });
        }
        LinkSession session;
        try {
            session = inner.open(link);
        } catch (RuntimeException e) {
            LOG.errorf(e, "mesh: the session of the link to %s failed to open", id.shortDid());
            link.end(Refusal.of(Refusal.Kind.ERROR, "this node failed to open the link's session"));
            return new Tracked(p, link, text -> {
            });
        }
        Heartbeat beat = new Heartbeat(link, session, settings.heartbeatInterval(), settings.heartbeatTimeout(),
                nanoTime);
        synchronized (this) {
            if (p.link == link) {
                p.heartbeat = beat;
            }
        }
        LOG.infof("mesh: link up with %s (%s)", id.shortDid(), link.role());
        beat.tick(nanoTime.getAsLong()); // the first ping at once: an RTT figure as soon as the link is up
        return new Tracked(p, link, beat);
    }

    private void keep(Peer p, MeshLink link) {
        p.link = link;
        p.heartbeat = null;
        p.keptAt = nanoTime.getAsLong();
        p.lastError = null;
    }

    /** The entry of a peer that linked to this node: a declared one it matches, or a new undeclared one. */
    private Peer entryFor(PeerIdentity id) {
        if (id.prior().isPresent()) {
            Peer old = peers.get(id.prior().get().priorKey());
            if (old != null && old.declared != null && !old.removed && old.quarantinedUntil().isEmpty()) {
                return rekey(old, id); // a quarantined peer's hand-over does not lift its quarantine
            }
        }
        Peer p = peers.get(id.shortDid());
        if (p != null) {
            return p;
        }
        String byKey = DidKey.of(id.transport());
        p = peers.get(byKey);
        if (p != null) {
            return p;
        }
        p = new Peer(id.shortDid());
        peers.put(p.key, p);
        return p;
    }

    /**
     * Under the lock: a declared peer proved a new DID with a hand-over from the one it was declared under. Its entry
     * goes by the new DID from now on (the same URL, dialled again at once if no link is up), the old key is retired,
     * and the listener persists it. An entry the new DID already had (declared, or linked to this node) is kept.
     */
    private Peer rekey(Peer old, PeerIdentity id) {
        KeyHandover h = id.prior().orElseThrow();
        String newKey = id.shortDid();
        PeerAddress address = new PeerAddress(id.did(), old.declared.url());
        peers.remove(old.key);
        old.removed = true;
        Peer q = peers.get(newKey);
        if (q == null) {
            q = new Peer(newKey);
            peers.put(newKey, q);
        }
        if (q.declared == null) {
            q.declared = address;
        }
        q.failures = 0;
        retired.put(old.key, newKey);
        LOG.infof("mesh: peer %s handed its keys over to %s (hand-over dated %d); it is declared under the new DID now",
                old.key, newKey, h.issuedAt());
        try {
            rotations.accept(new Rotation(old.key, q.declared, h));
        } catch (RuntimeException e) {
            LOG.warnf(e, "mesh: recording the rotation of %s failed", old.key);
        }
        if (!old.open.isEmpty()) {
            List<MeshLink> stale = new ArrayList<>(old.open);
            timer.schedule(0, () -> stale.forEach(l -> l.end(Refusal.of(Refusal.Kind.INVALID,
                    old.key + " handed its keys over to " + newKey))));
        }
        return q;
    }

    /** An undeclared entry whose proven transport key is the one a did:key declaration names, re-keyed. */
    private Peer adopt(PeerAddress address) {
        for (Peer p : new ArrayList<>(peers.values())) {
            if (p.declared == null && p.identity != null && address.matches(p.identity)) {
                peers.remove(p.key);
                Peer q = new Peer(address.key());
                q.copyLinks(p);
                peers.put(q.key, q);
                return q;
            }
        }
        return null;
    }

    private void closed(Peer p, MeshLink link) {
        synchronized (this) {
            p.open.remove(link);
            if (p.link == link) {
                p.link = null;
                p.heartbeat = null;
                long lived = nanoTime.getAsLong() - p.keptAt;
                p.failures = lived < settings.stable().toNanos() ? p.failures + 1 : 0;
                p.lastError = link.peerError().map(r -> "ended by the peer: " + r).orElse("link closed");
                LOG.infof("mesh: link down with %s after %d ms", p.peerKey(), lived / 1_000_000);
            }
            if (p.declared == null && p.open.isEmpty() && !p.removed && peers.get(p.key) == p) {
                peers.remove(p.key); // undeclared peers are kept only while linked: their number stays bounded
            }
            touch(p);
            if (p.link == null) {
                scheduleDial(p, settings.backoff().delayMillis(p.failures, random));
            }
        }
    }

    /** Under the lock. Does nothing for an undeclared, linked, dialling or removed peer. */
    private void scheduleDial(Peer p, long delayMillis) {
        if (stopped || p.removed || p.declared == null || p.link != null || p.dialling) {
            return;
        }
        long delay = delayMillis;
        Optional<Instant> until = p.quarantinedUntil();
        if (until.isPresent()) {
            delay = Math.max(delay, Duration.between(clock.instant(), until.get()).toMillis() + 1);
        }
        long generation = ++p.generation;
        timer.schedule(delay, () -> dial(p, generation));
    }

    private void dial(Peer p, long generation) {
        PeerAddress address;
        synchronized (this) {
            if (stopped || p.removed || generation != p.generation || p.link != null || p.dialling
                    || p.declared == null) {
                return;
            }
            if (p.quarantinedUntil().isPresent()) {
                scheduleDial(p, 0);
                return;
            }
            p.dialling = true;
            address = p.declared;
            touch(p);
        }
        CompletionStage<MeshLink> stage;
        try {
            stage = dialler.dial(address, link -> open(link, Optional.of(address)));
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((link, failure) -> dialled(p, address, failure));
    }

    private void dialled(Peer p, PeerAddress address, Throwable failure) {
        synchronized (this) {
            p.dialling = false;
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                p.failures++;
                p.lastError = cause instanceof MeshRefusedException m ? m.refusal().toString() : cause.toString();
                LOG.debugf("mesh: dialling %s failed (%d in a row): %s", address, p.failures, p.lastError);
            }
            touch(p);
            if (p.link == null) {
                scheduleDial(p, settings.backoff().delayMillis(p.failures, random));
            }
        }
    }

    /** Under the lock: recomputes the state, and when it changed, since when. */
    private void touch(Peer p) {
        State now = p.quarantinedUntil().isPresent() ? State.QUARANTINED
                : p.link != null ? State.UP : p.dialling ? State.CONNECTING : State.DOWN;
        if (now != p.state) {
            p.state = now;
            p.since = clock.instant();
        }
    }

    /** One peer's entry. Guarded by the table's lock. */
    private final class Peer {
        final String key;
        PeerAddress declared;
        PeerIdentity identity;
        MeshLink link;
        Heartbeat heartbeat;
        final Set<MeshLink> open = new HashSet<>();
        long keptAt;
        int failures;
        boolean dialling;
        boolean removed;
        long generation;
        long duplicates;
        String lastError;
        State state = State.DOWN;
        Instant since = clock.instant();

        Peer(String key) {
            this.key = key;
        }

        String peerKey() {
            return identity == null ? key : identity.shortDid();
        }

        Optional<Instant> quarantinedUntil() {
            Optional<Instant> until = quarantine.until(peerKey());
            return until.filter(u -> u.isAfter(clock.instant()));
        }

        void copyLinks(Peer from) {
            identity = from.identity;
            link = from.link;
            heartbeat = from.heartbeat;
            open.addAll(from.open);
            keptAt = from.keptAt;
            duplicates = from.duplicates;
            from.removed = true;
        }
    }

    /** The session the link sees: the table learns of its close. */
    private final class Tracked implements LinkSession {
        private final Peer peer;
        private final MeshLink link;
        private final LinkSession session;

        Tracked(Peer peer, MeshLink link, LinkSession session) {
            this.peer = peer;
            this.link = link;
            this.session = session;
        }

        @Override
        public void receive(String text) {
            session.receive(text);
        }

        @Override
        public void closed() {
            try {
                session.closed();
            } finally {
                Peer p = peer;
                synchronized (PeerLinks.this) {
                    if (p.removed) {
                        p = peers.values().stream().filter(q -> q.open.contains(link)).findFirst().orElse(p);
                    }
                }
                PeerLinks.this.closed(p, link);
            }
        }
    }

}
