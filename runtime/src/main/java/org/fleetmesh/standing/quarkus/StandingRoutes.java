package org.fleetmesh.standing.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.peering.quarkus.AdminAccess;
import org.fleetmesh.standing.StandingDocument;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The standing API (docs/spec/standing.md): {@code GET /mesh/standing}, every subject's two views and the findings
 * counted and ignored (access as {@code /mesh/status}: loopback without a token, elsewhere {@code admin:read});
 * {@code POST /mesh/findings} ({@code admin:write}), an operator's evidence that this node verifies and signs.
 */
@ApplicationScoped
public class StandingRoutes {
    /** Findings listed per subject at most. */
    static final int MAX_DETAILS = 50;
    /** A finding's content is at most 60,000 bytes; the subject and JSON around it fit in the rest. */
    static final int MAX_BODY = 65_536;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    AdminAccess access;

    @Inject
    StandingRuntime standing;

    @Inject
    FindingsRuntime findings;

    void routes(@Observes Router router) {
        router.get("/mesh/standing").handler(access.gate(Right.ADMIN_READ, true)).blockingHandler(this::standing);
        router.post("/mesh/findings").handler(access.gate(Right.ADMIN_WRITE, false)); // before the body route
        router.post("/mesh/findings").handler(BodyHandler.create(false).setBodyLimit(MAX_BODY)).blockingHandler(this::observe);
    }

    private void standing(RoutingContext ctx) {
        ObjectNode root = StandingDocument.of(standing.current(), MAX_DETAILS);
        root.set("findings", JSON.valueToTree(findings.counters()));
        json(ctx, 200, root);
    }

    private void observe(RoutingContext ctx) {
        JsonNode body;
        try {
            body = ctx.body().buffer() == null ? null : JSON.readTree(ctx.body().asString());
        } catch (java.io.IOException e) {
            body = null;
        }
        if (body == null || !body.isObject()) {
            json(ctx, 400, JSON.createObjectNode().put("error",
                    "invalid: the body is an evidence object with a \"subject\" DID"));
            return;
        }
        FindingsRuntime.Answer a = findings.observe((ObjectNode) body);
        json(ctx, a.status(), JSON.valueToTree(a.body()));
    }

    private static void json(RoutingContext ctx, int status, JsonNode body) {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(body.toString());
    }
}
