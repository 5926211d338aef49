package org.fleetmesh.relay;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.jboss.logging.Logger;

/**
 * REQ, CLOSE and COUNT: a subscription goes live (registered with the fan-out) before its stored
 * part is read, on the connection's lane of the {@link QueryPool}; the store applies the reader's
 * visibility, so hidden events neither take a limit's places nor count. A REQ or COUNT whose
 * filters can match no stored event ({@link Filter#matchesNothingStored()}, e.g. {@code limit: 0})
 * is answered on the caller's thread, without a store read and without a task on the pool.
 */
final class Queries {
    private static final Logger LOG = Logger.getLogger(Queries.class);

    private final EventStore store;
    private final RelayLimits limits;
    private final Visibility visibility;
    private final QueryPool pool;
    private final FanOut fanOut;
    private final Ingest ingest;
    private final LongSupplier nowSeconds;

    Queries(EventStore store, RelayLimits limits, Visibility visibility, QueryPool pool, FanOut fanOut, Ingest ingest,
            LongSupplier nowSeconds) {
        this.store = store;
        this.limits = limits;
        this.visibility = visibility;
        this.pool = pool;
        this.fanOut = fanOut;
        this.ingest = ingest;
        this.nowSeconds = nowSeconds;
    }

    void req(ClientState state, ClientMessage.Req req) {
        Connection c = state.connection;
        Map<String, Subscription> subs = state.subscriptions;
        String refusal = visibility.readRefusal(state, req.filters());
        if (refusal != null) {
            state.remindChallenge(refusal);
            close(state, req.subscriptionId());
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
        Subscription sub = new Subscription(req.subscriptionId(), filters, state, limits.maxHeldBackEvents());
        Subscription old = subs.put(sub.id, sub);
        if (old != null) {
            drop(old); // a reused id replaces the old subscription
        }
        fanOut.register(sub);
        if (readsNothingStored(filters)) {
            sub.storedPhaseDone(Set.of()); // live only: EOSE now, then whatever arrived since registration
            return;
        }
        refusal = pool.submit(state.lane, () -> sendStored(state, sub));
        if (refusal != null) {
            subs.remove(sub.id, sub);
            drop(sub);
            c.send(RelayMessages.closed(sub.id, refusal));
        }
    }

    private void drop(Subscription s) {
        s.cancel();
        fanOut.unregister(s);
    }

    private void sendStored(ClientState state, Subscription sub) {
        Connection c = state.connection;
        Set<EventId> sent = new HashSet<>(); // several filters may match one event: each is sent once
        long now = nowSeconds.getAsLong();
        Reader reader = Visibility.readerOf(state);
        int headroom = sub.storedHeadroom(); // the event message's prefix: the store builds each JSON inside its frame
        try {
            for (Filter f : sub.filters) {
                if (sub.isCancelled()) {
                    return;
                }
                if (f.matchesNothingStored()) {
                    continue;
                }
                store.query(f, now, reader, new EventStore.EventSink() {
                    @Override
                    public boolean accept(EventId id, String json) {
                        return !sub.isCancelled() && (!sent.add(id) || sub.sendStored(json));
                    }

                    @Override
                    public boolean acceptUtf8(EventId id, byte[] json) { // as read: no decode, no re-encode
                        return !sub.isCancelled() && (!sent.add(id) || sub.sendStored(json));
                    }

                    @Override
                    public int headroom() {
                        return headroom;
                    }

                    @Override
                    public int tailroom() {
                        return headroom > 0 ? 1 : 0; // the message's closing bracket
                    }

                    @Override
                    public boolean acceptUtf8(EventId id, byte[] buf, int offset, int length) {
                        return !sub.isCancelled() && (!sent.add(id) || sub.sendStored(buf, offset, length));
                    }
                });
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "query for subscription %s failed", sub.id);
            if (state.subscriptions.remove(sub.id, sub)) {
                drop(sub);
                c.send(RelayMessages.closed(sub.id, readFailure(e, "error: could not read stored events")));
            }
            return;
        }
        sub.storedPhaseDone(sent);
        if (!sent.isEmpty()) {
            // an event the query read may still be on its way to the fan-out: its ids are kept until it has passed
            ingest.fence(() -> fanOut.barrier(sub::forgetStored));
        }
    }

    void close(ClientState state, String subscriptionId) {
        Subscription s = state.subscriptions.remove(subscriptionId);
        if (s != null) {
            drop(s);
        }
    }

    void closeAll(ClientState state) {
        for (Subscription s : state.subscriptions.values()) {
            drop(s);
        }
        state.subscriptions.clear();
    }

    void count(ClientState state, ClientMessage.Count count) {
        Connection c = state.connection;
        String refusal = visibility.readRefusal(state, count.filters());
        if (refusal != null) {
            state.remindChallenge(refusal);
            c.send(RelayMessages.closed(count.subscriptionId(), refusal));
            return;
        }
        // several filters count their union once, in the store, so overlapping events are not counted twice;
        // a COUNT ignores limits, so {"limit":0} counts like {}
        List<Filter> filters = count.filters().stream().map(f -> f.withLimit(null))
                .filter(f -> !f.matchesNothingStored()).toList();
        if (filters.isEmpty()) {
            c.send(RelayMessages.count(count.subscriptionId(), 0)); // nothing to read: answered here, no thread hop
            return;
        }
        refusal = pool.submit(state.lane, () -> {
            long now = nowSeconds.getAsLong();
            try {
                long n = store.count(filters, now, Visibility.readerOf(state));
                c.send(RelayMessages.count(count.subscriptionId(), n));
            } catch (RuntimeException e) {
                LOG.errorf(e, "COUNT %s failed", count.subscriptionId());
                c.send(RelayMessages.closed(count.subscriptionId(), readFailure(e, "error: could not count stored events")));
            }
        });
        if (refusal != null) {
            c.send(RelayMessages.closed(count.subscriptionId(), refusal));
        }
    }

    /** True when no filter can match a stored event. */
    private static boolean readsNothingStored(List<Filter> filters) {
        for (Filter f : filters) {
            if (!f.matchesNothingStored()) {
                return false;
            }
        }
        return true;
    }

    /** The answer to a failed read: a timeout says so, so the client knows to narrow its filter. */
    static String readFailure(RuntimeException e, String otherwise) {
        if (e instanceof org.fleetmesh.spi.storage.QueryTimeoutException t) {
            return "error: the query ran longer than " + t.timeout().toMillis() + " ms and was cancelled; narrow the filter";
        }
        return otherwise;
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
}
