package org.fleetmesh.shards.quarkus;

import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.peering.quarkus.AdminAccess;
import org.fleetmesh.shards.Shard;
import org.fleetmesh.shards.ShardsSetting;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The shards admin API (docs/OPERATING.md, "Admin API"): {@code GET /mesh/shards} ({@code admin:read}),
 * {@code POST /mesh/shards} with {@code {"id", "filter", "mode"}} (201 declared, 200 replaced) and
 * {@code DELETE /mesh/shards/<id>} (204; {@code admin:write}); the same access rule as {@code /mesh/peers}.
 */
@ApplicationScoped
public class ShardAdminRoutes {
    private static final Logger LOG = Logger.getLogger(ShardAdminRoutes.class);
    static final int MAX_BODY = 16_384;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    ShardsRuntime shards;

    @Inject
    AdminAccess access;

    void routes(@Observes Router router) {
        router.get("/mesh/shards").handler(access.gate(Right.ADMIN_READ, false)).blockingHandler(this::list);
        router.post("/mesh/shards").handler(access.gate(Right.ADMIN_WRITE, false)); // before the body route
        router.post("/mesh/shards").handler(BodyHandler.create(false).setBodyLimit(MAX_BODY)).blockingHandler(this::add);
        router.delete("/mesh/shards/:id").handler(access.gate(Right.ADMIN_WRITE, false)).blockingHandler(this::remove);
    }

    private void list(RoutingContext ctx) {
        Map<String, Object> described = new LinkedHashMap<>();
        shards.describe(described);
        json(ctx, 200, JSON.valueToTree(described));
    }

    private void add(RoutingContext ctx) {
        Shard shard;
        boolean fresh;
        try {
            String body = ctx.body().asString();
            if (body == null || body.isBlank()) {
                throw new IllegalArgumentException("the body is {\"id\", \"filter\", \"mode\"}");
            }
            JsonNode root;
            try {
                root = JSON.readTree(body);
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException("the body is not JSON");
            }
            shard = ShardsSetting.shard(root);
            fresh = shards.declare(shard);
        } catch (IllegalArgumentException e) {
            error(ctx, 400, "invalid: " + e.getMessage());
            return;
        }
        LOG.infof("admin: %s shard %s: %s %s", fresh ? "declared" : "replaced", shard.id(), shard.mode().word(),
                org.fleetmesh.shards.ShardFilter.canonicalJson(shard.filter()));
        Object one = shards.describe(shard.id()).orElse(null);
        json(ctx, fresh ? 201 : 200, JSON.valueToTree(one));
    }

    private void remove(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        if (!ShardsSetting.isId(id)) {
            error(ctx, 400, "invalid: a shard id is 1 to 64 characters of [A-Za-z0-9._:-]");
            return;
        }
        if (!shards.remove(id)) {
            error(ctx, 404, "not found: no declared shard " + id);
            return;
        }
        LOG.infof("admin: removed shard %s", id);
        ctx.response().setStatusCode(204).end();
    }

    private static void error(RoutingContext ctx, int status, String reason) {
        json(ctx, status, JSON.createObjectNode().put("error", reason));
    }

    private static void json(RoutingContext ctx, int status, JsonNode body) {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(body.toString());
    }
}
