package org.fleetmesh.relay;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

/**
 * The NIP-01 relay: it reads client messages, validates and stores events through group commit,
 * answers REQ and COUNT from the store, and fans new events out to live subscriptions. It knows
 * nothing of sockets; a {@link Connection} is all it needs, so it can be driven directly in tests.
 */
public final class Relay implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Relay.class);
    /** NIP-42 AUTH events: never stored or broadcast. */
    static final int AUTH_KIND = Ingest.AUTH_KIND;

    private final EventStore store;
    private final RelayLimits limits;
    private final MessageParser parser;
    private final LongSupplier nowSeconds;
    private final Ingest ingest;
    private final ThreadPoolExecutor queries;
    private final ScheduledExecutorService housekeeping;
    /** Kinds served only to their author or a {@code p}-tagged recipient who has authenticated. */
    static final Set<Integer> PRIVATE_KINDS = Set.of(4, 13, 1059);

    private final Map<String, ClientState> connections = new ConcurrentHashMap<>();
    private final RelayPolicy policy;

    public Relay(EventStore store, RelayLimits limits, int queryThreads, LongSupplier nowSeconds) {
        this(store, limits, RelayPolicy.OPEN, queryThreads, nowSeconds);
    }

    public Relay(EventStore store, RelayLimits limits, RelayPolicy policy, int queryThreads, LongSupplier nowSeconds) {
        this.store = store;
        this.limits = limits;
        this.policy = policy;
        this.parser = new MessageParser(limits.parserLimits());
        this.nowSeconds = nowSeconds;
        this.ingest = new Ingest(store, limits, policy, nowSeconds, new Ingest.FanOutSink() {
            @Override
            public void committed(List<Event> events) {
                events.forEach(Relay.this::broadcast);
            }

            @Override
            public boolean ephemeral(Event event) {
                broadcast(event);
                return true;
            }
        });
        AtomicInteger n = new AtomicInteger();
        this.queries = new ThreadPoolExecutor(queryThreads, queryThreads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(4096), r -> {
                    Thread t = new Thread(r, "fleetmesh-query-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-housekeeping");
            t.setDaemon(true);
            return t;
        });
        housekeeping.scheduleWithFixedDelay(this::purgeExpired, 60, 60, TimeUnit.SECONDS);
        housekeeping.scheduleWithFixedDelay(this::closeIdleNegSessions, 5, 5, TimeUnit.SECONDS);
        store.onForeignEvents(this::foreignEvents);
    }

    public RelayLimits limits() {
        return limits;
    }

    private volatile LiveIndexes liveIndexes;
    private java.util.concurrent.ScheduledExecutorService indexer;

    /**
     * Keeps Negentropy fingerprint trees for {@code filters} in step with the store (NIP-77 sessions on
     * exactly one of these filters then skip the per-session snapshot), built now in the background and
     * rebuilt every {@code rebuildEvery} (0: never) to pick up removals made by other nodes sharing the
     * database. Returns false if the store has no change feed.
     */
    public synchronized boolean enableLiveIndexes(List<Filter> filters, List<String> labels, java.time.Duration rebuildEvery) {
        if (filters.isEmpty() || liveIndexes != null) {
            return false;
        }
        LiveIndexes ix = new LiveIndexes(store, filters, labels, nowSeconds);
        if (!ix.attach()) {
            LOG.warn("the store reports no changes: NIP-77 sessions snapshot their filter each time");
            return false;
        }
        liveIndexes = ix;
        indexer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-negentropy-index");
            t.setDaemon(true);
            return t;
        });
        Runnable build = () -> {
            try {
                ix.rebuild();
            } catch (RuntimeException e) {
                LOG.error("building the negentropy indexes failed; sessions use per-session snapshots", e);
            }
        };
        if (rebuildEvery.isZero()) {
            indexer.execute(build);
        } else {
            indexer.scheduleWithFixedDelay(build, 0, rebuildEvery.toSeconds(), TimeUnit.SECONDS);
        }
        return true;
    }

    /** For tests and metrics: the number of items in live index {@code i}, or -1 while it is being built. */
    public int liveIndexSize(int i) {
        LiveIndexes ix = liveIndexes;
        return ix == null || i >= ix.count() ? -1 : ix.size(i);
    }

    /** How many NIP-77 sessions were served from a live index (the rest snapshot their filter). */
    public long negSessionsFromLiveIndex() {
        return negFromIndex.get();
    }

    private final java.util.concurrent.atomic.AtomicLong negFromIndex = new java.util.concurrent.atomic.AtomicLong();

    public boolean isHealthy() {
        return ingest.isHealthy() && store.isHealthy();
    }

    public int connectionCount() {
        return connections.size();
    }

    public RelayPolicy policy() {
        return policy;
    }

    /** A new connection gets its NIP-42 challenge at once. */
    public void opened(Connection c) {
        ClientState state = new ClientState(c);
        connections.put(c.id(), state);
        c.send(RelayMessages.auth(state.challenge));
    }

    public void closed(Connection c) {
        ClientState state = connections.remove(c.id());
        if (state != null) {
            state.subscriptions.values().forEach(Subscription::cancel);
        }
    }

    /** Handles one text frame from a client. Never throws: every problem becomes an answer. */
    public void handle(Connection c, String text) {
        if (text.length() > limits.maxMessageLength()) {
            c.send(RelayMessages.notice("invalid: message too large (at most " + limits.maxMessageLength() + " characters)"));
            return;
        }
        ClientMessage m;
        try {
            m = parser.parse(text);
        } catch (ProtocolException e) {
            refuse(c, e);
            return;
        }
        ClientState state = connections.get(c.id());
        if (state == null) {
            return; // closed meanwhile
        }
        try {
            if (m instanceof ClientMessage.EventMessage em) {
                onEvent(state, em.event());
            } else if (m instanceof ClientMessage.Req req) {
                onReq(state, req);
            } else if (m instanceof ClientMessage.Count count) {
                onCount(state, count);
            } else if (m instanceof ClientMessage.Close close) {
                onClose(state, close.subscriptionId());
            } else if (m instanceof ClientMessage.Auth auth) {
                onAuth(state, auth.event());
            } else if (m instanceof ClientMessage.NegOpen open) {
                onNegOpen(state, open);
            } else if (m instanceof ClientMessage.NegMsg msg) {
                onNegMsg(state, msg);
            } else if (m instanceof ClientMessage.NegClose close) {
                state.negSessions.remove(close.subscriptionId());
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "handling a %s message failed", m.getClass().getSimpleName());
            c.send(RelayMessages.notice("error: internal error while handling the message"));
        }
    }

    private static void refuse(Connection c, ProtocolException e) {
        String verb = e.verb();
        if (("EVENT".equals(verb) || "AUTH".equals(verb)) && e.eventId() != null) {
            c.send(RelayMessages.ok(e.eventId(), false, e.getMessage()));
        } else if (("REQ".equals(verb) || "COUNT".equals(verb)) && e.subscriptionId() != null) {
            c.send(RelayMessages.closed(e.subscriptionId(), e.getMessage()));
        } else if (verb != null && verb.startsWith("NEG-") && e.subscriptionId() != null) {
            c.send(RelayMessages.negErr(e.subscriptionId(), e.getMessage()));
        } else {
            c.send(RelayMessages.notice(e.getMessage()));
        }
    }

    // ---- EVENT

    private void onEvent(ClientState state, Event e) {
        Connection c = state.connection;
        ingest.submit(List.of(e), new Origin.Client(c.id(), state.authenticated))
                .thenAccept(outcomes -> c.send(outcomes.get(0).okMessage()));
    }

    // ---- AUTH (NIP-42)

    private void onAuth(ClientState state, Event e) {
        String refusal = authEventRefusal(state, e);
        if (refusal != null) {
            state.connection.send(RelayMessages.ok(e.id().hex(), false, refusal));
            return;
        }
        state.authenticated.add(e.pubkey());
        state.connection.send(RelayMessages.ok(e.id().hex(), true, ""));
    }

    private String authEventRefusal(ClientState state, Event e) {
        if (e.kind() != AUTH_KIND) {
            return "invalid: an AUTH event must be kind 22242";
        }
        String authentic = Events.verify(e);
        if (authentic != null) {
            return authentic;
        }
        if (!state.challenge.equals(e.firstTagValue("challenge"))) {
            return "invalid: the challenge tag does not match this connection's challenge";
        }
        long now = nowSeconds.getAsLong();
        if (Math.abs(e.createdAt() - now) > policy.authWindowSeconds()) {
            return "invalid: the AUTH event's created_at is more than " + policy.authWindowSeconds()
                    + " seconds from now";
        }
        String relay = e.firstTagValue("relay");
        if (relay == null || !RelayUrls.sameRelay(relay, policy.relayUrl(), state.connection.host())) {
            return "invalid: the AUTH event names another relay";
        }
        return null;
    }

    /** Kinds 4, 13 and 1059 go only to their author or an authenticated p-tagged recipient. */
    static boolean visibleTo(Event e, Set<org.fleetmesh.nostr.PubKey> authenticated) {
        if (!PRIVATE_KINDS.contains(e.kind())) {
            return true;
        }
        if (authenticated.isEmpty()) {
            return false;
        }
        if (authenticated.contains(e.pubkey())) {
            return true;
        }
        for (List<String> t : e.tags()) {
            if (t.size() >= 2 && t.get(0).equals("p")) {
                for (org.fleetmesh.nostr.PubKey k : authenticated) {
                    if (k.hex().equals(t.get(1))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Cheap test on the stored wire form, which always writes {@code ,"kind":N,}. */
    private static boolean mayBePrivate(String json) {
        return json.contains(",\"kind\":4,") || json.contains(",\"kind\":13,") || json.contains(",\"kind\":1059,");
    }

    /** Sends an event to every live subscription that matches it. */
    void broadcast(Event e) {
        boolean isPrivate = PRIVATE_KINDS.contains(e.kind());
        for (ClientState state : connections.values()) {
            if (isPrivate && !visibleTo(e, state.authenticated)) {
                continue;
            }
            for (Subscription s : state.subscriptions.values()) {
                if (s.matches(e)) {
                    try {
                        s.offerLive(e);
                    } catch (RuntimeException ex) {
                        LOG.warnf("sending to subscription %s failed: %s", s.id, ex.toString());
                    }
                }
            }
        }
    }

    private void foreignEvents(List<String> jsons) {
        for (String json : jsons) {
            try {
                Event e = parser.parseEvent(json);
                LiveIndexes ix = liveIndexes;
                if (ix != null) {
                    ix.foreign(List.of(e));
                }
                Long exp = e.expiration();
                if (exp == null || exp > nowSeconds.getAsLong()) {
                    broadcast(e);
                }
            } catch (ProtocolException ex) {
                LOG.warnf("a sibling node announced an unreadable event: %s", ex.getMessage());
            }
        }
    }

    // ---- REQ / CLOSE / COUNT

    private String readRefusal(ClientState state, List<Filter> filters) {
        if (state.isAuthenticated()) {
            return null;
        }
        if (policy.authRequiredReads()) {
            return "auth-required: this relay serves only authenticated clients";
        }
        for (Filter f : filters) {
            if (f.kinds() == null || !PRIVATE_KINDS.containsAll(f.kinds())) {
                return null;
            }
        }
        return "auth-required: direct messages and gift wraps are served only to their authenticated recipients";
    }

    private void onReq(ClientState state, ClientMessage.Req req) {
        Connection c = state.connection;
        Map<String, Subscription> subs = state.subscriptions;
        String refusal = readRefusal(state, req.filters());
        if (refusal != null) {
            Subscription old = subs.remove(req.subscriptionId());
            if (old != null) {
                old.cancel();
            }
            c.send(RelayMessages.closed(req.subscriptionId(), refusal));
            return;
        }
        if (subs.size() >= limits.maxSubscriptions() && !subs.containsKey(req.subscriptionId())) {
            c.send(RelayMessages.closed(req.subscriptionId(),
                    "rate-limited: too many open subscriptions (at most " + limits.maxSubscriptions() + ")"));
            return;
        }
        List<Filter> filters = req.filters().stream()
                .map(f -> f.limit() == null ? f.withLimit(defaultLimitFor(f)) : f)
                .toList();
        Subscription sub = new Subscription(req.subscriptionId(), filters, c);
        Subscription old = subs.put(sub.id, sub);
        if (old != null) {
            old.cancel(); // a reused id replaces the old subscription
        }
        try {
            queries.execute(() -> sendStored(state, sub));
        } catch (RejectedExecutionException e) {
            subs.remove(sub.id, sub);
            sub.cancel();
            c.send(RelayMessages.closed(sub.id, "rate-limited: the relay is busy; try again shortly"));
        }
    }

    private void sendStored(ClientState state, Subscription sub) {
        Connection c = state.connection;
        Map<String, Subscription> subs = state.subscriptions;
        Set<EventId> sent = new HashSet<>();
        long now = nowSeconds.getAsLong();
        try {
            for (Filter f : sub.filters) {
                if (sub.isCancelled()) {
                    return;
                }
                if (f.matchesNothingStored()) {
                    continue;
                }
                store.query(f, now, (id, json) -> {
                    if (sub.isCancelled()) {
                        return false;
                    }
                    if (mayBePrivate(json) && !visiblePrivate(json, state)) {
                        return true;
                    }
                    if (sent.add(id)) {
                        return c.send(RelayMessages.event(sub.id, json));
                    }
                    return true;
                });
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "query for subscription %s failed", sub.id);
            if (subs.remove(sub.id, sub)) {
                sub.cancel();
                c.send(RelayMessages.closed(sub.id, "error: could not read stored events"));
            }
            return;
        }
        sub.storedPhaseDone(sent);
    }

    private boolean visiblePrivate(String json, ClientState state) {
        try {
            return visibleTo(parser.parseEvent(json), state.authenticated);
        } catch (ProtocolException e) {
            LOG.warnf("unreadable stored event: %s", e.getMessage());
            return false;
        }
    }

    private void onClose(ClientState state, String subscriptionId) {
        Subscription s = state.subscriptions.remove(subscriptionId);
        if (s != null) {
            s.cancel();
        }
    }

    private void onCount(ClientState state, ClientMessage.Count count) {
        Connection c = state.connection;
        String refusal = readRefusal(state, count.filters());
        if (refusal != null) {
            c.send(RelayMessages.closed(count.subscriptionId(), refusal));
            return;
        }
        try {
            queries.execute(() -> {
                long now = nowSeconds.getAsLong();
                try {
                    long n;
                    if (count.filters().size() == 1) {
                        Filter f = count.filters().get(0).withLimit(null);
                        n = f.matchesNothingStored() ? 0 : store.count(f, now) - hiddenPrivate(state, f, now).size();
                    } else {
                        // several filters count their union once, so overlapping events are not counted twice
                        Set<EventId> ids = new HashSet<>();
                        Set<EventId> hidden = new HashSet<>();
                        for (Filter f : count.filters()) {
                            Filter all = f.withLimit(null);
                            if (!all.matchesNothingStored()) {
                                store.enumerate(all, now, (createdAt, id) -> ids.add(id));
                                hidden.addAll(hiddenPrivate(state, all, now));
                            }
                        }
                        ids.removeAll(hidden);
                        n = ids.size();
                    }
                    c.send(RelayMessages.count(count.subscriptionId(), n));
                } catch (RuntimeException e) {
                    LOG.errorf(e, "COUNT %s failed", count.subscriptionId());
                    c.send(RelayMessages.closed(count.subscriptionId(), "error: could not count stored events"));
                }
            });
        } catch (RejectedExecutionException e) {
            c.send(RelayMessages.closed(count.subscriptionId(), "rate-limited: the relay is busy; try again shortly"));
        }
    }

    /**
     * Whether any stored private-kind event (4, 13, 1059) is readable by this client (it is the author
     * or a p-tagged recipient under a pubkey it authenticated). Live indexes leave those kinds out, so
     * such a client gets a per-session snapshot that includes them.
     */
    private boolean readsAnyPrivate(ClientState state, long now) {
        if (!state.isAuthenticated()) {
            return false;
        }
        Set<PubKey> pubkeys = Set.copyOf(state.authenticated);
        Set<String> hex = new HashSet<>();
        pubkeys.forEach(p -> hex.add(p.hex()));
        return store.count(new Filter(null, pubkeys, PRIVATE_KINDS, java.util.Map.of(), null, null, null), now) > 0
                || store.count(new Filter(null, null, PRIVATE_KINDS, java.util.Map.of("p", hex), null, null, null), now) > 0;
    }

    /** The private-kind events (4, 13, 1059) a filter matches that this client may not see. */
    private Set<EventId> hiddenPrivate(ClientState state, Filter f, long now) {
        Set<Integer> kinds = new HashSet<>(PRIVATE_KINDS);
        if (f.kinds() != null) {
            kinds.retainAll(f.kinds());
        }
        Set<EventId> hidden = new HashSet<>();
        if (kinds.isEmpty()) {
            return hidden;
        }
        Filter privatePart = new Filter(f.ids(), f.authors(), kinds, f.tags(), f.since(), f.until(), null);
        store.query(privatePart, now, (id, json) -> {
            if (!visiblePrivate(json, state)) {
                hidden.add(id);
            }
            return true;
        });
        return hidden;
    }

    /**
     * The limit of a filter that names none: the default, except that a filter by ids gets room for
     * all of them (up to the maximum), so that fetching a Negentropy "need" list in one REQ is not cut short.
     */
    private int defaultLimitFor(Filter f) {
        if (f.ids() != null && f.ids().size() > limits.defaultLimit()) {
            return Math.min(f.ids().size(), limits.maxLimit());
        }
        return limits.defaultLimit();
    }

    // ---- NIP-77

    private void onNegOpen(ClientState state, ClientMessage.NegOpen open) {
        Connection c = state.connection;
        String sub = open.subscriptionId();
        state.negSessions.remove(sub); // a reused id replaces the session
        String refusal = readRefusal(state, open.filters());
        if (refusal != null) {
            c.send(RelayMessages.negErr(sub, refusal));
            return;
        }
        if (state.negSessions.size() >= limits.maxSubscriptions()) {
            c.send(RelayMessages.negErr(sub, "blocked: too many open negentropy sessions (at most "
                    + limits.maxSubscriptions() + ")"));
            return;
        }
        try {
            queries.execute(() -> {
                try {
                    openNegSession(state, open);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "NEG-OPEN %s failed", sub);
                    c.send(RelayMessages.negErr(sub, "error: could not open the negentropy session"));
                }
            });
        } catch (RejectedExecutionException e) {
            c.send(RelayMessages.negErr(sub, "blocked: the relay is busy; try again shortly"));
        }
    }

    /** Snapshots the matching events (in-memory sorted vector, capped) and answers the first message. */
    private void openNegSession(ClientState state, ClientMessage.NegOpen open) {
        Connection c = state.connection;
        String sub = open.subscriptionId();
        long now = nowSeconds.getAsLong();
        LiveIndexes ix = liveIndexes;
        java.util.Optional<org.fleetmesh.negentropy.Storage> live = ix == null ? java.util.Optional.empty()
                : ix.snapshotFor(open.filters(), () -> readsAnyPrivate(state, now));
        if (live.isPresent()) {
            negFromIndex.incrementAndGet();
            startNegSession(c, state, sub, live.get(), open.message());
            return;
        }
        org.fleetmesh.negentropy.SortedVector.Builder items = org.fleetmesh.negentropy.SortedVector.builder();
        Set<EventId> seen = open.filters().size() > 1 ? new HashSet<>() : null; // a union: each event once
        int[] count = { 0 };
        boolean[] tooMany = { false };
        for (Filter f : open.filters()) {
            if (f.matchesNothingStored() || tooMany[0]) {
                continue;
            }
            // events this client may not read (NIP-42 private kinds) are not even announced by id
            Set<EventId> hidden = hiddenPrivate(state, f.withLimit(null), now);
            store.enumerate(f, now, (createdAt, id) -> {
                if (tooMany[0] || hidden.contains(id) || (seen != null && !seen.add(id))) {
                    return;
                }
                if (++count[0] > limits.negMaxItems()) {
                    tooMany[0] = true;
                    return;
                }
                items.insert(createdAt, org.fleetmesh.negentropy.Id.of(id.toBytes()));
            });
        }
        if (tooMany[0]) {
            c.send(RelayMessages.negErr(sub, "blocked: too many query results (at most " + limits.negMaxItems() + ")"));
            return;
        }
        startNegSession(c, state, sub, items.seal(), open.message());
    }

    private void startNegSession(Connection c, ClientState state, String sub, org.fleetmesh.negentropy.Storage items,
            byte[] first) {
        NegSession session = new NegSession(sub, new org.fleetmesh.negentropy.Negentropy(items, limits.negFrameSizeLimit()));
        try {
            byte[] reply = session.reconcile(first);
            state.negSessions.put(sub, session);
            c.send(RelayMessages.negMsg(sub, reply));
        } catch (org.fleetmesh.negentropy.NegentropyException e) {
            c.send(RelayMessages.negErr(sub, "invalid: " + e.getMessage()));
        }
    }

    private void onNegMsg(ClientState state, ClientMessage.NegMsg msg) {
        Connection c = state.connection;
        NegSession session = state.negSessions.get(msg.subscriptionId());
        if (session == null) {
            c.send(RelayMessages.negErr(msg.subscriptionId(), "closed: no open negentropy session with this id"));
            return;
        }
        try {
            c.send(RelayMessages.negMsg(msg.subscriptionId(), session.reconcile(msg.message())));
        } catch (org.fleetmesh.negentropy.NegentropyException e) {
            state.negSessions.remove(msg.subscriptionId(), session);
            c.send(RelayMessages.negErr(msg.subscriptionId(), "invalid: " + e.getMessage()));
        }
    }

    private void closeIdleNegSessions() {
        for (ClientState state : connections.values()) {
            for (NegSession s : state.negSessions.values()) {
                if (s.idleLongerThan(limits.negIdleSeconds()) && state.negSessions.remove(s.id, s)) {
                    state.connection.send(RelayMessages.negErr(s.id, "closed: idle for more than "
                            + limits.negIdleSeconds() + " seconds"));
                }
            }
        }
    }

    private void purgeExpired() {
        try {
            int n = store.purgeExpired(nowSeconds.getAsLong());
            if (n > 0) {
                LOG.debugf("purged %d expired events", n);
            }
        } catch (RuntimeException e) {
            LOG.error("purging expired events failed", e);
        }
    }

    /** Events committed so far and the transactions that carried them (group-commit ratio). */
    public long[] writeStats() {
        return ingest.writeStats();
    }

    /** Where events from elsewhere than a client socket (peer links, syncs) enter this relay. */
    public Ingest ingest() {
        return ingest;
    }

    @Override
    public void close() {
        housekeeping.shutdownNow();
        synchronized (this) {
            if (indexer != null) {
                indexer.shutdownNow();
            }
        }
        ingest.close();
        queries.shutdownNow();
    }
}
