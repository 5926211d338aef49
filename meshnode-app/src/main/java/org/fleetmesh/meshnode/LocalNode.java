package org.fleetmesh.meshnode;

import java.nio.file.Path;
import java.util.Optional;
import java.util.ServiceLoader;

import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.EventStoreProvider;

/**
 * What the offline subcommands share with the relay: its configuration, and from it the node's store and keys,
 * opened without starting the relay.
 */
public final class LocalNode {

    private LocalNode() {
    }

    /** The storage backend this build carries, configured as the relay is. */
    public static EventStore openStore() {
        EventStoreProvider provider = ServiceLoader.load(EventStoreProvider.class).findFirst()
                .orElseThrow(() -> new IllegalStateException("no storage backend in this build"));
        return provider.open(dataDir(), setting("quarkus.datasource.jdbc.url", "QUARKUS_DATASOURCE_JDBC_URL"),
                setting("quarkus.datasource.username", "QUARKUS_DATASOURCE_USERNAME"),
                setting("quarkus.datasource.password", "QUARKUS_DATASOURCE_PASSWORD"));
    }

    public static Path dataDir() {
        return Path.of(setting("fleetmesh.data-dir", "FLEETMESH_DATA_DIR").orElse("./data"));
    }

    /** The node's keys, created on a fresh data dir as the first start would. */
    public static NodeSecrets secrets() {
        return NodeSecrets.loadOrCreate(dataDir(), supplied("NOSTR"), supplied("AGREEMENT"), supplied("TRANSPORT"));
    }

    private static NodeSecrets.Supplied supplied(String role) {
        String r = role.toLowerCase();
        return new NodeSecrets.Supplied(setting("fleetmesh.keys." + r, "FLEETMESH_KEYS_" + role),
                setting("fleetmesh.keys." + r + "-file", "FLEETMESH_KEYS_" + role + "_FILE").map(Path::of));
    }

    public static Optional<String> setting(String property, String env) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v);
    }
}
