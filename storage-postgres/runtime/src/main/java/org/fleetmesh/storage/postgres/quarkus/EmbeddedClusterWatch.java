package org.fleetmesh.storage.postgres.quarkus;

import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.fleetmesh.storage.postgres.PostmasterWatch;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * CDI: the relay watches its embedded PostgreSQL ({@link PostmasterWatch}) and starts it again when it is gone, unless
 * {@code fleetmesh.health.embedded-postgres-restart} is false. Nothing with an external database.
 */
@ApplicationScoped
public class EmbeddedClusterWatch {
    /** How often the postmaster is looked at: a pid file read and a /proc lookup. */
    static final Duration INTERVAL = Duration.ofSeconds(1);

    @Inject
    PostgresStorage storage;

    @ConfigProperty(name = "fleetmesh.health.embedded-postgres-restart", defaultValue = "true")
    boolean restart;

    private volatile PostmasterWatch watch;

    void start(@Observes StartupEvent e) {
        if (restart) {
            // the pooled connections are all dead once the server is started again: dropped at once, so that none
            // fails one more read or write
            storage.cluster().ifPresent(c -> watch = PostmasterWatch.start(c, INTERVAL, storage::dropConnections));
        }
    }

    /** The watch, when the node runs one. */
    public Optional<PostmasterWatch> watch() {
        return Optional.ofNullable(watch);
    }

    void stop(@Observes ShutdownEvent e) {
        close();
    }

    @PreDestroy
    void close() {
        PostmasterWatch w = watch;
        if (w != null) {
            w.close();
        }
    }
}
