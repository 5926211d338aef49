package org.fleetmesh.peering.quarkus;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.delivery.quarkus.DeliveryRuntime;
import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.identity.quarkus.NodeAddress;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.peering.MeshStatus;
import org.fleetmesh.peering.PeerAddress;
import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.LinkLedger;
import org.fleetmesh.spi.peers.PeerStore;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The mesh's operator API (docs/spec/mesh-link.md, "Status" and "Admin API"): {@code GET /mesh/status} (loopback
 * without a token, elsewhere {@code admin:read}); {@code GET /mesh/peers} and {@code GET /mesh/peers/<did>/evidence}
 * ({@code admin:read}), {@code POST /mesh/peers} (with the peer's own {@code federate} filters, docs/spec/delivery.md),
 * {@code POST /mesh/peers/<did>/resume} and {@code DELETE /mesh/peers/<did>} ({@code admin:write}).
 */
@ApplicationScoped
public class MeshAdminRoutes {
    private static final Logger LOG = Logger.getLogger(MeshAdminRoutes.class);
    static final int MAX_BODY = 16_384;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    MeshPeers peers;

    @Inject
    AdminAccess access;

    @Inject
    NodeIdentity identity;

    @Inject
    NodeAddress address;

    @Inject
    DeliveryRuntime delivery;

    @Inject
    LinkLedger ledger;

    @Inject
    org.fleetmesh.shards.quarkus.ShardsRuntime shards;

    @Inject
    org.fleetmesh.compute.quarkus.MarketRuntime market;

    /** Evidence records one {@code GET /mesh/peers/<did>/evidence} returns at most. */
    static final int MAX_EVIDENCE = 1000;

    void routes(@Observes Router router) {
        // each route admits its caller first (AdminAccess.gate: no worker thread, no body read for a stranger; where a
        // body is read, the gate is a route of its own, since Vert.x puts a BodyHandler first in its route)
        router.get("/mesh/status").handler(access.gate(Right.ADMIN_READ, true)).blockingHandler(this::status);
        router.get("/mesh/peers").handler(access.gate(Right.ADMIN_READ, false)).blockingHandler(this::list);
        router.post("/mesh/peers").handler(access.gate(Right.ADMIN_WRITE, false));
        router.post("/mesh/peers").handler(BodyHandler.create(false).setBodyLimit(MAX_BODY)).blockingHandler(this::add);
        router.delete("/mesh/peers/:did").handler(access.gate(Right.ADMIN_WRITE, false)).blockingHandler(this::remove);
        router.post("/mesh/peers/:did/resume").handler(access.gate(Right.ADMIN_WRITE, false))
                .blockingHandler(this::resume);
        router.get("/mesh/peers/:did/evidence").handler(access.gate(Right.ADMIN_READ, false))
                .blockingHandler(this::evidence);
    }

    private void status(RoutingContext ctx) {
        json(ctx, 200, statusDocument());
    }

    /** The {@code /mesh/status} document (docs/spec/mesh-link.md, "Status"); the status page streams it too. */
    public ObjectNode statusDocument() {
        NodeDidDocument node = NodeDidDocument.of(identity.secrets().publicKeys(), address.endpoints());
        ObjectNode root = MeshStatus.of(node.shortForm(), node.keys().nostr().hex(), peers.links().view(), peers.sessions());
        root.put("handed_over_from", peers.handover().map(h -> h.priorKey()).orElse(null));
        ObjectNode keys = JSON.createObjectNode();
        keys.put("transport", node.transportDidKey());
        keys.put("agreement", node.agreementDidKey());
        keys.put("nostr", node.nostrDidKey());
        root.set("keys", keys);
        Map<String, Object> shardStatus = new java.util.LinkedHashMap<>();
        shards.describe(shardStatus);
        root.set("shards", JSON.valueToTree(shardStatus.get("shards")));
        root.set("compute", JSON.valueToTree(market.describe()));
        return root;
    }

    private void list(RoutingContext ctx) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("peers");
        for (PeerStore.StoredPeer p : peers.store().all()) {
            list.add(peerJson(p));
        }
        ArrayNode rotations = root.putArray("rotations");
        for (PeerStore.Rotation r : peers.store().rotations()) {
            rotations.addObject().put("old", r.oldKey()).put("new", r.newKey()).put("issued_at", r.issuedAt())
                    .put("recorded_at", r.recorded().getEpochSecond()).put("handover", r.handover());
        }
        json(ctx, 200, root);
    }

    private void add(RoutingContext ctx) {
        PeerAddress peer;
        Optional<JsonNode> federate;
        List<Filter> filters = null;
        try {
            peer = parse(ctx.body().asString());
            federate = federate(ctx.body().asString());
            if (federate.isPresent() && !federate.get().isNull()) {
                filters = delivery.filters(federate.get().toString());
            }
        } catch (IllegalArgumentException e) {
            error(ctx, 400, "invalid: " + e.getMessage());
            return;
        }
        PeerStore.StoredPeer stored = peers.add(peer);
        if (federate.isPresent()) {
            Optional<String> own = filters == null ? Optional.empty() : Optional.of(federate.get().toString());
            peers.store().federate(stored.key(), own);
            delivery.delivery().wanted(stored.key(), filters == null ? delivery.defaults() : filters);
            stored = peers.store().find(stored.key()).orElse(stored);
        }
        LOG.infof("admin: declared peer %s%s", peer, federate.map(f -> " asking it for " + f).orElse(""));
        json(ctx, 201, peerJson(stored));
    }

    /** {@code POST /mesh/peers/<did>/resume}: forwarding to a peer halted on a custody breach goes on. */
    private void resume(RoutingContext ctx) {
        String key;
        try {
            key = PeerAddress.keyOf(ctx.pathParam("did"));
        } catch (IllegalArgumentException e) {
            error(ctx, 400, "invalid: " + e.getMessage());
            return;
        }
        Map<String, Object> described = new java.util.LinkedHashMap<>();
        delivery.delivery().describe(key, described);
        Object halted = described.get("custody") instanceof Map<?, ?> custody ? custody.get("halted") : null;
        if (halted == null) {
            error(ctx, 409, "not halted: forwarding to " + key + " is not halted");
            return;
        }
        delivery.delivery().resume(key);
        LOG.infof("admin: resumed forwarding to %s (halted: %s)", key, halted);
        json(ctx, 200, JSON.createObjectNode().put("resumed", key).put("was", halted.toString()));
    }

    /** {@code GET /mesh/peers/<did>/evidence[?limit=n]}: the evidence recorded about a peer, oldest first. */
    private void evidence(RoutingContext ctx) {
        String key;
        int limit = MAX_EVIDENCE;
        try {
            key = PeerAddress.keyOf(ctx.pathParam("did"));
            String l = ctx.request().getParam("limit");
            if (l != null) {
                limit = Integer.parseInt(l);
                if (limit < 1 || limit > MAX_EVIDENCE) {
                    throw new IllegalArgumentException("limit is 1.." + MAX_EVIDENCE);
                }
            }
        } catch (NumberFormatException e) {
            error(ctx, 400, "invalid: limit is a number 1.." + MAX_EVIDENCE);
            return;
        } catch (IllegalArgumentException e) {
            error(ctx, 400, "invalid: " + e.getMessage());
            return;
        }
        ObjectNode root = JSON.createObjectNode();
        root.put("peer", key);
        ArrayNode list = root.putArray("evidence");
        for (Evidence e : ledger.evidence(key, limit)) {
            list.add(evidenceJson(e));
        }
        json(ctx, 200, root);
    }

    private static ObjectNode evidenceJson(Evidence e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", e.id());
        o.put("severity", e.severity());
        o.put("reason", e.reason());
        o.put("at", e.at());
        o.put("violations", e.violations());
        if (e.quarantinedUntil() > 0) {
            o.put("quarantined_until", e.quarantinedUntil());
        } else {
            o.putNull("quarantined_until");
        }
        o.put("grant_id", e.grantId());
        try {
            o.set("detail", JSON.readTree(e.detail()));
        } catch (java.io.IOException ex) {
            o.put("detail", e.detail());
        }
        return o;
    }

    /**
     * The body's {@code federate} member when it has one: a JSON array of filters (the peer's own), or null (back to
     * the node's default).
     */
    static Optional<JsonNode> federate(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("the body is not JSON");
        }
        JsonNode f = root.get("federate");
        if (f == null) {
            return Optional.empty();
        }
        if (!f.isNull() && !f.isArray()) {
            throw new IllegalArgumentException("\"federate\" is a JSON array of NIP-01 filters, or null");
        }
        return Optional.of(f);
    }

    private void remove(RoutingContext ctx) {
        String key;
        try {
            key = PeerAddress.keyOf(ctx.pathParam("did"));
        } catch (IllegalArgumentException e) {
            error(ctx, 400, "invalid: " + e.getMessage());
            return;
        }
        if (!peers.remove(key)) {
            error(ctx, 404, "not found: no declared peer " + key);
            return;
        }
        LOG.infof("admin: removed peer %s", key);
        ObjectNode done = JSON.createObjectNode().put("removed", key);
        json(ctx, 200, done);
    }

    /** {@code {"did": ..., "url": ...}} or {@code {"peer": "<did>@<ws-url>"}}. */
    static PeerAddress parse(String body) {
        if (body == null || body.isBlank()) {
            throw new IllegalArgumentException("the body is {\"did\": <did>, \"url\": <ws-url>}");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("the body is not JSON");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("the body is a JSON object {\"did\": <did>, \"url\": <ws-url>}");
        }
        if (root.path("peer").isTextual()) {
            return PeerAddress.parse(root.get("peer").textValue());
        }
        if (!root.path("did").isTextual() || !root.path("url").isTextual()) {
            throw new IllegalArgumentException("\"did\" and \"url\" are strings");
        }
        try {
            return new PeerAddress(root.get("did").textValue(), new URI(root.get("url").textValue()));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("\"url\" is not a URI: " + e.getReason());
        }
    }

    private static ObjectNode peerJson(PeerStore.StoredPeer p) {
        ObjectNode o = JSON.createObjectNode();
        o.put("did", p.key());
        o.put("declared_did", p.did());
        o.put("url", p.url());
        o.put("configured_url", p.configuredUrl());
        o.put("source", p.source().word());
        o.put("added", p.added().toString());
        if (p.announcedAt().isPresent()) {
            o.put("announced_at", p.announcedAt().get());
        } else {
            o.putNull("announced_at");
        }
        if (p.federate().isPresent()) {
            try {
                o.set("federate", JSON.readTree(p.federate().get()));
            } catch (java.io.IOException e) {
                o.put("federate", p.federate().get());
            }
        } else {
            o.putNull("federate");
        }
        return o;
    }

    private static void error(RoutingContext ctx, int status, String reason) {
        json(ctx, status, JSON.createObjectNode().put("error", reason));
    }

    private static void json(RoutingContext ctx, int status, JsonNode body) {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(body.toString());
    }
}
