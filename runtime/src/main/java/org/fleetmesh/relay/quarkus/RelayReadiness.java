package org.fleetmesh.relay.quarkus;

import org.fleetmesh.relay.Relay;

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

    @Override
    public HealthCheckResponse call() {
        Relay relay = runtime.relay();
        long[] writes = relay.writeStats();
        return HealthCheckResponse.named("relay")
                .status(relay.isHealthy())
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
