package org.fleetmesh.relay.quarkus;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.Relay;
import org.fleetmesh.relay.capacity.Capacity;
import org.fleetmesh.relay.capacity.Pressure;
import org.fleetmesh.relay.capacity.Priority;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;

/**
 * The relay's own counters at {@code /q/metrics}: connections, events by origin and outcome (the
 * answer's prefix word), commit batches, the queues, and the capacity signal with its shed tiers.
 * Names and labels are listed in docs/OPERATING.md.
 */
@ApplicationScoped
public class RelayMetrics {
    /** NIP-01 prefixes (and ours), then "none" (no prefix) and "other" (any other word), so labels stay few. */
    static final List<String> REASONS = List.of("duplicate", "pow", "blocked", "rate-limited", "invalid", "restricted",
            "auth-required", "mute", "error", "unsupported", "none", "other");
    static final List<String> ORIGINS = List.of("client", "peer", "sync", "import");
    private static final Ingest.Status[] STATUSES = Ingest.Status.values();

    @Inject
    RelayRuntime runtime;

    @Inject
    MeterRegistry registry;

    /** By origin, status and reason index; made on first use (a series that never happened is not exported). */
    private final AtomicReferenceArray<Counter> events = new AtomicReferenceArray<>(
            ORIGINS.size() * STATUSES.length * REASONS.size());

    void onStart(@Observes StartupEvent e) {
        Relay relay = runtime.relay();
        Gauge.builder("fleetmesh.relay.connections", relay, Relay::connectionCount)
                .description("Client WebSocket connections open").register(registry);
        FunctionCounter.builder("fleetmesh.relay.connections.refused", relay, r -> r.connections()[1])
                .description("Client connections closed as they opened: past fleetmesh.relay.max-connections or their "
                        + "address's fleetmesh.clients.max-connections-per-address")
                .register(registry);
        FunctionCounter.builder("fleetmesh.relay.disk.refused", relay, r -> r.ingest().diskFloor().refused())
                .description("Events refused because the data dir's disk had less free than "
                        + "fleetmesh.relay.min-free-disk-bytes").register(registry);
        Gauge.builder("fleetmesh.relay.disk.free", relay, r -> {
            long f = r.ingest().diskFloor().free();
            return f == Long.MAX_VALUE ? Double.NaN : f;
        }).baseUnit("bytes").description("Free bytes on the data dir's disk as last read by the disk floor (read on "
                + "each event while it is on, at most once a second)").register(registry);
        Gauge.builder("fleetmesh.relay.subscriptions", relay, Relay::liveSubscriptions)
                .description("Live subscriptions (REQs past or before EOSE)").register(registry);
        Gauge.builder("fleetmesh.relay.negentropy.sessions", relay, r -> r.negSessionStats()[0])
                .description("NIP-77 sessions open or opening").register(registry);
        Gauge.builder("fleetmesh.relay.write.queue", relay, r -> r.load().writeQueued()).baseUnit("events")
                .description("Events waiting for the group-commit writer").register(registry);
        Gauge.builder("fleetmesh.relay.query.queue", relay, r -> r.load().queryQueued()).baseUnit("tasks")
                .description("REQ, COUNT and NEG-OPEN waiting for a query thread").register(registry);
        String[] limited = {"event", "auth", "query"};
        for (int i = 0; i < limited.length; i++) {
            int which = i;
            FunctionCounter.builder("fleetmesh.clients.refused", relay, r -> r.clientLimitRefusals()[which])
                    .tag("message", limited[i])
                    .description("Client messages refused rate-limited by the client limits (per address and pubkey)")
                    .register(registry);
        }
        org.fleetmesh.spi.storage.EventStore store = runtime.store();
        if (store.readCacheStats() != null) {
            Gauge.builder("fleetmesh.store.read.cache.limit", store, s -> s.readCacheStats()[0]).baseUnit("bytes")
                    .description("What the store's read cache may hold (fleetmesh.storage.event-cache-mib)")
                    .register(registry);
            Gauge.builder("fleetmesh.store.read.cache.size", store, s -> s.readCacheStats()[1]).baseUnit("bytes")
                    .description("What the store's read cache holds").register(registry);
            Gauge.builder("fleetmesh.store.read.cache.events", store, s -> s.readCacheStats()[2])
                    .description("Events the store's read cache holds").register(registry);
            FunctionCounter.builder("fleetmesh.store.read.cache.lookups", store, s -> s.readCacheStats()[3])
                    .tag("result", "hit").description("Events looked up in the store's read cache").register(registry);
            FunctionCounter.builder("fleetmesh.store.read.cache.lookups", store, s -> s.readCacheStats()[4])
                    .tag("result", "miss").description("Events looked up in the store's read cache").register(registry);
            FunctionCounter.builder("fleetmesh.store.index.reads", store, s -> s.readCacheStats()[5])
                    .description("Reads answered from one index and the read cache").register(registry);
        }
        Gauge.builder("fleetmesh.relay.fanout.queue", relay, Relay::fanOutQueued).baseUnit("events")
                .description("Events waiting for live fan-out").register(registry);
        FunctionCounter.builder("fleetmesh.relay.committed", relay, r -> r.writeStats()[0]).baseUnit("events")
                .description("Events committed to the store").register(registry);
        FunctionCounter.builder("fleetmesh.relay.commits", relay, r -> r.writeStats()[1])
                .description("Group-commit transactions").register(registry);

        DistributionSummary batchSizes = DistributionSummary.builder("fleetmesh.relay.commit.batch").baseUnit("events")
                .description("Events per group-commit transaction").register(registry);
        Timer committed = Timer.builder("fleetmesh.relay.commit.duration").tag("outcome", "ok")
                .description("Group-commit transaction time").register(registry);
        Timer failed = Timer.builder("fleetmesh.relay.commit.duration").tag("outcome", "failed")
                .description("Group-commit transaction time").register(registry);
        relay.ingest().commitTimes().addListener((n, nanos, ok) -> {
            if (ok) {
                batchSizes.record(n);
                committed.record(nanos, TimeUnit.NANOSECONDS);
            } else {
                failed.record(nanos, TimeUnit.NANOSECONDS);
            }
        });
        relay.ingest().addListener(this::count);

        Capacity capacity = relay.capacity();
        Gauge.builder("fleetmesh.capacity.pressure", capacity, c -> c.pressure().level())
                .description("Pressure signal: the worst source as a share of its high mark (1.0 at the mark)").register(registry);
        for (Pressure.Source s : Pressure.Source.values()) {
            if (s == Pressure.Source.NONE) {
                continue;
            }
            Gauge.builder("fleetmesh.capacity.signal", capacity, c -> source(c.pressure(), s)).tag("source", s.label())
                    .description("One source of the pressure signal as a share of its high mark").register(registry);
        }
        for (Priority p : Priority.values()) {
            Gauge.builder("fleetmesh.capacity.shedding", capacity, c -> c.sheds(p) ? 1 : 0).tag("tier", p.label())
                    .description("1 while the tier is being shed").register(registry);
            FunctionCounter.builder("fleetmesh.capacity.refused", capacity, c -> c.refused(p)).tag("tier", p.label())
                    .description("Requests refused rate-limited because their tier was shed").register(registry);
        }
    }

    private static double source(Pressure p, Pressure.Source s) {
        switch (s) {
        case WRITE_QUEUE:
            return p.writeQueue();
        case COMMIT_LATENCY:
            return p.commitLatency();
        case HEAP:
            return p.heap();
        case QUERY_QUEUE:
            return p.queryQueue();
        default:
            return 0;
        }
    }

    /** On the thread that finished the batch (often the writer): no allocation once a series exists. */
    private void count(Origin origin, List<Event> batch, List<Ingest.Outcome> outcomes) {
        int from = origin(origin);
        for (Ingest.Outcome o : outcomes) {
            int i = (from * STATUSES.length + o.status().ordinal()) * REASONS.size() + reason(o.message());
            Counter c = events.get(i);
            if (c == null) {
                c = Counter.builder("fleetmesh.relay.events").tag("origin", ORIGINS.get(from))
                        .tag("outcome", o.status().name().toLowerCase(Locale.ROOT)).tag("reason", REASONS.get(i % REASONS.size()))
                        .description("Events answered, by who brought them, outcome and the answer's prefix word")
                        .register(registry); // the registry returns the one meter of these tags
                events.set(i, c);
            }
            c.increment();
        }
    }

    static int origin(Origin origin) {
        if (origin instanceof Origin.Client) {
            return 0;
        }
        if (origin instanceof Origin.Peer) {
            return 1;
        }
        return origin instanceof Origin.Sync ? 2 : 3;
    }

    /** The index in {@link #REASONS} of an answer's prefix word ({@code invalid}, {@code rate-limited}, ...). */
    static int reason(String message) {
        int colon = message.indexOf(':');
        if (colon <= 0) {
            return REASONS.size() - 2; // none
        }
        for (int i = 0; i < REASONS.size() - 2; i++) {
            String word = REASONS.get(i);
            if (word.length() == colon && message.startsWith(word)) {
                return i;
            }
        }
        return REASONS.size() - 1; // other
    }
}
