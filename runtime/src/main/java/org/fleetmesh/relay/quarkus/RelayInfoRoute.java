package org.fleetmesh.relay.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Serves the NIP-11 document on the WebSocket URL for {@code Accept: application/nostr+json},
 * with the three CORS headers browsers need; WebSocket upgrades pass through.
 */
@ApplicationScoped
public class RelayInfoRoute {
    static final String NOSTR_JSON = "application/nostr+json";

    @Inject
    RelayConfig config;

    @Inject
    ObjectMapper mapper;

    @Inject
    RelayRuntime runtime;

    @Inject
    org.fleetmesh.identity.quarkus.NodeIdentity identity;

    @ConfigProperty(name = "quarkus.application.version", defaultValue = "0.1.0")
    String version;

    void routes(@Observes Router router) {
        router.route("/").order(-1000).handler(this::handle);
    }

    private void handle(RoutingContext ctx) {
        String upgrade = ctx.request().getHeader(HttpHeaders.UPGRADE);
        if (upgrade != null && upgrade.equalsIgnoreCase("websocket")) {
            ctx.next();
            return;
        }
        var response = ctx.response();
        response.putHeader("Access-Control-Allow-Origin", "*");
        response.putHeader("Access-Control-Allow-Headers", "*");
        response.putHeader("Access-Control-Allow-Methods", "GET, OPTIONS");
        if (ctx.request().method() == HttpMethod.OPTIONS) {
            response.setStatusCode(204).end();
            return;
        }
        if (ctx.request().method() != HttpMethod.GET && ctx.request().method() != HttpMethod.HEAD) {
            response.setStatusCode(405).putHeader("Allow", "GET, HEAD, OPTIONS").end("use GET\n");
            return;
        }
        String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
        if (accept != null && accept.contains(NOSTR_JSON)) {
            response.putHeader(HttpHeaders.CONTENT_TYPE, NOSTR_JSON)
                    .end(RelayInfo.document(mapper, config, config.limits(), runtime.relay().clientLimits(),
                            identity.secrets().publicKeys().nostr().hex(), version));
            return;
        }
        response.putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
                .end(config.name() + ": a Nostr relay. Connect with a Nostr client over WebSocket, "
                        + "or ask for Accept: application/nostr+json.\n");
    }
}
