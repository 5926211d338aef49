package org.fleetmesh.relay;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.fleetmesh.negentropy.Negentropy;
import org.fleetmesh.negentropy.NegentropyException;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.jboss.logging.Logger;

/**
 * NIP-77 sessions (the relay's responder side). A NEG-OPEN reserves its slot, per connection and
 * relay-wide, before any work is queued, so a burst of them cannot pass the caps; a session not
 * served by a live index snapshots its filter and holds those items against a relay-wide budget.
 * Slots and items come back on NEG-CLOSE, NEG-ERR, idle timeout, replacement and disconnect.
 */
final class NegSessions {
    private static final Logger LOG = Logger.getLogger(NegSessions.class);
    /** Items taken from the budget at a time while a snapshot is read (a small budget is taken item by item). */
    private final int chunk;

    private final EventStore store;
    private final RelayLimits limits;
    private final Visibility visibility;
    private final QueryPool pool;
    private final LongSupplier nowSeconds;
    private final Supplier<LiveIndexes> liveIndexes;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong items = new AtomicLong();
    private final AtomicLong fromIndex = new AtomicLong();

    NegSessions(EventStore store, RelayLimits limits, Visibility visibility, QueryPool pool, LongSupplier nowSeconds,
            Supplier<LiveIndexes> liveIndexes) {
        this.store = store;
        this.limits = limits;
        this.visibility = visibility;
        this.pool = pool;
        this.nowSeconds = nowSeconds;
        this.liveIndexes = liveIndexes;
        this.chunk = (int) Math.max(1, Math.min(1024, limits.negMaxItemsTotal() / 1024));
    }

    void open(ClientState state, ClientMessage.NegOpen msg) {
        Connection c = state.connection;
        String sub = msg.subscriptionId();
        close(state, sub); // a reused id replaces the session
        String refusal = visibility.readRefusal(state, msg.filters());
        NegSession session = new NegSession(sub);
        if (refusal == null) {
            refusal = reserve(state, session);
        }
        if (refusal == null) {
            refusal = pool.submit(state.lane, () -> {
                try {
                    start(state, session, msg);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "NEG-OPEN %s failed", sub);
                    fail(state, session, Queries.readFailure(e, "error: could not open the negentropy session"));
                }
            });
            if (refusal != null) {
                remove(state, session);
            }
        }
        if (refusal != null) {
            state.remindChallenge(refusal);
            c.send(RelayMessages.negErr(sub, refusal));
        }
    }

    /** Takes a per-connection and a relay-wide slot, atomically with registering the session. */
    private String reserve(ClientState state, NegSession session) {
        synchronized (state.negSessions) {
            if (state.negSessions.size() >= limits.negMaxSessions()) {
                return "blocked: too many open negentropy sessions on this connection (at most " + limits.negMaxSessions() + ")";
            }
            if (open.incrementAndGet() > limits.negMaxSessionsTotal()) {
                open.decrementAndGet();
                return "blocked: too many open negentropy sessions on this relay (at most " + limits.negMaxSessionsTotal()
                        + "); try again later";
            }
            state.negSessions.put(session.id, session);
            return null;
        }
    }

    /** Unregisters and releases, if it is still the registered session of its id. */
    private boolean remove(ClientState state, NegSession session) {
        boolean removed = state.negSessions.remove(session.id, session);
        release(session);
        return removed;
    }

    private void release(NegSession session) {
        if (session.released.compareAndSet(false, true)) {
            open.decrementAndGet();
            synchronized (session) {
                items.addAndGet(-session.items);
                session.items = 0;
            }
        }
    }

    private void fail(ClientState state, NegSession session, String reason) {
        if (remove(state, session)) {
            state.connection.send(RelayMessages.negErr(session.id, reason));
        }
    }

    /** On a query thread: a live-index snapshot or one read from the store, then the first reply. */
    private void start(ClientState state, NegSession session, ClientMessage.NegOpen msg) {
        if (session.released.get()) {
            return; // closed or replaced while queued
        }
        long now = nowSeconds.getAsLong();
        LiveIndexes ix = liveIndexes.get();
        Optional<Storage> live = ix == null ? Optional.empty()
                : ix.snapshotFor(msg.filters(), () -> readsAnyPrivate(state, now));
        Storage snapshot;
        if (live.isPresent()) {
            fromIndex.incrementAndGet();
            snapshot = live.get();
        } else {
            snapshot = read(state, session, msg.filters(), now);
            if (snapshot == null) {
                return; // answered
            }
        }
        Negentropy negentropy = new Negentropy(snapshot, limits.negFrameSizeLimit());
        byte[] reply;
        try {
            reply = negentropy.reconcile(msg.message());
        } catch (NegentropyException e) {
            fail(state, session, "invalid: " + e.getMessage());
            return;
        }
        synchronized (state.negSessions) {
            if (state.negSessions.get(session.id) != session || session.released.get()) {
                release(session);
                return; // NEG-CLOSE or a new NEG-OPEN with this id came first
            }
            session.opened(negentropy);
        }
        state.connection.send(RelayMessages.negMsg(session.id, reply));
    }

    /** The matching events this client may read, each once, at most neg-max-items and within the item budget. */
    private Storage read(ClientState state, NegSession session, List<Filter> filters, long now) {
        List<Filter> live = filters.stream().filter(f -> !f.matchesNothingStored()).toList();
        SortedVector.Builder builder = SortedVector.builder();
        int[] count = { 0 };
        long[] taken = { 0 };
        String[] stop = { null };
        if (!live.isEmpty()) {
            Reader reader = Visibility.readerOf(state);
            store.enumerate(live, now, reader, (createdAt, id) -> {
                if (stop[0] != null || session.released.get()) {
                    return;
                }
                if (++count[0] > limits.negMaxItems()) {
                    stop[0] = "blocked: too many query results (at most " + limits.negMaxItems() + ")";
                    return;
                }
                if (count[0] > taken[0]) {
                    if (!take(session, chunk)) {
                        stop[0] = "blocked: the relay's negentropy sessions hold all the items they may (at most "
                                + limits.negMaxItemsTotal() + "); try again later";
                        return;
                    }
                    taken[0] += chunk;
                }
                builder.insert(createdAt, id.toBytes());
            });
        }
        if (stop[0] != null) {
            fail(state, session, stop[0]);
            return null;
        }
        if (session.released.get()) {
            return null;
        }
        giveBack(session, taken[0] - count[0]); // the unused rest of the last chunk
        return builder.seal();
    }

    private boolean take(NegSession session, long n) {
        synchronized (session) {
            if (session.released.get()) {
                return false;
            }
            long now;
            do {
                now = items.get();
                if (now + n > limits.negMaxItemsTotal()) {
                    return false;
                }
            } while (!items.compareAndSet(now, now + n));
            session.items += n;
            return true;
        }
    }

    private void giveBack(NegSession session, long n) {
        synchronized (session) {
            if (!session.released.get() && n > 0) {
                session.items -= n;
                items.addAndGet(-n);
            }
        }
    }

    /**
     * Whether any stored private-kind event is readable by this client (it is the author or a
     * p-tagged recipient under a pubkey it authenticated); live indexes leave those kinds out, so
     * such a client gets a per-session snapshot that includes them. Counted in the store.
     */
    private boolean readsAnyPrivate(ClientState state, long now) {
        List<Filter> readable = Visibility.readablePrivate(state);
        return !readable.isEmpty() && store.count(readable, now, Reader.operator()) > 0;
    }

    /**
     * A client's NEG-MSG, answered on the query pool in the connection's lane (a reconciliation can take a while: never
     * on the event loop, which other connections share). NIP-77 alternates, so a session answers one message at a time:
     * one that comes before the answer to the NEG-OPEN or to the previous NEG-MSG ends the session with a NEG-ERR.
     */
    void message(ClientState state, ClientMessage.NegMsg msg) {
        Connection c = state.connection;
        NegSession session = state.negSessions.get(msg.subscriptionId());
        if (session == null || session.released.get()) {
            c.send(RelayMessages.negErr(msg.subscriptionId(), "closed: no open negentropy session with this id"));
            return;
        }
        if (!session.isOpen()) {
            fail(state, session, "invalid: a NEG-MSG came before the answer to this id's NEG-OPEN (NIP-77 alternates)");
            return;
        }
        if (!session.busy.compareAndSet(false, true)) {
            fail(state, session, "invalid: a NEG-MSG came before the answer to the previous one (NIP-77 alternates)");
            return;
        }
        String refusal = pool.submit(state.lane, () -> {
            try {
                if (session.released.get()) {
                    return; // closed or replaced while queued
                }
                byte[] reply = session.reconcile(msg.message());
                if (state.negSessions.get(session.id) != session || session.released.get()) {
                    return;
                }
                session.busy.set(false); // before the answer: the client's next message may follow it at once
                c.send(RelayMessages.negMsg(session.id, reply));
            } catch (NegentropyException e) {
                fail(state, session, "invalid: " + e.getMessage());
            } catch (RuntimeException e) {
                LOG.errorf(e, "NEG-MSG %s failed", session.id);
                fail(state, session, "error: could not answer the negentropy message");
            }
        });
        if (refusal != null) {
            fail(state, session, refusal);
        }
    }

    void close(ClientState state, String id) {
        NegSession s = state.negSessions.remove(id);
        if (s != null) {
            release(s);
        }
    }

    void closeAll(ClientState state) {
        for (NegSession s : state.negSessions.values()) {
            remove(state, s);
        }
    }

    void closeIdle(Iterable<ClientState> states) {
        for (ClientState state : states) {
            for (NegSession s : state.negSessions.values()) {
                if (s.idleLongerThan(limits.negIdleSeconds()) && remove(state, s)) {
                    state.connection.send(RelayMessages.negErr(s.id, "closed: idle for more than "
                            + limits.negIdleSeconds() + " seconds"));
                }
            }
        }
    }

    long fromLiveIndex() {
        return fromIndex.get();
    }

    /** Sessions open or opening, relay-wide. */
    int openCount() {
        return open.get();
    }

    /** Items the per-session snapshots hold, relay-wide. */
    long itemsHeld() {
        return items.get();
    }
}
