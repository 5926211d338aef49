package org.fleetmesh.status.quarkus;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.peering.quarkus.AdminAccess;
import org.fleetmesh.peering.quarkus.MeshAdminRoutes;
import org.fleetmesh.standing.StandingDocument;
import org.fleetmesh.standing.SubjectView;
import org.fleetmesh.standing.Views;
import org.fleetmesh.standing.quarkus.FindingsRuntime;
import org.fleetmesh.standing.quarkus.StandingRuntime;
import org.fleetmesh.status.RateRing;
import org.fleetmesh.status.Sse;
import org.fleetmesh.status.StreamSlots;
import org.fleetmesh.spi.schedule.Repeating;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The operator's status page (docs/spec/mesh-link.md, "Status page"; docs/OPERATING.md, "Reading the status page"):
 * {@code GET /mesh/} (the page), {@code GET /mesh/page.js} and {@code GET /mesh/page.css} (its script and style,
 * shipped in the jar), and {@code GET /mesh/status/stream}, server-sent events carrying a snapshot every
 * {@code fleetmesh.status.stream-interval}: the {@code /mesh/status} document, the standing views, the readiness
 * checks and the rates of the last hour. Every one of them has the access rule of {@code /mesh/status} (loopback
 * without a token, elsewhere {@code admin:read}). Open streams are bounded ({@code fleetmesh.status.max-streams},
 * 503 beyond); one thread builds one snapshot per tick for all of them, so viewers cost writes, not work.
 */
@ApplicationScoped
public class StatusPageRoutes {
    private static final Logger LOG = Logger.getLogger(StatusPageRoutes.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Findings listed per subject at most; all of them are in {@code GET /mesh/standing}. */
    static final int MAX_DETAILS = 20;
    /**
     * Subjects listed at most. Anyone may send the relay a kind 1804 event naming any subject (one with a bad id or
     * signature is kept too, as ignored), so the standing book holds up to {@code fleetmesh.standing.max-findings}
     * subjects a stranger chose; each snapshot lists the ones that matter most and counts the rest.
     */
    static final int MAX_SUBJECTS = 100;
    /** Characters of one string in the standing part of a snapshot at most (a stranger picks its tags' lengths). */
    static final int MAX_TEXT = 256;
    /** The series the plots draw, in the order they are sampled. */
    static final List<String> SERIES = List.of("events_accepted", "frames_in", "frames_out", "bytes_in", "bytes_out",
            "receipts");
    /** A stream whose writes have not drained for this long is closed (a reader that stopped reading). */
    static final Duration STALLED = Duration.ofSeconds(30);
    /** Readiness checks are run at most this often (a rail's check may ask its backend). */
    static final Duration HEALTH_EVERY = Duration.ofSeconds(5);
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    @Inject
    AdminAccess access;

    @Inject
    MeshAdminRoutes admin;

    @Inject
    StandingRuntime standing;

    @Inject
    FindingsRuntime findings;

    @Inject
    StatusConfig config;

    @Inject
    MeterRegistry registry;

    @Inject
    @Any
    Instance<HealthCheck> checks;

    private final Map<String, Asset> assets = new HashMap<>();
    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();
    private StreamSlots slots;
    private RateRing ring;
    private volatile ScheduledExecutorService ticker;
    private long interval;
    /** How long a stream lasts, ms (fleetmesh.status.stream-max-age). */
    private long maxAge;
    private long sampleEvery;
    /** Per peer and chain: the head last seen and when it moved (pruned to the peers listed). */
    private final Map<String, Moved> heads = new HashMap<>();
    private volatile ObjectNode health;
    private volatile long healthAt;

    private record Asset(String type, Buffer body) {
    }

    private record Moved(String head, long at) {
    }

    @PostConstruct
    void init() {
        if (config.maxStreams() < 0) {
            throw new IllegalArgumentException("fleetmesh.status.max-streams is at least 0, not " + config.maxStreams());
        }
        if (config.samples() < 1 || config.samples() > 10_000) {
            throw new IllegalArgumentException("fleetmesh.status.samples is 1..10000, not " + config.samples());
        }
        slots = new StreamSlots(config.maxStreams());
        ring = new RateRing(SERIES, config.samples());
        interval = Math.max(250, config.streamInterval().toMillis());
        maxAge = Math.max(1000, config.streamMaxAge().toMillis());
        sampleEvery = Math.max(1000, config.sampleInterval().toMillis());
        assets.put("/mesh/", asset("index.html", "text/html; charset=utf-8"));
        assets.put("/mesh/page.js", asset("page.js", "text/javascript; charset=utf-8"));
        assets.put("/mesh/page.css", asset("page.css", "text/css; charset=utf-8"));
    }

    private static Asset asset(String name, String type) {
        String path = "org/fleetmesh/status/page/" + name;
        try (InputStream in = StatusPageRoutes.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("the status page's " + path + " is missing from the jar");
            }
            return new Asset(type, Buffer.buffer(in.readAllBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void routes(@Observes Router router) {
        // Vert.x's path routes match "/mesh/" and "/mesh" alike (a trailing slash is ignored): a regex route matches
        // the page's own path exactly and leaves "/mesh" (the link WebSocket) alone; the caller is admitted first
        for (String path : List.of("/mesh/", "/mesh/page.js", "/mesh/page.css")) {
            router.getWithRegex(java.util.regex.Pattern.quote(path)).order(-10)
                    .handler(access.gate(Right.ADMIN_READ, true)).handler(ctx -> asset(ctx, path));
        }
        router.get("/mesh/status/stream").handler(access.gate(Right.ADMIN_READ, true)).blockingHandler(this::stream, false);
        // the metrics name every peer (label peer) with its state, round-trip time and traffic: what /mesh/status
        // tells, under the same rule unless the operator opens them (before Micrometer's own route)
        if (!config.metricsPublic()) {
            router.route().pathRegex("/q/metrics(/.*)?").order(-10).handler(access.gate(Right.ADMIN_READ, true));
        }
    }

    /** The snapshot and sampling thread starts once the node has booted (not while boot still loads its classes). */
    void start(@Observes StartupEvent started) {
        ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "fleetmesh-status");
            thread.setDaemon(true);
            return thread;
        });
        t.scheduleWithFixedDelay(() -> surviving("tick", this::tick), interval, interval, TimeUnit.MILLISECONDS);
        t.scheduleWithFixedDelay(() -> surviving("sample", this::sample), sampleEvery, sampleEvery,
                TimeUnit.MILLISECONDS);
        ticker = t;
    }

    /**
     * Runs one periodic task and keeps anything it throws, an Error too (an OutOfMemoryError while the heap is short),
     * from ending it: a periodic task that throws is never run again, and every open page would go stale until a
     * restart.
     */
    private static void surviving(String what, Runnable task) {
        Repeating.surviving("status: a " + what, task).run();
    }

    private void asset(RoutingContext ctx, String path) {
        Asset a = assets.get(path);
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, a.type()).putHeader("Cache-Control", "no-store")
                .putHeader("Content-Security-Policy", CSP).putHeader("X-Content-Type-Options", "nosniff")
                .putHeader("Referrer-Policy", "no-referrer").putHeader("X-Frame-Options", "DENY").end(a.body());
    }

    private void stream(RoutingContext ctx) {
        ScheduledExecutorService t = ticker;
        if (t == null) {
            ctx.response().setStatusCode(503).putHeader("Retry-After", "1")
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(JSON.createObjectNode().put("error", "starting: the node is still starting").toString());
            return;
        }
        if (!slots.tryAcquire()) {
            ctx.response().setStatusCode(503).putHeader("Retry-After", "5")
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(JSON.createObjectNode().put("error", "busy: " + slots.max()
                            + " status streams are open, the most this node serves (fleetmesh.status.max-streams);"
                            + " try again later").toString());
            return;
        }
        HttpServerResponse r = ctx.response();
        Stream s = new Stream(r);
        r.closeHandler(v -> s.close());
        r.exceptionHandler(e -> s.close());
        // its connection ends with it (at stream-max-age, or stalled): never reused for the browser's next request
        r.setChunked(true).putHeader(HttpHeaders.CONNECTION, "close")
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .putHeader("Cache-Control", "no-store").putHeader("X-Accel-Buffering", "no")
                .putHeader("X-Content-Type-Options", "nosniff");
        streams.add(s);
        if (r.closed()) {
            s.close(); // closed before the handler was set: give the slot back now
            return;
        }
        r.write("retry: 2000\n\n");
        t.execute(() -> {
            try {
                s.send(Sse.event("status", snapshot().toString()));
            } catch (RuntimeException e) {
                LOG.debugf(e, "status: first snapshot failed");
            }
        });
    }

    /** One snapshot per tick for every open stream. */
    private void tick() {
        if (streams.isEmpty()) {
            return;
        }
        String event;
        try {
            event = Sse.event("status", snapshot().toString());
        } catch (RuntimeException e) {
            LOG.warnf(e, "status: a snapshot failed");
            event = Sse.event("failed", JSON.createObjectNode().put("error", String.valueOf(e)).toString());
        }
        long now = System.currentTimeMillis();
        for (Stream s : streams) {
            s.send(event);
            if (s.stalledSince > 0 && now - s.stalledSince > STALLED.toMillis()) {
                LOG.infof("status: closing a stream that has not read for %d s", STALLED.toSeconds());
                s.close();
                s.response.reset();
            } else if (now - s.openedAt >= maxAge) {
                LOG.debugf("status: ending a stream open for %d s (fleetmesh.status.stream-max-age)", maxAge / 1000);
                s.close();
                try {
                    s.response.end();
                } catch (RuntimeException e) {
                    s.response.reset(); // already closed by the other side
                }
            }
        }
    }

    /** The snapshot a stream carries: {"at", "status", "standing", "health", "rates", "streams"}. */
    ObjectNode snapshot() {
        ObjectNode root = JSON.createObjectNode();
        long now = System.currentTimeMillis();
        root.put("at", now);
        ObjectNode status = admin.statusDocument();
        markHeads(status, now);
        root.set("status", status);
        // the views of the standing thread's last recompute: a tick reads no findings from the book
        ObjectNode views = standingView(standing.views());
        views.set("findings", JSON.valueToTree(findings.counters()));
        root.set("standing", views);
        root.set("health", health(now));
        RateRing.Rates rates;
        synchronized (ring) {
            rates = ring.rates();
        }
        ObjectNode r = JSON.valueToTree(rates.asMap());
        r.put("step_ms", sampleEvery);
        r.put("samples", ring.capacity());
        root.set("rates", r);
        root.putObject("streams").put("open", slots.inUse()).put("max", slots.max());
        return root;
    }

    /**
     * The standing part of a snapshot: the {@code GET /mesh/standing} document of at most {@link #MAX_SUBJECTS}
     * subjects (those with counted findings first, the lowest view first, then those with the most findings; listed by
     * DID), {@link #MAX_DETAILS} findings each, strings clipped to {@link #MAX_TEXT}, with {@code subjects_total} and
     * {@code subjects_listed}. Its size is bounded whatever strangers sent.
     */
    static ObjectNode standingView(Views views) {
        Map<String, SubjectView> all = views.subjects();
        Views listed = views;
        if (all.size() > MAX_SUBJECTS) {
            Comparator<SubjectView> first = Comparator.comparing((SubjectView v) -> v.counted().isEmpty())
                    .thenComparingDouble(v -> Math.min(v.transit(), v.compute()))
                    .thenComparingInt(v -> -(v.counted().size() + v.ignored().size()));
            Map<String, SubjectView> top = new HashMap<>();
            all.entrySet().stream().sorted(Map.Entry.comparingByValue(first)).limit(MAX_SUBJECTS)
                    .forEach(e -> top.put(e.getKey(), e.getValue()));
            listed = new Views(top);
        }
        ObjectNode doc = StandingDocument.of(listed, MAX_DETAILS);
        clip(doc);
        doc.put("subjects_total", all.size());
        doc.put("subjects_listed", listed.subjects().size());
        return doc;
    }

    private static void clip(JsonNode node) {
        if (node instanceof ObjectNode o) {
            for (var it = o.fields(); it.hasNext();) {
                var e = it.next();
                if (e.getValue().isTextual() && e.getValue().asText().length() > MAX_TEXT) {
                    e.setValue(JSON.getNodeFactory().textNode(e.getValue().asText().substring(0, MAX_TEXT - 1) + "…"));
                } else {
                    clip(e.getValue());
                }
            }
        } else if (node instanceof ArrayNode a) {
            a.forEach(StatusPageRoutes::clip);
        }
    }

    /** Adds {@code head_moved_at} to each custody chain: when this node last saw its head move. */
    private synchronized void markHeads(ObjectNode status, long now) {
        Set<String> seen = new java.util.HashSet<>();
        for (JsonNode p : status.path("peers")) {
            JsonNode custody = p.path("custody");
            for (String side : List.of("sent", "received")) {
                JsonNode chain = custody.path(side);
                if (!chain.isObject()) {
                    continue;
                }
                String key = p.path("did").asText() + " " + side;
                seen.add(key);
                String head = chain.path("head").asText();
                Moved m = heads.get(key);
                if (m == null) {
                    m = new Moved(head, 0); // moved before this node was watching: unknown
                    heads.put(key, m);
                } else if (!m.head().equals(head)) {
                    m = new Moved(head, now);
                    heads.put(key, m);
                }
                if (m.at() > 0) {
                    ((ObjectNode) chain).put("head_moved_at", m.at());
                } else {
                    ((ObjectNode) chain).putNull("head_moved_at");
                }
            }
        }
        heads.keySet().retainAll(seen);
    }

    private ObjectNode health(long now) {
        ObjectNode h = health;
        if (h != null && now - healthAt < HEALTH_EVERY.toMillis()) {
            return h;
        }
        h = JSON.createObjectNode();
        boolean up = true;
        var list = h.putArray("checks");
        for (var handle : checks.select(Readiness.Literal.INSTANCE).handles()) {
            ObjectNode c = list.addObject();
            try {
                HealthCheckResponse r = handle.get().call();
                c.put("name", r.getName());
                c.put("status", r.getStatus().name());
                up &= r.getStatus() == HealthCheckResponse.Status.UP;
                c.set("data", JSON.valueToTree(r.getData().orElse(Map.of())));
            } catch (RuntimeException e) {
                up = false;
                c.put("name", handle.getBean().getBeanClass().getSimpleName());
                c.put("status", "DOWN");
                c.putObject("data").put("error", String.valueOf(e));
            }
        }
        h.put("status", up ? "UP" : "DOWN");
        health = h;
        healthAt = now;
        return h;
    }

    /** Samples the counters behind the plots. */
    private void sample() {
        try {
            long[] totals = new long[SERIES.size()];
            totals[0] = (long) sum("fleetmesh.relay.events", "outcome", "accepted");
            totals[1] = (long) sum("fleetmesh.mesh.peer.messages", "direction", "in");
            totals[2] = (long) sum("fleetmesh.mesh.peer.messages", "direction", "out");
            totals[3] = (long) sum("fleetmesh.mesh.peer.bytes", "direction", "in");
            totals[4] = (long) sum("fleetmesh.mesh.peer.bytes", "direction", "out");
            long receipts = 0;
            for (JsonNode p : admin.statusDocument().path("peers")) {
                receipts += p.path("custody").path("sent").path("size").asLong(0);
                receipts += p.path("custody").path("received").path("size").asLong(0);
            }
            totals[5] = receipts;
            synchronized (ring) {
                ring.record(System.currentTimeMillis(), totals);
            }
        } catch (RuntimeException e) {
            LOG.debugf(e, "status: sampling failed");
        }
    }

    private double sum(String name, String tag, String value) {
        double total = 0;
        for (Meter m : registry.find(name).tag(tag, value).meters()) {
            if (m instanceof Counter c) {
                total += c.count();
            } else if (m instanceof FunctionCounter f) {
                total += f.count();
            }
        }
        return total;
    }

    void stop(@Observes ShutdownEvent stopping) {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        for (Stream s : new ArrayList<>(streams)) {
            s.close();
            try {
                s.response.end();
            } catch (RuntimeException ignored) {
                // already closed
            }
        }
    }

    /** One open stream; its slot is given back once, on close. */
    private final class Stream {
        final HttpServerResponse response;
        final AtomicBoolean closed = new AtomicBoolean();
        final long openedAt = System.currentTimeMillis();
        volatile long stalledSince;

        Stream(HttpServerResponse response) {
            this.response = response;
        }

        void send(String event) {
            if (closed.get()) {
                return;
            }
            if (response.writeQueueFull()) {
                if (stalledSince == 0) {
                    stalledSince = System.currentTimeMillis();
                }
                return; // a slow reader skips snapshots; what waits for it stays bounded
            }
            stalledSince = 0;
            try {
                response.write(event);
            } catch (RuntimeException e) {
                close();
            }
        }

        void close() {
            if (closed.compareAndSet(false, true)) {
                streams.remove(this);
                slots.release();
            }
        }
    }
}
