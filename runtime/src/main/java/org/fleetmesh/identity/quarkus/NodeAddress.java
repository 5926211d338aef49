package org.fleetmesh.identity.quarkus;

import java.net.URI;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.NodeEndpoints;

/**
 * Where the node is reached now: {@code fleetmesh.relay.url} when configured, else the port it listens on. The port
 * is read when asked, not at injection, because with {@code quarkus.http.port=0} Quarkus knows it only once bound.
 */
@ApplicationScoped
public class NodeAddress {
    @ConfigProperty(name = "fleetmesh.relay.url")
    Optional<URI> relayUrl;

    public NodeEndpoints endpoints() {
        return NodeEndpoints.forRelay(relayUrl, port());
    }

    private static int port() {
        return ConfigProvider.getConfig().getOptionalValue("quarkus.http.port", Integer.class).orElse(7777);
    }
}
