package org.fleetmesh.compute.quarkus;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.compute.agent.AgentApi;
import org.fleetmesh.compute.agent.AgentGuard;
import org.fleetmesh.compute.market.Market;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.capability.CapabilityVerifier;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.identity.quarkus.TokenChecks;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The agent API's routes (docs/spec/compute-agent.md, docs/spec/compute-agent-api.yaml), thin over
 * {@link AgentApi}: the token is checked before a body is read, bodies are bounded (413), the logic runs off the event
 * loop, unordered (Vert.x's ordered blocking handlers run one at a time per event loop, so one slow call held up
 * every other token's). {@link #ROUTES} lists what is served, and the OpenAPI document lists exactly these.
 */
@ApplicationScoped
public class AgentRoutes {
    private static final Logger LOG = Logger.getLogger(AgentRoutes.class);
    static final String BASE = "/mesh/compute";
    static final String OPENAPI = "META-INF/fleetmesh/compute-agent-api.yaml";
    private static final String BODY = "fleetmesh.agent.body";
    /** Every method and path served under {@link #BASE}, in the OpenAPI document's notation. */
    public static final List<String> ROUTES = List.of("GET /mesh/compute/offers", "PUT /mesh/compute/blobs",
            "POST /mesh/compute/jobs", "GET /mesh/compute/jobs", "GET /mesh/compute/jobs/{id}",
            "POST /mesh/compute/jobs/{id}/pay", "GET /mesh/compute/jobs/{id}/result", "GET /mesh/compute/openapi.yaml");

    @Inject
    AgentConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    org.fleetmesh.identity.quarkus.Revocations revocations;

    @Inject
    Instance<Market> market;

    @Inject
    TokenChecks tokenChecks;

    private volatile AgentApi api;
    private byte[] document;

    void routes(@Observes Router router) {
        if (!config.enabled()) {
            LOG.info("compute agent API is off (fleetmesh.compute.agent.enabled=false)");
            return;
        }
        document = document();
        router.get(BASE + "/openapi.yaml").handler(ctx -> ctx.response().setStatusCode(200)
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/yaml").end(io.vertx.core.buffer.Buffer.buffer(document)));
        guarded(router.get(BASE + "/offers")).blockingHandler(ctx -> answer(ctx, api().offers(auth(ctx))), false);
        bounded(guarded(router.put(BASE + "/blobs")), config.maxBlobBytes())
                .blockingHandler(ctx -> answer(ctx, api().putBlob(auth(ctx), body(ctx))), false);
        bounded(guarded(router.post(BASE + "/jobs")), config.maxBodyBytes())
                .blockingHandler(ctx -> answer(ctx, api().submit(auth(ctx),
                        new String(body(ctx), java.nio.charset.StandardCharsets.UTF_8))), false);
        guarded(router.get(BASE + "/jobs")).blockingHandler(ctx -> answer(ctx, api().jobs(auth(ctx))), false);
        guarded(router.get(BASE + "/jobs/:id"))
                .blockingHandler(ctx -> answer(ctx, api().job(auth(ctx), id(ctx))), false);
        guarded(router.post(BASE + "/jobs/:id/pay"))
                .blockingHandler(ctx -> answer(ctx, api().pay(auth(ctx), id(ctx))), false);
        guarded(router.get(BASE + "/jobs/:id/result"))
                .blockingHandler(ctx -> answer(ctx, api().result(auth(ctx), id(ctx))), false);
    }

    /** Refuses a request without a good token before anything else happens; 503 without a market. */
    private Route guarded(Route route) {
        route.failureHandler(AgentRoutes::failed);
        return route.handler(ctx -> {
            if (!market.isResolvable()) {
                json(ctx, 503, error("unavailable: this node has no compute market"));
                return;
            }
            if (ctx.request().headers().getAll("Authorization").size() > 1) {
                json(ctx, 400, error(org.fleetmesh.peering.quarkus.AdminAccess.TWO_AUTHORIZATIONS));
                return;
            }
            ctx.next();
        }).handler(tokenChecks.gate(request -> {
            // the token is checked on a worker thread once admitted (TokenChecks), never on the event loop
            AgentGuard.Access a = api().access(request.getHeader("Authorization"));
            return a.allowed() ? java.util.Optional.empty()
                    : java.util.Optional.of(new TokenChecks.Denial(a.status(), a.reason()));
        }));
    }

    /**
     * Reads the body after the guard, at most {@code limit} bytes: a declared {@code Content-Length} past it is
     * refused before a byte is read, a stream past it when it gets there (the rest is discarded). Vert.x's
     * BodyHandler cannot follow a handler, so the guard could not come first with it.
     */
    private static Route bounded(Route route, int limit) {
        return route.handler(ctx -> {
            io.vertx.core.http.HttpServerRequest req = ctx.request();
            String declared = req.getHeader(HttpHeaders.CONTENT_LENGTH);
            if (declared != null) {
                long n;
                try {
                    n = Long.parseLong(declared.strip());
                } catch (NumberFormatException e) {
                    n = -1;
                }
                if (n < 0 || n > limit) {
                    tooLarge(ctx, limit);
                    return;
                }
            }
            io.vertx.core.buffer.Buffer body = io.vertx.core.buffer.Buffer.buffer();
            boolean[] over = {false};
            req.handler(chunk -> {
                if (over[0]) {
                    return;
                }
                if (body.length() + chunk.length() > limit) {
                    over[0] = true;
                    tooLarge(ctx, limit);
                    return;
                }
                body.appendBuffer(chunk);
            });
            req.exceptionHandler(e -> LOG.debugf("agent API body of %s %s failed: %s", req.method(), req.path(), e));
            req.endHandler(v -> {
                if (!over[0] && !ctx.response().ended()) {
                    ctx.put(BODY, body.getBytes());
                    ctx.next();
                }
            });
            req.resume();
        });
    }

    private static void tooLarge(RoutingContext ctx, int limit) {
        ctx.response().putHeader("Connection", "close");
        json(ctx, 413, error("too large: the body is over " + limit + " bytes"));
    }

    private static byte[] body(RoutingContext ctx) {
        byte[] b = ctx.get(BODY);
        return b == null ? new byte[0] : b;
    }

    private AgentApi api() {
        AgentApi a = api;
        if (a == null) {
            synchronized (this) {
                a = api;
                if (a == null) {
                    a = new AgentApi(market.get(), new AgentGuard(roots(), revocations::current, Clock.systemUTC()), new AgentApi.Limits(
                            config.activeJobsPerToken(), config.rememberedJobs(), config.listLimit(),
                            config.defaultMemoryPages()));
                    api = a;
                }
            }
        }
        return a;
    }

    private List<CapabilityVerifier> roots() {
        List<CapabilityVerifier> roots = new ArrayList<>();
        roots.add(CapabilityVerifier.of(identity.secrets().publicKeys().transport()));
        for (String did : config.trustedRoots().orElse(List.of())) {
            roots.add(CapabilityVerifier.forDid(did, DidResolver.offline()));
        }
        return roots;
    }

    private static byte[] document() {
        try (InputStream in = AgentRoutes.class.getClassLoader().getResourceAsStream(OPENAPI)) {
            if (in == null) {
                throw new IllegalStateException(OPENAPI + " is missing from the runtime jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + OPENAPI, e);
        }
    }

    private static String auth(RoutingContext ctx) {
        return ctx.request().getHeader("Authorization");
    }

    private static String id(RoutingContext ctx) {
        return ctx.pathParam("id");
    }

    private static void answer(RoutingContext ctx, AgentApi.Answer a) {
        if (a.status() == 401) {
            ctx.response().putHeader("WWW-Authenticate", "Bearer");
        }
        json(ctx, a.status(), a.body());
    }

    /**
     * A store failing under a request (the node's PostgreSQL restarting, docs/OPERATING.md "Health and logs") is
     * answered 503 with {@code Retry-After}, as the relay answers such a write with {@code OK false "error: ..."}. A
     * submit the store failed under may have been recorded before it failed: the caller looks at its jobs before it
     * submits again. Any other failure goes on to the default 500.
     */
    private static void failed(RoutingContext ctx) {
        Throwable t = ctx.failure();
        if (t != null && storeFailure(t) && !ctx.response().ended()) {
            LOG.warnf("agent API %s %s: the store failed (%s); answered 503", ctx.request().method(),
                    ctx.request().path(), t.getMessage());
            ctx.response().putHeader("Retry-After", "2");
            json(ctx, 503, error("unavailable: this node's store failed (it is being restarted); try again (a job"
                    + " submitted may have been recorded: GET /mesh/compute/jobs shows it)"));
            return;
        }
        ctx.next();
    }

    /** Whether {@code t} was caused by the database (an SQLException in its causes). */
    static boolean storeFailure(Throwable t) {
        int depth = 0;
        for (Throwable c = t; c != null && depth < 16; c = c.getCause(), depth++) {
            if (c instanceof java.sql.SQLException) {
                return true;
            }
        }
        return false;
    }

    private static JsonNode error(String reason) {
        return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("error", reason);
    }

    private static void json(RoutingContext ctx, int status, JsonNode body) {
        if (ctx.response().ended()) {
            return;
        }
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(body.toString());
    }
}
