package org.fleetmesh.spi.storage;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Opens the storage backend chosen at build time outside CDI (the {@code ./meshnode import}
 * and {@code export} commands). Backends register one with {@link java.util.ServiceLoader}.
 */
public interface EventStoreProvider {

    /**
     * @param dataDir the node's data directory ({@code FLEETMESH_DATA_DIR})
     * @param jdbcUrl an external database, or empty for the backend's default
     */
    EventStore open(Path dataDir, Optional<String> jdbcUrl, Optional<String> username, Optional<String> password);
}
