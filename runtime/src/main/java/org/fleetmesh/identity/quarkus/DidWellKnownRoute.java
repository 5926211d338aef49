package org.fleetmesh.identity.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeSecrets;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Serves the node's DID document at {@code /.well-known/did.json} (the did:peer:4 long form resolved, plus where the
 * node is reached now) and its did:nostr document at {@code /.well-known/did/nostr/<hex>.json} (nostrcg draft).
 */
@ApplicationScoped
public class DidWellKnownRoute {
    static final String PREFIX = "/.well-known/did/nostr/";
    static final String DID_JSON = "/.well-known/did.json";

    @Inject
    NodeIdentity identity;

    @Inject
    NodeAddress address;

    void routes(@Observes Router router) {
        router.get(DID_JSON).handler(this::didDocument);
        router.get(PREFIX + ":file").handler(this::handle);
        // RFC 9110 9.3.2: HEAD answers as GET would, without the body
        router.head(DID_JSON).handler(this::didDocument);
        router.head(PREFIX + ":file").handler(this::handle);
    }

    private void didDocument(RoutingContext ctx) {
        NodeDidDocument doc = NodeDidDocument.of(identity.secrets().publicKeys(), address.endpoints());
        end(ctx, ctx.response().putHeader("Access-Control-Allow-Origin", "*")
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/did+json"), doc.document().toString());
    }

    private void handle(RoutingContext ctx) {
        NodeSecrets secrets = identity.secrets();
        String expected = secrets.publicKeys().nostr().hex() + ".json";
        var response = ctx.response().putHeader("Access-Control-Allow-Origin", "*");
        if (!expected.equals(ctx.pathParam("file"))) {
            response.setStatusCode(404).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain")
                    .end("not found: this node serves only its own did:nostr document\n");
            return;
        }
        NodeDidDocument doc = NodeDidDocument.of(secrets.publicKeys(), address.endpoints());
        end(ctx, response.putHeader(HttpHeaders.CONTENT_TYPE, "application/did+json"),
                doc.didNostrDocument().toString());
    }

    /** The body, or for a HEAD only its length. */
    private static void end(RoutingContext ctx, io.vertx.core.http.HttpServerResponse response, String body) {
        if (ctx.request().method() == io.vertx.core.http.HttpMethod.HEAD) {
            response.putHeader(HttpHeaders.CONTENT_LENGTH,
                    Integer.toString(body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)).end();
        } else {
            response.end(body);
        }
    }
}
