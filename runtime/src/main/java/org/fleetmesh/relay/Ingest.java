package org.fleetmesh.relay;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.relay.capacity.Capacity;
import org.fleetmesh.relay.capacity.CommitTimes;
import org.fleetmesh.relay.capacity.Priority;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.jboss.logging.Logger;

/**
 * The one way events enter the node, whoever brings them ({@link Origin}): admission, the NIP-42
 * and NIP-70 write gates for clients, id and signature checks, then ephemeral events go to live
 * subscribers (never stored) and the rest to the store through group commit. Every event of a
 * batch gets exactly one {@link Outcome}, also when the store fails.
 *
 * <p>Plain Java: the CLI builds one over an {@link EventStore} with {@link FanOutSink#NONE}.
 * Events beyond the write queue's free room are refused {@code rate-limited:}; a bulk caller
 * waits for one batch's outcomes before it submits the next.
 */
public final class Ingest implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Ingest.class);
    /** NIP-42 AUTH events: never stored or broadcast. */
    static final int AUTH_KIND = 22242;
    /** Ephemeral events waiting to be announced to nodes sharing the store. */
    private static final int ANNOUNCE_QUEUE = 4096;
    private static final int MAX_COMMIT_BATCH = 1000;

    public enum Status {
        /** Stored durably, or (ephemeral) handed to live subscribers. */
        ACCEPTED,
        /** Already stored, or a newer version of it is: NIP-01 {@code OK true "duplicate: ..."}. */
        DUPLICATE,
        /** Not taken; {@link Outcome#reason()} says why, with a NIP-01 prefix. */
        REFUSED
    }

    /** What became of one event. {@code reason} is "" when accepted, else prefixed ({@code duplicate:}, {@code invalid:}, ...). */
    public record Outcome(EventId id, Status status, String reason) {

        /** NIP-01 OK's boolean: true for ACCEPTED and DUPLICATE. */
        public boolean accepted() {
            return status != Status.REFUSED;
        }

        /** NIP-01 OK's message. */
        public String message() {
            return reason;
        }

        /** The whole NIP-01 answer: {@code ["OK",<id>,<accepted>,<message>]}. */
        public String okMessage() {
            return RelayMessages.ok(id.hex(), accepted(), reason);
        }

        static Outcome refused(Event e, String reason) {
            return new Outcome(e.id(), Status.REFUSED, reason);
        }

        static Outcome of(Event e, SaveOutcome o) {
            switch (o) {
            case STORED:
                return new Outcome(e.id(), Status.ACCEPTED, "");
            case DUPLICATE:
            case SUPERSEDED:
                return new Outcome(e.id(), Status.DUPLICATE, o.reason());
            default:
                return new Outcome(e.id(), Status.REFUSED, o.reason());
            }
        }
    }

    /** Where accepted events go to be seen live (the relay's fan-out). */
    public interface FanOutSink {
        /** Events a commit stored; may wait for room (backpressure on the writer), must not fail the commit. */
        void committed(List<Event> events);

        /** An ephemeral event; false when there is no room now (it is then refused {@code rate-limited:}). */
        boolean ephemeral(Event event);

        /** No live subscribers (the CLI). */
        FanOutSink NONE = new FanOutSink() {
            @Override
            public void committed(List<Event> events) {
            }

            @Override
            public boolean ephemeral(Event event) {
                return true;
            }
        };
    }

    private final EventStore store;
    private final RelayLimits limits;
    private final RelayPolicy policy;
    private volatile org.fleetmesh.relay.capacity.DiskFloor disk = org.fleetmesh.relay.capacity.DiskFloor.NONE;
    private final LongSupplier nowSeconds;
    private final FanOutSink fanOut;
    private final Capacity capacity;
    private final GroupCommit writes;
    private final ThreadPoolExecutor announcer;
    private final List<IngestListener> listeners = new CopyOnWriteArrayList<>();

    public Ingest(EventStore store, RelayLimits limits, RelayPolicy policy, LongSupplier nowSeconds, FanOutSink fanOut) {
        this(store, limits, policy, nowSeconds, fanOut, Capacity.unlimited());
    }

    /** @param capacity sheds events by their origin's tier under load (see {@link #priority}) */
    public Ingest(EventStore store, RelayLimits limits, RelayPolicy policy, LongSupplier nowSeconds, FanOutSink fanOut,
            Capacity capacity) {
        this.store = store;
        this.capacity = capacity;
        this.limits = limits;
        this.policy = policy;
        this.nowSeconds = nowSeconds;
        this.fanOut = fanOut;
        this.writes = new GroupCommit(store, limits.writeQueueEvents(), MAX_COMMIT_BATCH, fanOut::committed);
        // pg_notify may wait for a pool connection: never on the caller's (event loop) thread
        this.announcer = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(ANNOUNCE_QUEUE), r -> {
            Thread t = new Thread(r, "fleetmesh-ephemeral-announce");
            t.setDaemon(true);
            return t;
        });
        this.announcer.allowCoreThreadTimeOut(true);
    }

    /** Registers a listener told of every finished batch. */
    public void addListener(IngestListener listener) {
        listeners.add(listener);
    }

    public void removeListener(IngestListener listener) {
        listeners.remove(listener);
    }

    /**
     * Takes a batch of events from {@code origin}. The stage completes once every event has its
     * outcome (stored ones after their commit), in batch order; it never completes exceptionally.
     * Checks run on the calling thread; nothing here blocks on the store.
     */
    public CompletionStage<List<Outcome>> submit(List<Event> batch, Origin origin) {
        int n = batch.size();
        CompletableFuture<List<Outcome>> done = new CompletableFuture<>();
        Outcome[] outcomes = new Outcome[n];
        AtomicInteger remaining = new AtomicInteger(n);
        Runnable finish = () -> {
            List<Outcome> all = List.copyOf(Arrays.asList(outcomes));
            for (IngestListener l : listeners) {
                try {
                    l.completed(origin, batch, all);
                } catch (RuntimeException e) {
                    LOG.warn("an ingest listener failed", e);
                }
            }
            done.complete(all);
        };
        if (n == 0) {
            finish.run();
            return done;
        }
        long now = nowSeconds.getAsLong();
        for (int i = 0; i < n; i++) {
            int slot = i;
            Event e = batch.get(i);
            java.util.function.Consumer<Outcome> answer = o -> {
                outcomes[slot] = o;
                if (remaining.decrementAndGet() == 0) {
                    finish.run();
                }
            };
            try {
                admit(e, origin, now, answer);
            } catch (RuntimeException ex) {
                LOG.error("ingesting an event failed", ex);
                answer.accept(Outcome.refused(e, "error: could not take the event"));
            }
        }
        return done;
    }

    static final String SHUTTING_DOWN = "error: the relay is shutting down";
    /** Set when the node stops: clients' events are refused from then on (peers', sync's and the node's are not). */
    private volatile boolean clientsRefused;
    /** Clients' events taken for writing and not yet answered. */
    private final AtomicInteger clientWrites = new AtomicInteger();

    /** Every path answers exactly once. */
    private void admit(Event e, Origin origin, long now, java.util.function.Consumer<Outcome> answer) {
        boolean client = origin instanceof Origin.Client;
        if (client) {
            // counted before the flag is read, so that refuseClients' wait sees every one that got past it
            clientWrites.incrementAndGet();
            if (clientsRefused) {
                clientWrites.decrementAndGet();
                answer.accept(Outcome.refused(e, SHUTTING_DOWN));
                return;
            }
        }
        boolean taken = false;
        try {
            String refusal = refusal(e, origin, now);
            if (refusal != null) {
                answer.accept(Outcome.refused(e, refusal));
                return;
            }
            if (!limits.stores(e, now)) {
                ephemeral(e, answer);
                return;
            }
            taken = writes.submit(e, (ev, o) -> {
                try {
                    answer.accept(Outcome.of(ev, o));
                } finally {
                    if (client) {
                        clientWrites.decrementAndGet();
                    }
                }
            });
            if (!taken) {
                answer.accept(Outcome.refused(e, writes.closing() ? SHUTTING_DOWN
                        : "rate-limited: the relay is busy writing; try again shortly"));
            }
        } finally {
            if (client && !taken) {
                clientWrites.decrementAndGet();
            }
        }
    }

    /**
     * The node is stopping: clients' events are refused ({@value #SHUTTING_DOWN}) from now on, and this waits (up to
     * {@code wait}) until every client event already taken for writing is committed and answered. Peers', sync's and
     * the node's own writes go on until {@link #close}. Returns whether all were answered in time.
     */
    public boolean refuseClients(java.time.Duration wait) {
        clientsRefused = true;
        long end = System.nanoTime() + wait.toNanos();
        while (clientWrites.get() > 0) {
            if (System.nanoTime() > end) {
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Admission first (cheap), then the write gates, then cryptography. */
    String refusal(Event e, Origin origin, long now) {
        String refusal = Admission.refusal(e, limits, now);
        if (refusal == null && origin instanceof Origin.Client client) {
            refusal = writeGate(client, e);
        }
        boolean stored = limits.stores(e, now);
        // bulk origins store; an ephemeral event is handed to live subscribers, stored only until a near expiration
        if (refusal == null && (origin instanceof Origin.Import || origin instanceof Origin.Sync) && !stored) {
            refusal = limits.ephemeralPersistSeconds() == 0 ? "invalid: ephemeral events are not stored (NIP-01)"
                    : "invalid: ephemeral events are stored only with an expiration at most "
                            + limits.ephemeralPersistSeconds() + " s ahead (fleetmesh.relay.ephemeral-persist-seconds)";
        }
        if (refusal == null && e.kind() != 5 && stored) {
            refusal = disk.refusal(); // a deletion frees room; an ephemeral event not stored takes none
        }
        if (refusal == null) {
            refusal = capacity.refusal(priority(e, origin, stored)); // before the signature: the costly part
        }
        return refusal != null ? refusal : Events.verify(e);
    }

    /** An event's capacity tier: ephemeral ones are live routing, the rest go by who brought them. */
    static Priority priority(Event e, Origin origin) {
        return priority(e, origin, e.eventClass() != EventClass.EPHEMERAL);
    }

    /** ... and an ephemeral event the relay stores (NIP-40) goes by who brought it, as any stored one. */
    static Priority priority(Event e, Origin origin, boolean stored) {
        if (!stored) {
            return Priority.LIVE_ROUTING;
        }
        if (origin instanceof Origin.Client) {
            return Priority.CLIENT_EVENT;
        }
        return origin instanceof Origin.Peer ? Priority.PEER_SYNC : Priority.BACKFILL;
    }

    /** NIP-42 write gate and NIP-70: protected events only from their authenticated author. */
    private String writeGate(Origin.Client client, Event e) {
        if (policy.authRequiredWrites() && !client.isAuthenticated()) {
            return "auth-required: this relay accepts events only from authenticated clients";
        }
        if (e.isProtected()) {
            if (!client.isAuthenticated()) {
                return "auth-required: this event is protected (NIP-70); authenticate as its author to publish it";
            }
            if (!client.authenticated().contains(e.pubkey())) {
                return "restricted: a protected event (NIP-70) may only be published by its author";
            }
        }
        if ((e.kind() == 6 || e.kind() == 16) && embedsProtected(e.content())) {
            // NIP-70: reposts of protected events MUST NOT embed them; relays SHOULD summarily reject one that does
            return "blocked: a repost of a protected event (NIP-70) must not embed it";
        }
        return null;
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    /** Whether a repost's content is an event object with a {@code ["-"]} tag. */
    static boolean embedsProtected(String content) {
        String c = content.strip();
        if (!c.startsWith("{") || !c.contains("\"-\"")) {
            return false; // most reposts: no content, or no "-" anywhere in it
        }
        try {
            com.fasterxml.jackson.databind.JsonNode tags = JSON.readTree(c).path("tags");
            for (com.fasterxml.jackson.databind.JsonNode t : tags) {
                if (t.isArray() && t.size() == 1 && "-".equals(t.get(0).textValue())) {
                    return true;
                }
            }
        } catch (java.io.IOException | RuntimeException notJson) {
            return false;
        }
        return false;
    }

    /** Live subscribers first; nodes sharing the store are told off the caller's thread, then the event is answered. */
    private void ephemeral(Event e, java.util.function.Consumer<Outcome> answer) {
        if (!fanOut.ephemeral(e)) {
            answer.accept(Outcome.refused(e, "rate-limited: too many events waiting for live subscribers; try again shortly"));
            return;
        }
        try {
            announcer.execute(() -> {
                try {
                    store.announceEphemeral(e);
                } catch (RuntimeException ex) {
                    LOG.warnf("announcing an ephemeral event to sibling nodes failed: %s", ex.toString());
                }
                answer.accept(new Outcome(e.id(), Status.ACCEPTED, ""));
            });
        } catch (RejectedExecutionException ex) {
            // local subscribers have it; only the siblings miss it
            LOG.debug("ephemeral announce queue full; sibling nodes miss an event");
            answer.accept(new Outcome(e.id(), Status.ACCEPTED, ""));
        }
    }

    /**
     * Runs {@code r} where every event committed so far has been handed to the fan-out sink (a
     * reader uses it to know when an event it read from the store can no longer arrive live).
     */
    void fence(Runnable r) {
        writes.fence(r);
    }

    /** The free disk kept: below it no event that adds to the store is taken (from any origin). */
    public void diskFloor(org.fleetmesh.relay.capacity.DiskFloor floor) {
        this.disk = java.util.Objects.requireNonNull(floor, "floor");
    }

    public org.fleetmesh.relay.capacity.DiskFloor diskFloor() {
        return disk;
    }

    public boolean isHealthy() {
        return writes.isAlive();
    }

    /** Events committed so far and the transactions that carried them (group-commit ratio). */
    public long[] writeStats() {
        return new long[] { writes.committedEvents(), writes.batches() };
    }

    /** Events waiting for the writer, and the most that may. */
    int[] writeQueue() {
        return new int[] { writes.queued(), writes.capacity() };
    }

    /** The writer's transactions: commit latency, and each batch for metrics. */
    public CommitTimes commitTimes() {
        return writes.times;
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        writes.close();
        announcer.shutdown();
        try {
            announcer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
