package org.fleetmesh.relay.quarkus;

import java.time.Duration;

import org.fleetmesh.relay.Relay;
import org.fleetmesh.spi.settlement.HealthProbe;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready when the store answers and the group-commit writer runs. */
@Readiness
@ApplicationScoped
public class RelayReadiness implements HealthCheck {
    @Inject
    RelayRuntime runtime;

    /** Readiness is open to anyone: the store behind the relay is asked at most once a second. */
    private final HealthProbe<Boolean> healthy = new HealthProbe<>(() -> runtime.relay().isHealthy(),
            Duration.ofSeconds(1));

    @Override
    public HealthCheckResponse call() {
        Relay relay = runtime.relay();
        long[] writes = relay.writeStats();
        return HealthCheckResponse.named("relay")
                .status(healthy.get())
                .withData("connections", relay.connectionCount())
                .withData("committed_events", writes[0])
                .withData("commit_batches", writes[1])
                .withData("negentropy_index_items", relay.liveIndexSize(0)) // -1: none, or being built
                .withData("negentropy_sessions_from_index", relay.negSessionsFromLiveIndex())
                .withData("negentropy_sessions_open", relay.negSessionStats()[0])
                .withData("negentropy_snapshot_items", relay.negSessionStats()[1])
                .withData("live_subscriptions", relay.liveSubscriptions())
                .withData("pressure", String.format(java.util.Locale.ROOT, "%.2f", relay.capacity().pressure().level())) // shedding: still ready
                .build();
    }
}
