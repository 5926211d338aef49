package org.fleetmesh.shards;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import org.fleetmesh.delivery.PacedWire;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Negentropy;
import org.fleetmesh.negentropy.NegentropyException;
import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.peering.MeshErr;
import org.fleetmesh.peering.link.Carrier;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.PeerAccount;
import org.jboss.logging.Logger;

/**
 * Shard replication over {@code /mesh} (docs/spec/replication.md): on every link, for every shard this node declares,
 * this node reconciles its shard with the peer's (Negentropy v1, this node the initiator, for its own needs), asks
 * for the ids it lacks ({@code MESH-WANT}, at most {@code max-pending} outstanding) and the peer pushes them through
 * its delivery path, so custody receipts cover what moves; as the responder it answers the peer's sessions over
 * {@link LocalShards#snapshot} and pushes what the peer asks for through a {@link Pusher}. Passes run at link open,
 * every {@code interval} ({@link #tick()}), after the local shards change ({@link #shardsChanged()}), and again after
 * a pass that pulled anything. Pure: the shards, the push, the clock and the arrivals come in as values.
 */
public final class Replication implements Carrier.Carriers {
    private static final Logger LOG = Logger.getLogger(Replication.class);
    /** The largest Negentropy message this node reads (whatever frame size the peer chose): the link reads 1 MiB. */
    public static final int MAX_READ_BYTES = 262_144;
    /** Ids one MESH-WANT may hold. */
    public static final int MAX_WANT = 1000;
    /** A pass retries this soon after the peer's index was building or its session expired. */
    static final long RETRY_MILLIS = 5_000;
    /** A long pass (a rebuild) logs its progress this often. */
    static final long PROGRESS_MILLIS = 10_000;

    /**
     * The settings of {@code fleetmesh.replication.*} (docs/OPERATING.md).
     *
     * @param interval how often each shard is reconciled with each peer
     * @param wantBatch ids per MESH-WANT this node sends, at most (1..1000)
     * @param maxPending ids this node waits for per link (all shards), at most; twice as many pushed ids queue per peer
     * @param frameBytes the largest Negentropy message this node sends (bytes before hex, at least 4096)
     * @param wantTimeout a pass that receives none of the ids it asked for in this long gives up on them
     * @param grace an id found missing is asked for only after this long: live forwarding brings most of what a pass
     *        finds while events are being written, and what arrives meanwhile is not asked for
     */
    public record Settings(Duration interval, int wantBatch, int maxPending, int frameBytes, Duration wantTimeout,
            Duration grace, long replyBytesPerMinute) {
        public static final Settings DEFAULT = new Settings(Duration.ofSeconds(30), 1000, 10_000, 60_000,
                Duration.ofSeconds(60), Duration.ofSeconds(2), 16L << 20);

        /** Without a bound on the replies to a peer's sessions. */
        public Settings(Duration interval, int wantBatch, int maxPending, int frameBytes, Duration wantTimeout,
                Duration grace) {
            this(interval, wantBatch, maxPending, frameBytes, wantTimeout, grace, 0);
        }

        public Settings {
            Objects.requireNonNull(interval, "interval");
            Objects.requireNonNull(wantTimeout, "wantTimeout");
            Objects.requireNonNull(grace, "grace");
            if (grace.isNegative() || grace.compareTo(wantTimeout) >= 0) {
                throw new IllegalArgumentException("replication grace must be 0 or more and below want-timeout, not "
                        + grace.toMillis() + " ms");
            }
            if (interval.toMillis() < 1000 || wantTimeout.toMillis() < 1000) {
                throw new IllegalArgumentException("replication interval and want-timeout are at least 1 s");
            }
            if (wantBatch < 1 || wantBatch > MAX_WANT) {
                throw new IllegalArgumentException("replication want-batch must be 1.." + MAX_WANT + ", not "
                        + wantBatch);
            }
            if (maxPending < wantBatch) {
                throw new IllegalArgumentException("replication max-pending (" + maxPending
                        + ") must be at least want-batch (" + wantBatch + ")");
            }
            if (replyBytesPerMinute < 0) {
                throw new IllegalArgumentException("replication reply-bytes-per-minute must be 0 (no bound) or more,"
                        + " not " + replyBytesPerMinute);
            }
            if (frameBytes < Negentropy.MIN_FRAME_SIZE_LIMIT || frameBytes > MAX_READ_BYTES) {
                throw new IllegalArgumentException("replication frame-bytes must be " + Negentropy.MIN_FRAME_SIZE_LIMIT
                        + ".." + MAX_READ_BYTES + ", not " + frameBytes);
            }
        }
    }

    /** Sends a peer the events it asked for, through the delivery path ({@code Delivery.push}). */
    @FunctionalInterface
    public interface Pusher {
        /** Takes at most {@code maxPending} pushed ids pending for {@code peer}; returns how many of {@code ids}. */
        int push(String peer, List<EventId> ids, Filter within, int maxPending);
    }

    /** How a shard stands with one peer ({@code /mesh/status}). */
    public enum State {
        /** A pass is running. */
        SYNCING("syncing"),
        /** The last pass found nothing this node lacks. */
        SYNCED("synced"),
        /** The peer does not hold the shard (or holds another filter under its id). */
        REFUSED("refused"),
        /** No pass yet, or the last one could not get what it found missing: the next one is due. */
        IDLE("idle");

        private final String word;

        State(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    private final Settings settings;
    private final LocalShards shards;
    private final Pusher pusher;
    private final LongSupplier millis;
    private final Map<String, Link> links = new ConcurrentHashMap<>();
    /** Every id some pass asked for and waits for, node-wide: a second pass does not ask another peer for it. */
    private final Map<EventId, Pull> wanted = new HashMap<>();
    /** The shards some pass ended synced for since the start (guarded by this). */
    private final java.util.Set<String> synced = new java.util.HashSet<>();
    private volatile boolean closed;

    public Replication(Settings settings, LocalShards shards, Pusher pusher, LongSupplier millis) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.shards = Objects.requireNonNull(shards, "shards");
        this.pusher = Objects.requireNonNull(pusher, "pusher");
        this.millis = Objects.requireNonNull(millis, "millis");
    }

    public Settings settings() {
        return settings;
    }

    // ---- Carrier.Carriers ----

    @Override
    public Carrier open(EventLink.Wire wire, PeerAccount account) {
        if (closed || wire.peer().nostr().isEmpty()) {
            return null; // no delivery on such a link (delivery.md): nothing could be pushed
        }
        Link l = new Link(wire.peer().shortDid(), new PacedWire(wire, account.pacer()));
        Link before = links.put(l.peer, l);
        synchronized (this) {
            if (before != null) {
                before.drop();
            }
            l.sync(millis.getAsLong());
        }
        return l;
    }

    // ---- the node's calls ----

    /** Events were stored (or found already stored): the passes waiting for them go on. Any thread. */
    public void arrived(Collection<EventId> ids) {
        answered(ids, true);
    }

    /**
     * Events a peer sent were refused by this node's ingest (deleted here, expired, ...): the passes waiting for them
     * go on without them (they do not count as pulled, so no pass repeats for them at once).
     */
    public void refused(Collection<EventId> ids) {
        answered(ids, false);
    }

    private void answered(Collection<EventId> ids, boolean stored) {
        if (ids.isEmpty()) {
            return;
        }
        long now = millis.getAsLong();
        synchronized (this) {
            if (wanted.isEmpty()) {
                return;
            }
            List<Pull> moved = new ArrayList<>();
            for (EventId id : ids) {
                Pull p = wanted.remove(id);
                if (p != null) {
                    p.arrived(id, now, stored);
                    if (!moved.contains(p)) {
                        moved.add(p);
                    }
                }
            }
            // room on a link is shared by its shards: the others may ask now too
            List<Link> touched = new ArrayList<>();
            for (Pull p : moved) {
                if (!touched.contains(p.link)) {
                    touched.add(p.link);
                }
            }
            for (Link l : touched) {
                for (Pull p : new ArrayList<>(l.pulls.values())) {
                    p.pump(now);
                }
            }
        }
    }

    /** The clock: starts the passes that are due, gives up on asks that went unanswered. Call it every second. */
    public void tick() {
        long now = millis.getAsLong();
        synchronized (this) {
            for (Link l : links.values()) {
                for (Pull p : new ArrayList<>(l.pulls.values())) {
                    p.tick(now);
                }
            }
        }
        for (Link l : links.values()) {
            l.expireSessions(now);
        }
    }

    /** The local shard set changed (the admin API): every link reconciles the shards as they are now. */
    public void shardsChanged() {
        long now = millis.getAsLong();
        synchronized (this) {
            for (Link l : links.values()) {
                l.sync(now);
            }
        }
    }

    /**
     * Whether this node is still filling the shard from its peers: no pass for it has ended {@code synced} since the
     * start, and a link has a pass for it running or has not finished its first one. A restored node's claims of an
     * asserted shard wait for this (docs/spec/replication.md, "Claims while rebuilding").
     */
    public boolean rebuilding(String shardId) {
        synchronized (this) {
            if (synced.contains(shardId)) {
                return false;
            }
            for (Link l : links.values()) {
                for (Pull p : l.pulls.values()) {
                    if (p.shard.id().equals(shardId) && p.state != State.REFUSED
                            && (p.state == State.SYNCING || p.passes == 0)) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    /** Whether a pass for the shard has ended {@code synced} with some peer since the start. */
    public boolean syncedOnce(String shardId) {
        synchronized (this) {
            return synced.contains(shardId);
        }
    }

    /** The {@code shards} status of {@code peer}'s link: one object per shard; nothing without an open link. */
    public void describe(String peer, Map<String, Object> into) {
        Link l = links.get(org.fleetmesh.peering.PeerIdentity.shortForm(peer));
        if (l == null) {
            return;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        synchronized (this) {
            for (Pull p : l.pulls.values()) {
                out.put(p.shard.id(), p.describe());
            }
        }
        into.put("shards", out);
    }

    /** Ends every pass; links opened later get no carrier. */
    public void close() {
        closed = true;
        synchronized (this) {
            for (Link l : links.values()) {
                l.drop();
            }
            links.clear();
            wanted.clear();
        }
    }

    /** For tests: ids asked for and not yet arrived, node-wide. */
    synchronized int wantedSize() {
        return wanted.size();
    }

    /** For tests: ids asked of {@code peer} and not yet arrived. */
    synchronized int asked(String peer) {
        Link l = links.get(peer);
        return l == null ? 0 : l.asked();
    }

    /** For tests: responder sessions open on {@code peer}'s link. */
    int responding(String peer) {
        Link l = links.get(peer);
        if (l == null) {
            return 0;
        }
        synchronized (l) {
            return l.responding.size();
        }
    }

    // ---- one link ----

    private final class Link implements Carrier {
        final String peer;
        final EventLink.Wire wire;
        /** This node's responder session per shard id (at most one per declared shard): the peer's pulls. */
        final Map<String, Session> responding = new HashMap<>();
        /** This node's pull per shard id (under the Replication's lock). */
        final Map<String, Pull> pulls = new LinkedHashMap<>();
        volatile boolean gone;
        /**
         * What the replies to the peer's sessions may still take (characters): a minute's worth of
         * {@code replyBytesPerMinute} at most, refilled at that rate. A 49-byte MESH-NEG-OPEN can draw a reply of
         * twice {@code frameBytes}: without it a peer of any tier could make this node send 2,400 times what it sent.
         */
        private double replyAllowance = settings.replyBytesPerMinute();
        private long refilledAt = millis.getAsLong();

        Link(String peer, EventLink.Wire wire) {
            this.peer = peer;
            this.wire = wire;
        }

        /** Under this link's lock: the refusal of a session while the allowance is spent, with the wait. */
        private String overBudget(String shard) {
            long waitSeconds = (long) Math.ceil(-replyAllowance / (settings.replyBytesPerMinute() / 60.0)) + 1;
            return NegMessages.err(shard, "rate-limited: the replies to your sessions on this link are at most "
                    + settings.replyBytesPerMinute() + " bytes a minute; open again in " + waitSeconds + " s");
        }

        /** Under this link's lock: whether a reply may go now (the allowance is not spent). */
        private boolean mayReply(long now) {
            long perMinute = settings.replyBytesPerMinute();
            if (perMinute <= 0) {
                return true;
            }
            replyAllowance = Math.min(perMinute, replyAllowance + (now - refilledAt) * (perMinute / 60_000.0));
            refilledAt = now;
            return replyAllowance > 0;
        }

        /** Pulls for the shards declared now (new ones start at once); pulls of shards gone end. */
        void sync(long now) {
            Map<String, Shard> declared = new LinkedHashMap<>();
            for (Shard s : shards.shards()) {
                declared.put(s.id(), s);
            }
            for (Iterator<Pull> it = pulls.values().iterator(); it.hasNext();) {
                Pull p = it.next();
                Shard s = declared.get(p.shard.id());
                if (s == null || !s.equals(p.shard)) {
                    p.end(now, "the shard changed here");
                    it.remove();
                }
            }
            for (Shard s : declared.values()) {
                Pull p = pulls.get(s.id());
                if (p == null) {
                    p = new Pull(this, s);
                    pulls.put(s.id(), p);
                }
                p.due(now);
            }
        }

        /** Ids this node's passes on this link asked for and wait for (under the Replication's lock). */
        int asked() {
            int n = 0;
            for (Pull p : pulls.values()) {
                n += p.asked.size();
            }
            return n;
        }

        void drop() {
            gone = true;
            long now = millis.getAsLong();
            for (Pull p : pulls.values()) {
                p.end(now, null);
            }
            pulls.clear();
            synchronized (this) {
                responding.clear();
            }
        }

        @Override
        public void closed() {
            links.remove(peer, this);
            synchronized (Replication.this) {
                drop();
            }
        }

        @Override
        public void suspended() {
            // the peer suspended its grant: nothing more is sent on this link, not even a MESH-WANT
            synchronized (Replication.this) {
                drop();
            }
        }

        @Override
        public void frame(long seq, String headerJson, List<String> events, long bytes) {
            // frames go to the first carrier of the link (delivery), never here
            LOG.debugf("a frame from %s reached shard replication; ignored", peer);
        }

        @Override
        public boolean receive(String type, String text) {
            if (!NegMessages.TYPES.contains(type)) {
                return false;
            }
            if (gone) {
                return true; // suspended: nothing more is sent on this link
            }
            try {
                switch (type) {
                    case NegMessages.OPEN -> respondOpen(NegMessages.parseOpen(text, MAX_READ_BYTES, ShardFilter.LIMITS));
                    case NegMessages.MSG -> respondMsg(NegMessages.parseMsg(text, NegMessages.MSG, MAX_READ_BYTES));
                    case NegMessages.CLOSE -> {
                        String id = NegMessages.parseClose(text);
                        synchronized (this) {
                            responding.remove(id);
                        }
                    }
                    case NegMessages.WANT -> want(NegMessages.parseWant(text, MAX_WANT));
                    case NegMessages.REPLY -> {
                        NegMessages.Msg m = NegMessages.parseMsg(text, NegMessages.REPLY, MAX_READ_BYTES);
                        long now = millis.getAsLong();
                        synchronized (Replication.this) {
                            Pull p = pulls.get(m.shard());
                            if (p != null) {
                                p.reply(m.message(), now);
                            }
                        }
                    }
                    case NegMessages.ERR -> {
                        NegMessages.Err e = NegMessages.parseErr(text);
                        long now = millis.getAsLong();
                        synchronized (Replication.this) {
                            Pull p = pulls.get(e.shard());
                            if (p != null) {
                                p.refused(e.reason(), now);
                            }
                        }
                    }
                    default -> {
                        return false;
                    }
                }
            } catch (NegMessages.Unreadable e) {
                wire.send(new MeshErr(e.getMessage()).encode());
                wire.violation();
            }
            return true;
        }

        // ---- responder ----

        private void respondOpen(NegMessages.Open o) {
            Optional<Shard> s = shards.shard(o.shard());
            if (s.isEmpty()) {
                wire.send(NegMessages.err(o.shard(), "blocked: this node does not declare shard " + o.shard()));
                return;
            }
            String here = ShardFilter.canonicalJson(s.get().filter());
            if (!here.equals(ShardFilter.canonicalJson(o.filter()))) {
                wire.send(NegMessages.err(o.shard(), "blocked: shard " + o.shard() + " has another filter here: "
                        + here));
                return;
            }
            synchronized (this) {
                if (!mayReply(millis.getAsLong())) { // before the snapshot: a refused open costs nothing more
                    responding.remove(o.shard());
                    wire.send(overBudget(o.shard()));
                    return;
                }
            }
            Optional<Storage> snapshot = shards.snapshot(o.shard());
            if (snapshot.isEmpty()) {
                wire.send(NegMessages.err(o.shard(), "rate-limited: index building"));
                return;
            }
            Session session = new Session(new Negentropy(snapshot.get(), settings.frameBytes()));
            synchronized (this) {
                responding.put(o.shard(), session); // a reopen replaces the session
                answer(o.shard(), session, o.message());
            }
        }

        private void respondMsg(NegMessages.Msg m) {
            synchronized (this) {
                Session session = responding.get(m.shard());
                if (session == null) {
                    wire.send(NegMessages.err(m.shard(), "closed: no open session for shard " + m.shard()));
                    return;
                }
                answer(m.shard(), session, m.message());
            }
        }

        /** Under this link's lock: the reply, or NEG-ERR and the session ends. */
        private void answer(String shard, Session session, byte[] message) {
            long now = millis.getAsLong();
            if (!mayReply(now)) {
                responding.remove(shard);
                wire.send(overBudget(shard));
                return;
            }
            byte[] out;
            try {
                out = session.negentropy.reconcile(message);
                session.used = millis.getAsLong();
            } catch (NegentropyException e) {
                responding.remove(shard);
                wire.send(NegMessages.err(shard, "invalid: " + e.getMessage()));
                return;
            }
            String reply = NegMessages.reply(shard, out);
            replyAllowance -= reply.length();
            wire.send(reply);
        }

        private void want(NegMessages.Want w) {
            Optional<Shard> s = shards.shard(w.shard());
            if (s.isEmpty()) {
                wire.send(NegMessages.err(w.shard(), "blocked: this node does not declare shard " + w.shard()));
                return;
            }
            // twice what a pass waits for: what arrived there and awaits its receipt here still counts
            int room = 2 * settings.maxPending();
            int taken = pusher.push(peer, w.ids(), s.get().filter(), room);
            if (taken < w.ids().size()) {
                wire.send(new MeshErr("rate-limited: " + room
                        + " pushed events wait for their receipts; " + (w.ids().size() - taken)
                        + " ids of this MESH-WANT were not taken, ask again later").encode());
            }
        }

        /** Drops responder sessions the peer left idle for longer than a pass may wait. */
        void expireSessions(long now) {
            long idle = Math.max(2 * settings.wantTimeout().toMillis(), settings.interval().toMillis());
            synchronized (this) {
                responding.values().removeIf(x -> now - x.used > idle);
            }
        }
    }

    /** A responder session: the Negentropy over the snapshot taken at its MESH-NEG-OPEN. */
    private final class Session {
        final Negentropy negentropy;
        long used = millis.getAsLong();

        Session(Negentropy negentropy) {
            this.negentropy = negentropy;
        }
    }

    /** An id found missing, and when. */
    private record Found(EventId id, long at) {
    }

    // ---- one pull: this node the initiator for one shard on one link (under the Replication's lock) ----

    private final class Pull {
        final Link link;
        final Shard shard;
        State state = State.IDLE;
        String reason;
        long passes;
        long pulled;
        long lastSync = -1;
        long nextPassAt;
        // the current pass
        Negentropy negentropy;
        /** The next Negentropy message, held while the ids found so far wait to be asked for. */
        byte[] held;
        boolean awaitingReply;
        boolean reconciled;
        /** Ids found missing in this pass, oldest first; those no longer this pull's in {@code wanted} arrived. */
        final ArrayDeque<Found> toWant = new ArrayDeque<>();
        /** Ids found and not yet asked for (that have not arrived). */
        int unasked;
        /** Ids asked for and not yet arrived. */
        final java.util.Set<EventId> asked = new java.util.HashSet<>();
        /** Ids found missing that arrived before they were asked for (live forwarding brought them). */
        long early;
        /** Ids found missing that another peer's pass was waiting for already. */
        long deferred;
        long found;
        long passPulled;
        long missed;
        long refusedHere;
        long passStarted;
        long reportedAt;
        /** The last time the pass moved (a reply, an arrival): a pass that stands still for want-timeout ends. */
        long progressAt;

        Pull(Link link, Shard shard) {
            this.link = link;
            this.shard = shard;
        }

        void due(long now) {
            nextPassAt = now;
            if (state != State.SYNCING) {
                start(now);
            }
        }

        void tick(long now) {
            if (state == State.SYNCING) {
                if (now - progressAt >= settings.wantTimeout().toMillis()) {
                    finish(now, "no progress for " + settings.wantTimeout().toSeconds() + " s");
                } else if (now - reportedAt >= PROGRESS_MILLIS) {
                    reportedAt = now;
                    LOG.infof("replication of shard %s with %s: pass %d running for %d s, %d found missing here so far,"
                            + " %d pulled, %d asked for and waited for", shard.id(), link.peer, passes + 1,
                            (now - passStarted) / 1000, found, passPulled, asked.size() + unasked);
                }
                pump(now); // ids whose grace ended
                return;
            }
            if (now >= nextPassAt) {
                start(now);
            }
        }

        private void start(long now) {
            if (link.gone) {
                return;
            }
            Optional<Storage> snapshot = shards.snapshot(shard.id());
            if (snapshot.isEmpty()) {
                state = State.IDLE;
                reason = "the local index is building";
                nextPassAt = now + RETRY_MILLIS;
                return;
            }
            negentropy = new Negentropy(snapshot.get(), settings.frameBytes());
            byte[] first = negentropy.initiate();
            state = State.SYNCING;
            reason = null;
            held = null;
            reconciled = false;
            toWant.clear();
            early = 0;
            deferred = 0;
            found = 0;
            passPulled = 0;
            missed = 0;
            refusedHere = 0;
            passStarted = now;
            reportedAt = now;
            progressAt = now;
            awaitingReply = true;
            link.wire.send(NegMessages.open(shard, first));
        }

        void reply(byte[] message, long now) {
            if (state != State.SYNCING || !awaitingReply || negentropy == null) {
                return;
            }
            awaitingReply = false;
            progressAt = now;
            byte[] next;
            try {
                next = negentropy.reconcile(message);
            } catch (NegentropyException e) {
                link.wire.send(NegMessages.close(shard.id()));
                finish(now, "the peer's reply does not read: " + e.getMessage());
                return;
            }
            for (Id id : negentropy.needIds()) {
                EventId e = new EventId(id.toBytes());
                found++;
                Pull owner = wanted.get(e);
                if (owner == null) {
                    wanted.put(e, this);
                    toWant.add(new Found(e, now));
                    unasked++;
                } else if (owner != this) {
                    deferred++; // another peer's pass waits for it already
                }
            }
            negentropy.forgetFound();
            if (next == null) {
                reconciled = true;
                link.wire.send(NegMessages.close(shard.id()));
            } else {
                held = next;
            }
            pump(now);
        }

        void refused(String why, long now) {
            if (state != State.SYNCING) {
                return;
            }
            awaitingReply = false;
            abandonWants();
            negentropy = null;
            held = null;
            reason = why;
            if (why.startsWith("rate-limited:") || why.startsWith("closed:")) {
                state = State.IDLE;
                nextPassAt = now + RETRY_MILLIS;
            } else {
                state = State.REFUSED;
                nextPassAt = now + settings.interval().toMillis();
            }
            LOG.debugf("replication of shard %s with %s refused: %s", shard.id(), link.peer, why);
        }

        void arrived(EventId id, long now, boolean stored) {
            progressAt = now;
            if (!asked.remove(id)) {
                unasked--;
                early++;
            } else if (stored) {
                pulled++;
                passPulled++;
            } else {
                refusedHere++;
            }
        }

        /** Asks for what fits, continues the reconciliation when there is room, ends the pass when all is in. */
        void pump(long now) {
            if (state != State.SYNCING || link.gone) {
                return;
            }
            long grace = settings.grace().toMillis();
            boolean young = false;
            // max-pending bounds the link, all its shards together: the peer's push queue is per peer
            int linkAsked = link.asked();
            while (unasked > 0 && linkAsked < settings.maxPending() && !young) {
                int room = Math.min(settings.wantBatch(), settings.maxPending() - linkAsked);
                List<EventId> batch = new ArrayList<>(room);
                while (batch.size() < room && !toWant.isEmpty()) {
                    Found f = toWant.peek();
                    if (wanted.get(f.id()) != this) {
                        toWant.poll(); // it arrived meanwhile
                        continue;
                    }
                    if (now - f.at() < grace) {
                        young = true; // the rest were found later still
                        break;
                    }
                    toWant.poll();
                    asked.add(f.id());
                    unasked--;
                    batch.add(f.id());
                }
                if (batch.isEmpty()) {
                    break;
                }
                linkAsked += batch.size();
                link.wire.send(NegMessages.want(shard.id(), batch));
            }
            if (held != null && !awaitingReply && asked.size() + unasked < settings.maxPending()) {
                byte[] m = held;
                held = null;
                awaitingReply = true;
                link.wire.send(NegMessages.msg(shard.id(), m));
            }
            if (reconciled && unasked == 0 && asked.isEmpty()) {
                finish(now, null);
            }
        }

        /** Ends the pass: all in, or given up ({@code why}). */
        private void finish(long now, String why) {
            if (awaitingReply) {
                // a reply that comes after all reaches the next pass, fails to reconcile or misleads it once: the pass
                // after that starts clean (Negentropy finds what one pass missed)
                link.wire.send(NegMessages.close(shard.id()));
            }
            awaitingReply = false;
            long lacking = unasked + asked.size();
            abandonWants();
            missed += lacking;
            negentropy = null;
            held = null;
            passes++;
            // a pass that found nothing is the steady state: logged at debug, the others at info
            LOG.logf(found == 0 && why == null ? Logger.Level.DEBUG : Logger.Level.INFO,
                    "replication of shard %s with %s: pass %d found %d missing here, pulled %d%s%s%s%s in %d ms",
                    shard.id(), link.peer, passes, found, passPulled,
                    early == 0 ? "" : ", " + early + " came by another way",
                    deferred == 0 ? "" : ", " + deferred + " asked of another peer",
                    refusedHere == 0 ? "" : ", " + refusedHere + " refused here",
                    why == null ? "" : ", " + missed + " not received (" + why + ")", now - passStarted);
            if (why == null || passPulled > 0) {
                lastSync = now;
            }
            if (why == null && passPulled == 0 && refusedHere == 0 && deferred == 0) {
                // nothing was missing, or what was came another way (live forwarding)
                state = State.SYNCED;
                synced.add(shard.id());
                reason = null;
                nextPassAt = now + settings.interval().toMillis();
            } else if (passPulled > 0) {
                state = State.IDLE;
                start(now); // it pulled something: again at once, until a pass pulls nothing
            } else if (why == null && refusedHere == 0) {
                // another peer's pass brings what this one found: look again soon, synced once it has
                state = State.IDLE;
                reason = deferred + " asked of another peer";
                nextPassAt = now + RETRY_MILLIS;
            } else {
                state = State.IDLE;
                reason = why != null ? why : refusedHere + " refused by this node's ingest";
                nextPassAt = now + settings.interval().toMillis();
            }
        }

        /** The link or the shard is gone: forgets the pass. */
        void end(long now, String why) {
            abandonWants();
            negentropy = null;
            held = null;
            state = State.IDLE;
            reason = why;
        }

        private void abandonWants() {
            if (unasked > 0 || !asked.isEmpty()) {
                wanted.values().removeIf(p -> p == this);
            }
            toWant.clear();
            asked.clear();
            unasked = 0;
        }

        Map<String, Object> describe() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("state", state.word());
            m.put("passes", passes);
            m.put("pulled", pulled);
            m.put("need", state == State.SYNCING ? (long) unasked + asked.size() : missed);
            m.put("last_sync", lastSync < 0 ? null : lastSync / 1000);
            if (reason != null) {
                m.put("reason", reason);
            }
            return m;
        }
    }
}
