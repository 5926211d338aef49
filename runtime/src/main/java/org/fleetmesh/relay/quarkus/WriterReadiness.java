package org.fleetmesh.relay.quarkus;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.fleetmesh.relay.Relay;

/**
 * Ready when the group-commit writer's thread runs and no transaction of it has run longer than
 * {@code fleetmesh.health.writer-stuck-after} (default 30 s): a writer that died or hangs in a commit answers no
 * EVENT, even while reads still work. A full write queue is load, not a fault: the relay sheds it with
 * {@code rate-limited:} and stays ready.
 */
@Readiness
@ApplicationScoped
public class WriterReadiness implements HealthCheck {
    @Inject
    RelayRuntime runtime;

    @ConfigProperty(name = "fleetmesh.health.writer-stuck-after", defaultValue = "30s")
    Duration stuckAfter;

    @Override
    public HealthCheckResponse call() {
        Relay.WriterState w = runtime.relay().writer();
        boolean stuck = w.inProgressNanos() > stuckAfter.toNanos();
        var r = HealthCheckResponse.named("writer").status(w.alive() && !stuck)
                .withData("thread", w.alive() ? "running" : "dead")
                .withData("queued", w.queued())
                .withData("queue_capacity", w.capacity())
                .withData("commit_in_progress_ms", w.inProgressNanos() / 1_000_000)
                .withData("committed_events", w.committedEvents())
                .withData("commit_batches", w.batches());
        if (stuck) {
            r.withData("stuck", "a commit has run for more than " + stuckAfter.toSeconds() + " s");
        }
        return r.build();
    }
}
