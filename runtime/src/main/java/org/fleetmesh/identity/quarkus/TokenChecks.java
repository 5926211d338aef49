package org.fleetmesh.identity.quarkus;

import java.util.Optional;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.fleetmesh.identity.capability.CheckAdmission;
import org.fleetmesh.spi.clients.ClientKeys;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The node's one gate in front of every HTTP surface that checks capability tokens (the admin routes, the agent API):
 * a request that carries a token is admitted by {@link CheckAdmission} on the event loop, before a worker thread, a
 * body or a signature is spent on it, and its check then runs on a worker thread. The refusals are JSON
 * {@code {"error": reason}}: 401 with {@code WWW-Authenticate: Bearer}, 403, 429 and 503 with {@code Retry-After}.
 * Metric: {@code fleetmesh_token_checks_refused_total{why="rate-limited"|"busy"}}.
 */
@ApplicationScoped
public class TokenChecks {
    /** Why a request may not go on: an HTTP status and a reason. */
    public record Denial(int status, String reason) {
    }

    @Inject
    ClientKeys keys;

    @Inject
    MeterRegistry registry;

    private final CheckAdmission admission = CheckAdmission.defaults();
    private volatile Counter rateLimited;
    private volatile Counter busy;

    /**
     * A route handler that runs {@code check} for a request: at once on the event loop when it carries no
     * {@code Authorization} header (a cheap refusal, or loopback access), otherwise on a worker thread once admitted.
     * An empty answer lets the route go on; a denial answers the request (its body, if any, read and dropped).
     */
    public Handler<RoutingContext> gate(Function<HttpServerRequest, Optional<Denial>> check) {
        return ctx -> {
            HttpServerRequest request = ctx.request();
            if (request.getHeader("Authorization") == null) {
                Optional<Denial> d = check.apply(request);
                if (d.isPresent()) {
                    refuse(ctx, d.get(), 0);
                } else {
                    ctx.next();
                }
                return;
            }
            String address = address(request);
            Optional<CheckAdmission.Refusal> no = admission.admit(address, System.nanoTime());
            if (no.isPresent()) {
                (no.get().status() == 429 ? rateLimited() : busy()).increment();
                refuse(ctx, new Denial(no.get().status(), no.get().reason()), no.get().retryAfterSeconds());
                return;
            }
            request.pause(); // a body is read only once the token holds
            ctx.vertx().executeBlocking(() -> check.apply(request), false).onComplete(ar -> {
                boolean refused = ar.succeeded() && ar.result().isPresent()
                        && (ar.result().get().status() == 401 || ar.result().get().status() == 403);
                admission.done(address, refused, System.nanoTime());
                request.resume();
                if (ar.failed()) {
                    ctx.fail(ar.cause());
                } else if (ar.result().isEmpty()) {
                    ctx.next();
                } else {
                    refuse(ctx, ar.result().get(), 0);
                }
            });
        };
    }

    /** The key a request's refused tokens are counted under: its client address as the relay keys it. */
    String address(HttpServerRequest request) {
        String remote = request.remoteAddress() == null ? null : request.remoteAddress().hostAddress();
        return keys.of(remote, request.headers().getAll(keys.header()));
    }

    /** Answers {@code ctx} with {@code denial}; {@code retryAfter} seconds in {@code Retry-After} when above 0. */
    public static void refuse(RoutingContext ctx, Denial denial, long retryAfter) {
        if (ctx.response().ended()) {
            return;
        }
        if (denial.status() == 401) {
            ctx.response().putHeader("WWW-Authenticate", "Bearer");
        }
        if (retryAfter > 0) {
            ctx.response().putHeader("Retry-After", Long.toString(retryAfter));
        }
        ctx.response().setStatusCode(denial.status()).putHeader("Content-Type", "application/json")
                .end(new io.vertx.core.json.JsonObject().put("error", denial.reason()).encode());
    }

    private Counter rateLimited() {
        Counter c = rateLimited;
        if (c == null) {
            c = rateLimited = Counter.builder("fleetmesh.token.checks.refused").tag("why", "rate-limited")
                    .description("requests whose token was not checked: their address had too many tokens refused")
                    .register(registry);
        }
        return c;
    }

    private Counter busy() {
        Counter c = busy;
        if (c == null) {
            c = busy = Counter.builder("fleetmesh.token.checks.refused").tag("why", "busy")
                    .description("requests whose token was not checked: too many checks running (node-wide or "
                            + "from their address)")
                    .register(registry);
        }
        return c;
    }
}
