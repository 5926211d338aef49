package org.fleetmesh.storage.postgres.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.storage.postgres.PostgresStorage;

/**
 * CDI: produces the node's {@link org.fleetmesh.spi.storage.EventStore} (the bean's types are
 * {@link PostgresStorage}, {@code EventStore}, {@code AutoCloseable}), opened from configuration on
 * first use (see {@link PostgresStorage} for the keys) and closed, with the embedded cluster, at
 * shutdown.
 */
@ApplicationScoped
public class PostgresStorageProducer {

    @Produces
    @Singleton
    PostgresStorage storage() {
        return PostgresStorage.openFromConfig();
    }

    void close(@Disposes PostgresStorage storage) {
        storage.close();
    }
}
