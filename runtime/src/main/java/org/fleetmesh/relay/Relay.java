package org.fleetmesh.relay;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.relay.capacity.Capacity;
import org.fleetmesh.relay.capacity.CapacityPolicy;
import org.fleetmesh.relay.capacity.Load;
import org.fleetmesh.relay.capacity.Priority;
import org.fleetmesh.relay.limits.ClientLimits;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

/**
 * The NIP-01 relay as dispatch: it reads client messages and hands each to its part ({@link Ingest}
 * for EVENT, {@link Queries} for REQ/CLOSE/COUNT, {@link NegSessions} for NIP-77, {@link Visibility}
 * for AUTH), with {@link FanOut} sending new events to live subscriptions and {@link Housekeeping}
 * on a clock. It knows nothing of sockets; a {@link Connection} is all it needs, so it can be
 * driven directly in tests.
 */
public final class Relay implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Relay.class);
    /** NIP-42 AUTH events: never stored or broadcast. */
    static final int AUTH_KIND = Ingest.AUTH_KIND;
    /** Kinds served only to their author or a {@code p}-tagged recipient who has authenticated. */
    static final Set<Integer> PRIVATE_KINDS = Visibility.PRIVATE_KINDS;
    /** Tasks queued for the query threads over all connections. */
    private static final int QUERY_QUEUE = 4096;
    /** How long a finished commit's duration stays the commit latency when no other commit follows it. */
    private static final long COMMIT_LATENCY_MEMORY_NANOS = 1_000_000_000L;

    private final EventStore store;
    private final RelayLimits limits;
    private final RelayPolicy policy;
    private final MessageParser parser;
    private final LongSupplier nowSeconds;
    private final Visibility visibility;
    private final FanOut fanOut;
    private final Capacity capacity;
    private final Ingest ingest;
    private final QueryPool queryPool;
    private final Queries queries;
    private final NegSessions negSessions;
    private final Housekeeping housekeeping;
    private final AtomicReference<LiveIndexes> liveIndexes = new AtomicReference<>();
    private boolean liveIndexesEnabled; // guarded by this
    private final Map<String, ClientState> connections = new ConcurrentHashMap<>();
    private final ClientGate clientGate;
    private volatile ConnectionGate connectionGate = new ConnectionGate(ConnectionGate.DEFAULT_MAX_TOTAL, 0);
    private final LongAdder refusedConnections = new LongAdder();
    /** RFC 6455 close code 1013, Try Again Later: a connection refused for the relay's or its address's bound. */
    static final int CLOSE_TRY_AGAIN_LATER = 1013;

    public Relay(EventStore store, RelayLimits limits, int queryThreads, LongSupplier nowSeconds) {
        this(store, limits, RelayPolicy.OPEN, queryThreads, nowSeconds);
    }

    public Relay(EventStore store, RelayLimits limits, RelayPolicy policy, int queryThreads, LongSupplier nowSeconds) {
        this(store, limits, policy, ClientLimits.OFF, System::nanoTime, queryThreads, nowSeconds);
    }

    /** @param clientLimits the budgets plain clients are held to; {@code nanoClock} times their windows */
    public Relay(EventStore store, RelayLimits limits, RelayPolicy policy, ClientLimits clientLimits, LongSupplier nanoClock,
            int queryThreads, LongSupplier nowSeconds) {
        this.clientGate = new ClientGate(clientLimits, nanoClock);
        this.store = store;
        this.limits = limits;
        this.policy = policy;
        this.parser = new MessageParser(limits.parserLimits());
        this.nowSeconds = nowSeconds;
        this.visibility = new Visibility(policy, nowSeconds);
        this.fanOut = new FanOut(limits.fanOutQueueEvents(), limits.maxHeldBackEvents());
        // sheds nothing until a policy is applied (RelayRuntime applies the configured one)
        this.capacity = new Capacity(CapacityPolicy.OFF, this::load, System::nanoTime);
        this.ingest = new Ingest(store, limits, policy, nowSeconds, fanOut, capacity);
        this.queryPool = new QueryPool(queryThreads, limits.maxInflightQueries(), QUERY_QUEUE);
        this.queries = new Queries(store, limits, visibility, queryPool, fanOut, ingest, nowSeconds);
        this.negSessions = new NegSessions(store, limits, visibility, queryPool, nowSeconds, liveIndexes::get);
        this.housekeeping = new Housekeeping(store, nowSeconds, () -> negSessions.closeIdle(connections.values()));
        store.onForeignEvents(this::foreignEvents);
    }

    public RelayLimits limits() {
        return limits;
    }

    public RelayPolicy policy() {
        return policy;
    }

    /** The capacity check: pressure, shed tiers; peering code asks it before working on a peer's frame. */
    public Capacity capacity() {
        return capacity;
    }

    /** The sources of the pressure signal, read now. */
    public Load load() {
        int[] writes = ingest.writeQueue();
        long[] heap = Load.heapAfterCollection();
        return new Load(writes[0], writes[1], ingest.commitTimes().latency(System.nanoTime(), COMMIT_LATENCY_MEMORY_NANOS),
                heap[0], heap[1], queryPool.queued(), queryPool.capacity());
    }

    /** Events waiting for live fan-out. */
    public int fanOutQueued() {
        return fanOut.queued();
    }

    /** The budgets plain clients are held to ({@link ClientLimits#OFF} when none). */
    public ClientLimits clientLimits() {
        return clientGate.limits();
    }

    /** Messages refused by the client limits so far: {EVENT, AUTH, REQ and COUNT}. */
    public long[] clientLimitRefusals() {
        return clientGate.refused();
    }

    /** Where events from elsewhere than a client socket (peer links, syncs) enter this relay. */
    public Ingest ingest() {
        return ingest;
    }

    /**
     * Keeps Negentropy fingerprint trees for {@code filters} in step with the store (NIP-77 sessions on
     * exactly one of these filters then skip the per-session snapshot), built now in the background and
     * rebuilt every {@code rebuildEvery} (0: never) to pick up removals made by other nodes sharing the
     * database. Returns false if the store has no change feed.
     */
    public synchronized boolean enableLiveIndexes(List<Filter> filters, List<String> labels, java.time.Duration rebuildEvery) {
        if (filters.isEmpty() || liveIndexesEnabled) {
            return false;
        }
        LiveIndexes ix = liveIndexes();
        if (ix == null) {
            LOG.warn("the store reports no changes: NIP-77 sessions snapshot their filter each time");
            return false;
        }
        for (int i = 0; i < filters.size(); i++) {
            ix.add(filters.get(i), labels.get(i));
        }
        liveIndexesEnabled = true;
        housekeeping.maintain(ix, rebuildEvery);
        return true;
    }

    /**
     * Registers one more live index at run time (shards do), built now in the background; NIP-77 sessions on exactly
     * {@code filter} (its limit ignored) are served from it once built. Works whether or not
     * {@link #enableLiveIndexes} was called; the periodic rebuild it set up covers this index too.
     *
     * @throws IllegalStateException if the store has no change feed to keep an index in step
     */
    public synchronized LiveIndex index(Filter filter, String label) {
        LiveIndexes all = liveIndexes();
        if (all == null) {
            throw new IllegalStateException("the store reports no changes: it cannot keep a live index of " + label);
        }
        LiveIndexes.Index ix = all.add(filter, label);
        housekeeping.build(all, ix);
        return ix;
    }

    /** The live indexes, attached to the store's change feed on first use; null if the store has none. */
    private LiveIndexes liveIndexes() {
        LiveIndexes ix = liveIndexes.get();
        if (ix == null) {
            ix = new LiveIndexes(store, List.of(), List.of(), nowSeconds);
            if (!ix.attach()) {
                return null;
            }
            liveIndexes.set(ix);
        }
        return ix;
    }

    /** For tests and metrics: the number of items in live index {@code i}, or -1 while it is being built. */
    public int liveIndexSize(int i) {
        LiveIndexes ix = liveIndexes.get();
        return ix == null || i >= ix.count() ? -1 : ix.size(i);
    }

    /** How many NIP-77 sessions were served from a live index (the rest snapshot their filter). */
    public long negSessionsFromLiveIndex() {
        return negSessions.fromLiveIndex();
    }

    /** NIP-77 sessions open or opening, and the items their per-session snapshots hold (relay-wide). */
    public long[] negSessionStats() {
        return new long[] { negSessions.openCount(), negSessions.itemsHeld() };
    }

    /** Live subscriptions registered with the fan-out. */
    public int liveSubscriptions() {
        return fanOut.subscriptions();
    }

    public boolean isHealthy() {
        return ingest.isHealthy() && store.isHealthy();
    }

    /**
     * The group-commit writer, for readiness: whether its thread runs, the events waiting for it and the most that
     * may, how long the transaction in progress has run (0: none), and what it committed so far.
     */
    public record WriterState(boolean alive, int queued, int capacity, long inProgressNanos, long committedEvents,
            long batches) {
    }

    public WriterState writer() {
        int[] q = ingest.writeQueue();
        long[] w = ingest.writeStats();
        return new WriterState(ingest.isHealthy(), q[0], q[1], ingest.commitTimes().inProgressNanos(System.nanoTime()),
                w[0], w[1]);
    }

    public int connectionCount() {
        return connections.size();
    }

    /** Events committed so far and the transactions that carried them (group-commit ratio). */
    public long[] writeStats() {
        return ingest.writeStats();
    }

    /** RFC 6455 §7.4.1: "an endpoint is going away, such as a server going down". */
    public static final int CLOSE_GOING_AWAY = 1001;
    private volatile String goingAway;

    /**
     * The node is stopping: clients' events are refused ({@code error: the relay is shutting down}) and every one
     * already taken is committed and answered (waiting up to 10 s); then every client connection is closed with
     * {@link #CLOSE_GOING_AWAY} and {@code reason}, after those answers, and so is any opened from now on. Peers' and
     * the node's own writes go on until {@link #close}. Returns how many were open.
     */
    public int goingAway(String reason) {
        goingAway = reason;
        if (!ingest.refuseClients(java.time.Duration.ofSeconds(10))) {
            LOG.warn("closing the clients with events still unanswered after 10 s (a commit that long)");
        }
        int n = 0;
        for (ClientState s : List.copyOf(connections.values())) {
            s.connection.close(CLOSE_GOING_AWAY, reason);
            n++;
        }
        return n;
    }

    /** A new connection gets its NIP-42 challenge at once. */
    public void opened(Connection c) {
        String leaving = goingAway;
        if (leaving != null) {
            c.close(CLOSE_GOING_AWAY, leaving);
            return;
        }
        String refusal = connectionGate.admit(c.address());
        if (refusal != null) {
            refusedConnections.increment();
            c.send(RelayMessages.notice(refusal));
            c.close(CLOSE_TRY_AGAIN_LATER, refusal);
            return;
        }
        ClientState state = new ClientState(c);
        connections.put(c.id(), state);
        leaving = goingAway;
        if (leaving != null) {
            c.close(CLOSE_GOING_AWAY, leaving); // opened while goingAway took its snapshot
            return;
        }
        c.send(RelayMessages.auth(state.challenge));
    }

    public void closed(Connection c) {
        ClientState state = connections.remove(c.id());
        if (state != null) {
            queryPool.drop(state.lane);
            queries.closeAll(state);
            clientGate.closed(state);
            negSessions.closeAll(state);
            connectionGate.release(c.address());
        }
    }

    /**
     * Bounds the client connections: {@code maxTotal} in all, {@code maxPerAddress} from one address (0: none). Takes
     * effect for connections opened after it; set before the relay serves (RelayRuntime sets the configured ones).
     */
    public void connectionBounds(int maxTotal, int maxPerAddress) {
        connectionGate = new ConnectionGate(maxTotal, maxPerAddress);
    }

    /**
     * Pings every client connection each {@code interval} from now on (docs/spec/relay.md, "Transport"): a quiet
     * subscriber is not taken for a silent socket by the server's idle timeout. Call once; zero or negative: never.
     */
    public void keepAlive(java.time.Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            return;
        }
        housekeeping.every(interval, "pinging clients", () -> {
            for (ClientState s : connections.values()) {
                s.connection.ping();
            }
        });
    }

    /** Client connections open and counted against the bounds, and connections refused as they opened so far. */
    public long[] connections() {
        return new long[] {connectionGate.open(), refusedConnections.sum()};
    }

    /**
     * Whether {@code text} is more than {@code max} bytes in UTF-8: NIP-11 {@code max_message_length} counts "bytes
     * for incoming JSON ... after UTF-8 serialization". A message never has fewer UTF-8 bytes than UTF-16 units, nor
     * more than three times as many, so only one between the two is counted.
     */
    static boolean tooLong(String text, int max) {
        return org.fleetmesh.nostr.Utf8.exceeds(text, max);
    }

    /** Handles one text frame from a client. Never throws: every problem becomes an answer. */
    public void handle(Connection c, String text) {
        if (tooLong(text, limits.maxMessageLength())) {
            // NIP-01: an EVENT still gets its OK, a REQ its CLOSED; only the message's address is read
            refuseAndEnd(c, parser.refusalUnread(text, "invalid: message too large (at most " + limits.maxMessageLength()
                    + " bytes)"));
            return;
        }
        ClientMessage m;
        try {
            m = parser.parse(text);
        } catch (ProtocolException e) {
            refuseAndEnd(c, e);
            return;
        }
        ClientState state = connections.get(c.id());
        if (state == null) {
            return; // closed meanwhile
        }
        if (shed(state, m)) {
            return;
        }
        try {
            if (m instanceof ClientMessage.EventMessage em) {
                onEvent(state, em.event(), text);
            } else if (m instanceof ClientMessage.Req req) {
                if (clientGate.query(state, req.subscriptionId(), true)) {
                    queries.req(state, req);
                } else {
                    queries.close(state, req.subscriptionId()); // CLOSED was sent: an old subscription of that id ends too
                }
                clientGate.reconcile(state);
            } else if (m instanceof ClientMessage.Count count) {
                if (clientGate.query(state, count.subscriptionId(), false)) {
                    queries.count(state, count);
                }
            } else if (m instanceof ClientMessage.Close close) {
                queries.close(state, close.subscriptionId());
                clientGate.reconcile(state);
            } else if (m instanceof ClientMessage.Auth auth) {
                if (clientGate.auth(state, auth.event(), text)) {
                    onAuth(state, auth.event());
                }
            } else if (m instanceof ClientMessage.NegOpen open) {
                if (clientGate.negentropy(state, open.subscriptionId())) {
                    negSessions.open(state, open);
                } else {
                    negSessions.close(state, open.subscriptionId()); // NEG-ERR sent: a session of that id ends too
                }
            } else if (m instanceof ClientMessage.NegMsg msg) {
                if (clientGate.negentropy(state, msg.subscriptionId())) {
                    negSessions.message(state, msg);
                } else {
                    negSessions.close(state, msg.subscriptionId());
                }
            } else if (m instanceof ClientMessage.NegClose close) {
                negSessions.close(state, close.subscriptionId());
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "handling a %s message failed", m.getClass().getSimpleName());
            c.send(RelayMessages.notice("error: internal error while handling the message"));
        }
    }

    /**
     * Under load a REQ, COUNT or NEG-OPEN whose tier is shed is answered here, before any work
     * (CLOSED / NEG-ERR {@code rate-limited:}); a reused id's old subscription or session ends with it.
     * EVENTs are shed in {@link Ingest}, where every origin passes.
     */
    private boolean shed(ClientState state, ClientMessage m) {
        Priority tier = Priority.of(m);
        String refusal = tier == null ? null : capacity.refusal(tier);
        if (refusal == null) {
            return false;
        }
        if (m instanceof ClientMessage.NegOpen open) {
            negSessions.close(state, open.subscriptionId());
            state.connection.send(RelayMessages.negErr(open.subscriptionId(), refusal));
        } else if (m instanceof ClientMessage.Req req) {
            queries.close(state, req.subscriptionId());
            state.connection.send(RelayMessages.closed(req.subscriptionId(), refusal));
        } else if (m instanceof ClientMessage.Count count) {
            state.connection.send(RelayMessages.closed(count.subscriptionId(), refusal));
        }
        return true;
    }

    /**
     * Refuses a message that did not parse and ends what its answer says is closed: a {@code CLOSED} ends the
     * subscription of that id (NIP-01), a {@code NEG-ERR} the negentropy session of that id (NIP-77: "after a NEG-ERR
     * is issued, the subscription is considered to be closed"; a NEG-OPEN first closes the session it reuses the id of).
     */
    private void refuseAndEnd(Connection c, ProtocolException e) {
        refuse(c, e);
        String verb = e.verb();
        String sub = e.subscriptionId();
        ClientState state = sub == null || verb == null ? null : connections.get(c.id());
        if (state == null) {
            return;
        }
        if (verb.startsWith("NEG-")) {
            negSessions.close(state, sub);
        } else if ("REQ".equals(verb)) {
            queries.close(state, sub);
            clientGate.reconcile(state);
        }
    }

    private static void refuse(Connection c, ProtocolException e) {
        String verb = e.verb();
        if (("EVENT".equals(verb) || "AUTH".equals(verb)) && e.eventId() != null) {
            c.send(RelayMessages.ok(e.eventId(), false, e.getMessage()));
        } else if (("EVENT".equals(verb) || "AUTH".equals(verb)) && e.sentEventId() != null) {
            // NIP-01: an EVENT gets an OK; a malformed id is echoed as sent (quoted) so the client can match it
            c.send(RelayMessages.okQuoted(e.sentEventId(), false, e.getMessage()));
        } else if (("REQ".equals(verb) || "COUNT".equals(verb)) && e.subscriptionId() != null) {
            c.send(RelayMessages.closed(e.subscriptionId(), e.getMessage()));
        } else if (verb != null && verb.startsWith("NEG-") && e.subscriptionId() != null) {
            c.send(RelayMessages.negErr(e.subscriptionId(), e.getMessage()));
        } else {
            c.send(RelayMessages.notice(e.getMessage()));
        }
    }

    private void onEvent(ClientState state, Event e, String text) {
        Connection c = state.connection;
        ClientLimits.EventCharge charge = clientGate.event(state, e, text);
        if (charge == null) {
            return; // over budget: answered, not verified, not stored
        }
        ingest.submit(List.of(e), new Origin.Client(c.id(), state.authenticated))
                .thenAccept(outcomes -> {
                    clientGate.settled(charge, outcomes.get(0));
                    state.remindChallenge(outcomes.get(0).reason());
                    c.send(outcomes.get(0).okMessage());
                });
    }

    /** NIP-42: a valid AUTH adds its pubkey to the connection's authenticated ones. */
    private void onAuth(ClientState state, Event e) {
        String refusal = visibility.authRefusal(state, e);
        if (refusal != null) {
            state.connection.send(RelayMessages.ok(e.id().hex(), false, refusal));
            return;
        }
        synchronized (state.authenticated) {
            if (!state.authenticated.contains(e.pubkey()) && state.authenticated.size() >= MAX_AUTHENTICATED) {
                // each REQ is charged to every pubkey of its connection, and reads check each: the set is bounded
                state.connection.send(RelayMessages.ok(e.id().hex(), false, "blocked: this connection has authenticated "
                        + MAX_AUTHENTICATED + " pubkeys, the most one connection may"));
                return;
            }
            state.authenticated.add(e.pubkey());
        }
        state.connection.send(RelayMessages.ok(e.id().hex(), true, ""));
    }

    /** NIP-42 pubkeys one connection may authenticate as. */
    static final int MAX_AUTHENTICATED = 16;

    private void foreignEvents(List<String> jsons) {
        List<Event> live = new java.util.ArrayList<>(jsons.size());
        for (String json : jsons) {
            try {
                Event e = parser.parseEvent(json);
                LiveIndexes ix = liveIndexes.get();
                if (ix != null && limits.stores(e, nowSeconds.getAsLong())) {
                    ix.foreign(List.of(e)); // an ephemeral event a sibling only routed is in no index
                }
                Long exp = e.expiration();
                if (exp == null || exp > nowSeconds.getAsLong()) {
                    live.add(e);
                }
            } catch (ProtocolException ex) {
                LOG.warnf("a sibling node announced an unreadable event: %s", ex.getMessage());
            }
        }
        fanOut.foreign(live);
    }

    @Override
    public void close() {
        housekeeping.close();
        ingest.close();
        fanOut.close();
        queryPool.close();
    }
}
