package org.fleetmesh.settlement.lightning.l402;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.spi.settlement.Capability;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Serves {@link L402Export} on {@code fleetmesh.l402.path} (default {@code /l402/export}) when
 * {@code fleetmesh.l402.enabled}: {@code GET ?filter=<url-encoded filter JSON>} answers 402 with an
 * L402 challenge, or, with {@code Authorization: L402 <macaroon>:<preimage>}, streams the events as
 * {@code application/x-ndjson}. The rail and the store come from CDI; when either is missing the
 * answer is 503 with the reason. Work runs on a worker thread (the store blocks).
 */
@ApplicationScoped
public class L402ExportRoute {
    private static final Logger LOG = Logger.getLogger(L402ExportRoute.class);
    static final String NDJSON = "application/x-ndjson";

    @Inject
    L402Config config;

    @Inject
    Instance<SettlementRail> rails;

    @Inject
    Instance<EventStore> stores;

    @ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    Path dataDir;

    /** The core relay's clamp for {@code limit}; an export never delivers more. */
    @ConfigProperty(name = "fleetmesh.relay.max-limit", defaultValue = "5000")
    int maxLimit;

    @Inject
    Instance<org.fleetmesh.spi.clients.ClientKeys> clientKeys;

    private L402Export export;
    private ChallengeBudget challenges;
    /** Export requests answered at once. */
    static final int MAX_IN_FLIGHT = 16;
    private final java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(MAX_IN_FLIGHT);

    void routes(@Observes Router router) {
        if (!config.enabled()) {
            return;
        }
        L402Settings settings = new L402Settings(config.priceMsatPerEvent(), config.minPriceMsat(), config.tokenLifetime(),
                config.invoiceExpiry(), maxLimit, config.location());
        byte[] rootKey = L402RootKey.load(config.rootKey(), config.rootKeyFile(), dataDir);
        export = new L402Export(settings, rootKey, this::store, this::rail);
        challenges = new ChallengeBudget(config.challengesPerMinute(), config.challengesPerMinuteTotal(),
                java.time.Duration.ofMinutes(1).toNanos(), 16_384);
        // at most MAX_IN_FLIGHT requests on worker threads at once (each may count in the store and open an invoice):
        // one more is answered 503 on the event loop, so a stranger's requests queue no task
        router.route(config.path()).handler(ctx -> {
            if (!inFlight.tryAcquire()) {
                ctx.response().putHeader("Retry-After", "1");
                L402Export.corsHeaders().forEach(ctx.response()::putHeader);
                refuse(ctx.response(), new L402Export.Refused(L402Refusal.Code.UNAVAILABLE,
                        "busy: " + MAX_IN_FLIGHT + " export requests are being answered; try again"));
                return;
            }
            java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);
            ctx.addEndHandler(v -> {
                if (held.getAndSet(false)) {
                    inFlight.release();
                }
            });
            ctx.next();
        });
        router.route(config.path()).blockingHandler(this::handle, false);
        LOG.infof("L402 paid export on %s: %d msat per event, at least %d msat", config.path(), settings.pricePerEventMsat(),
                settings.minPriceMsat());
    }

    private EventStore store() {
        if (stores.isUnsatisfied()) {
            throw new L402Refusal(L402Refusal.Code.UNAVAILABLE, "no event store is configured on this node");
        }
        if (stores.isAmbiguous()) {
            throw new L402Refusal(L402Refusal.Code.UNAVAILABLE, "more than one event store bean: cannot choose");
        }
        return stores.get();
    }

    private SettlementRail rail() {
        // L402 is Lightning: a macaroon bound to a BOLT-11 invoice's hash; other rails (Cashu) have no place here
        List<SettlementRail> usable = rails.stream().filter(r -> r.capabilities().contains(Capability.PREIMAGE_INVOICE))
                .filter(r -> !r.id().startsWith("cashu:")).toList();
        if (usable.isEmpty()) {
            throw new L402Refusal(L402Refusal.Code.UNAVAILABLE, rails.isUnsatisfied()
                    ? "no settlement rail is available on this node (is the Lightning adapter configured?)"
                    : "no settlement rail here can issue invoices on a given preimage");
        }
        if (usable.size() > 1) {
            throw new L402Refusal(L402Refusal.Code.UNAVAILABLE, "more than one settlement rail can invoice: cannot choose");
        }
        return usable.get(0);
    }

    void handle(RoutingContext ctx) {
        HttpServerResponse response = ctx.response();
        L402Export.corsHeaders().forEach(response::putHeader);
        HttpMethod method = ctx.request().method();
        if (method == HttpMethod.OPTIONS) {
            response.setStatusCode(204).end();
            return;
        }
        if (method != HttpMethod.GET) {
            response.putHeader("Allow", "GET, OPTIONS");
            refuse(response, new L402Export.Refused(L402Refusal.Code.METHOD_NOT_ALLOWED, "use GET"));
            return;
        }
        List<String> filters;
        try {
            filters = ctx.queryParam("filter");
        } catch (RuntimeException e) {
            refuse(response, new L402Export.Refused(L402Refusal.Code.BAD_FILTER, "bad filter: unreadable query string"));
            return;
        }
        if (filters.size() > 1) {
            refuse(response, new L402Export.Refused(L402Refusal.Code.BAD_FILTER, "bad filter: give exactly one filter parameter"));
            return;
        }
        List<String> auth = ctx.request().headers().getAll("Authorization");
        if (auth.size() > 1) {
            refuse(response, new L402Export.Refused(L402Refusal.Code.MALFORMED_AUTHORIZATION,
                    "malformed Authorization: more than one Authorization header"));
            return;
        }
        long now = Instant.now().getEpochSecond();
        L402Export.Outcome outcome;
        try {
            String address = address(ctx.request());
            outcome = export.handle(filters.isEmpty() ? null : filters.get(0), auth.isEmpty() ? null : auth.get(0), now,
                    () -> {
                        long wait = challenges.admit(address, System.nanoTime());
                        if (wait > 0) {
                            long seconds = Math.max(1, (wait + 999_999_999L) / 1_000_000_000L);
                            response.putHeader("Retry-After", Long.toString(seconds));
                            throw new L402Refusal(L402Refusal.Code.RATE_LIMITED, "rate-limited: too many challenges "
                                    + "(each opens an invoice) asked for lately, from your address (at most "
                                    + config.challengesPerMinute() + " a minute) or in all (" + config.challengesPerMinuteTotal()
                                    + "); try again in " + seconds + " s");
                        }
                    });
        } catch (RuntimeException e) {
            LOG.warn("L402 export failed", e);
            refuse(response, new L402Export.Refused(L402Refusal.Code.UNAVAILABLE, "the event store or the settlement rail failed (" + e.getClass().getSimpleName() + "; see the node log)"));
            return;
        }
        if (outcome instanceof L402Export.Refused r) {
            refuse(response, r);
        } else if (outcome instanceof L402Export.Challenge c) {
            for (String h : c.challenge().headers()) {
                response.headers().add("WWW-Authenticate", h);
            }
            response.setStatusCode(402).putHeader("Content-Type", "application/json").end(c.body());
        } else {
            stream(response, (L402Export.Granted) outcome, now);
        }
    }

    private void stream(HttpServerResponse response, L402Export.Granted g, long now) {
        response.setStatusCode(200).setChunked(true).putHeader("Content-Type", NDJSON)
                .putHeader("Cache-Control", "no-store");
        try {
            export.stream(g, now, json -> {
                awaitDrain(response);
                response.write(Buffer.buffer((json + "\n").getBytes(StandardCharsets.UTF_8)));
            });
            response.end();
        } catch (RuntimeException e) {
            LOG.warn("L402 export stream failed", e);
            response.reset(); // the client sees a broken stream, never a truncated success
        }
    }

    private static void awaitDrain(HttpServerResponse response) {
        if (!response.writeQueueFull()) {
            return;
        }
        CountDownLatch drained = new CountDownLatch(1);
        response.drainHandler(v -> drained.countDown());
        if (!response.writeQueueFull()) {
            return;
        }
        try {
            if (!drained.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("client stopped reading");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while streaming", e);
        }
    }

    /** The client's key as the node's relay keys it (trusted proxies, IPv6 by /64); the peer's address without one. */
    private String address(io.vertx.core.http.HttpServerRequest request) {
        String remote = request.remoteAddress() == null ? "unknown" : request.remoteAddress().hostAddress();
        if (clientKeys.isResolvable()) {
            org.fleetmesh.spi.clients.ClientKeys k = clientKeys.get();
            return k.of(remote, request.headers().getAll(k.header()));
        }
        return remote;
    }

    private static void refuse(HttpServerResponse response, L402Export.Refused r) {
        if (r.status() == 401) {
            // RFC 7235: a 401 carries a challenge. No invoice is made for a failed attempt: the error says
            // what was wrong, and a request without credentials gets a fresh 402 challenge.
            response.putHeader("WWW-Authenticate", "L402 version=\"0\", error=\"" + r.code().wire() + "\"");
        }
        response.setStatusCode(r.status()).putHeader("Content-Type", "application/json").end(r.body());
    }
}
