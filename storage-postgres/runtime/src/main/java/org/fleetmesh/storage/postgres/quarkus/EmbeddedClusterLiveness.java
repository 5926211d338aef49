package org.fleetmesh.storage.postgres.quarkus;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.fleetmesh.storage.postgres.EmbeddedCluster;
import org.fleetmesh.storage.postgres.PostgresStorage;

/**
 * Live while the node's embedded PostgreSQL runs, or has been gone for less than
 * {@code fleetmesh.health.embedded-postgres-grace} (30 s). The node starts a postmaster that is gone again itself
 * ({@link EmbeddedClusterWatch}), usually within a second or two; one that does not come back within the grace (its
 * start keeps failing, or restarting is turned off) makes liveness say so, and an orchestrator restarts the node, whose
 * next start recovers the cluster. With an external database this check is always up: restarting the node would not
 * bring that server back (readiness reports it). A postmaster someone asked to shut down (SIGTERM: a smart shutdown,
 * {@code stopping} in its pid file) counts as gone: it takes no new connection and waits for the node's, which the
 * node never closes while it runs; the node does not start another beside it.
 */
@Liveness
@ApplicationScoped
public class EmbeddedClusterLiveness implements HealthCheck {
    @Inject
    PostgresStorage storage;

    @Inject
    EmbeddedClusterWatch watch;

    @ConfigProperty(name = "fleetmesh.health.embedded-postgres-grace", defaultValue = "30s")
    Duration grace;

    private long goneSince = -1; // nanoTime of the first check that found it gone; guarded by this

    @Override
    public synchronized HealthCheckResponse call() {
        var b = HealthCheckResponse.named("embedded-postgres");
        EmbeddedCluster cluster = storage.cluster().orElse(null);
        if (cluster == null) {
            return b.up().withData("embedded", false).build();
        }
        long now = System.nanoTime();
        boolean running = cluster.postmasterRunning();
        boolean stopping = running && cluster.postmasterStopping();
        long restarts = watch.watch().map(w -> w.restarts()).orElse(0L);
        if (running && !stopping) {
            goneSince = -1;
            return b.up().withData("embedded", true).withData("restarts", restarts).build();
        }
        if (goneSince < 0) {
            goneSince = now;
        }
        long goneMs = (now - goneSince) / 1_000_000;
        int failed = watch.watch().map(w -> w.failedInARow()).orElse(0);
        boolean unsupported = watch.watch().map(w -> w.last() == org.fleetmesh.storage.postgres.EmbeddedCluster.Restart.UNSUPPORTED)
                .orElse(false);
        boolean watching = watch.watch().map(w -> w.watching()).orElse(false);
        String restarting = watch.watch().isEmpty() ? "; the node does not start it again itself (restarting is off)"
                : unsupported ? "; the node cannot start it again itself (it was only ever started through zonky)"
                : !watching ? "; the node's watch of it has ended"
                : failed > 0 ? "; the node's last " + failed + " attempt(s) to start it again failed (see the node's log"
                        + " and postgres.log)"
                : "; the node is starting it again";
        return b.status(goneMs < grace.toMillis()).withData("embedded", true)
                .withData("gone_ms", goneMs)
                .withData("restarts", restarts)
                .withData("reason", stopping
                        ? "the embedded PostgreSQL is shutting down (it was sent SIGTERM) and takes no new connection;"
                                + " a restart of the node starts it again"
                        : "the embedded PostgreSQL is not running" + restarting + "; a restart of the node starts it again")
                .build();
    }
}
