package org.fleetmesh.storage.postgres;

import java.nio.file.Path;
import java.util.Optional;

import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.EventStoreProvider;

/** Lets the command line open this backend without CDI (registered with ServiceLoader). */
public final class PostgresStoreProvider implements EventStoreProvider {
    @Override
    public EventStore open(Path dataDir, Optional<String> jdbcUrl, Optional<String> username,
            Optional<String> password) {
        return PostgresStorage.openFromConfig(dataDir, jdbcUrl, username, password);
    }
}
