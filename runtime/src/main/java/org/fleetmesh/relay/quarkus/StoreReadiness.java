package org.fleetmesh.relay.quarkus;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.fleetmesh.spi.settlement.HealthProbe;
import org.fleetmesh.spi.storage.EventStore;

/**
 * Ready when the event store answers a round trip (PostgreSQL: {@code select 1} within 2 s): without it the node
 * can neither store nor serve events. Data: the adapter and how long the check took.
 */
@Readiness
@ApplicationScoped
public class StoreReadiness implements HealthCheck {
    @Inject
    EventStore store;

    private record Check(boolean up, long millis) {
    }

    /** Readiness is open to anyone: the store is asked at most once a second, whoever asks how often. */
    private final HealthProbe<Check> probe = new HealthProbe<>(() -> {
        long t0 = System.nanoTime();
        boolean up = store.isHealthy();
        return new Check(up, (System.nanoTime() - t0) / 1_000_000);
    }, Duration.ofSeconds(1));

    @Override
    public HealthCheckResponse call() {
        Check c = probe.get();
        return HealthCheckResponse.named("store").status(c.up())
                .withData("adapter", adapterName(store))
                .withData("check_ms", c.millis())
                .build();
    }

    /** The store's class without CDI's client-proxy suffix. */
    static String adapterName(Object bean) {
        String n = bean.getClass().getSimpleName();
        int cut = n.indexOf("_ClientProxy");
        return cut > 0 ? n.substring(0, cut) : n;
    }
}
