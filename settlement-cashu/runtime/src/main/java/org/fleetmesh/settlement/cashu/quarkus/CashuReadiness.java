package org.fleetmesh.settlement.cashu.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.fleetmesh.settlement.cashu.rail.CashuRail;

/**
 * Ready when Cashu is disabled, or when the mint answers NUT-06 info and has a keyset in our unit; the mint is asked
 * at most once every 5 s, whoever probes.
 */
@Readiness
@ApplicationScoped
public class CashuReadiness implements HealthCheck {
    @Inject
    Instance<CashuRail> rail;

    private volatile org.fleetmesh.spi.settlement.HealthProbe<java.util.Map<String, Object>> probe;

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("cashu");
        if (!rail.isResolvable()) {
            return response.up().withData("cashu", "disabled").build();
        }
        CashuRail r = rail.get();
        response.withData("rail", r.id());
        try {
            org.fleetmesh.spi.settlement.HealthProbe<java.util.Map<String, Object>> p = probe;
            if (p == null) {
                p = new org.fleetmesh.spi.settlement.HealthProbe<>(r::health, java.time.Duration.ofSeconds(5));
                probe = p;
            }
            p.get().forEach((k, v) -> response.withData(k, String.valueOf(v)));
            return response.up().build();
        } catch (RuntimeException e) {
            return response.down().withData("error", String.valueOf(e.getMessage())).build();
        }
    }
}
