package org.fleetmesh.identity.quarkus;

import java.net.URI;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** Serves the node's did:nostr document at {@code /.well-known/did/nostr/<hex>.json} (nostrcg draft). */
@ApplicationScoped
public class DidWellKnownRoute {
    static final String PREFIX = "/.well-known/did/nostr/";

    @Inject
    NodeIdentity identity;

    @ConfigProperty(name = "fleetmesh.relay.url")
    Optional<URI> publicUrl;

    @ConfigProperty(name = "quarkus.http.port", defaultValue = "7777")
    int httpPort;

    void routes(@Observes Router router) {
        router.get(PREFIX + ":file").handler(this::handle);
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
        NodeDidDocument doc = NodeDidDocument.of(secrets.publicKeys(), NodeEndpoints.forRelay(publicUrl, httpPort));
        response.putHeader(HttpHeaders.CONTENT_TYPE, "application/did+json").end(doc.didNostrDocument().toString());
    }
}
