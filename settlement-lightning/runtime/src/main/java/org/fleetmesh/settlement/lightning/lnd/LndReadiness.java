package org.fleetmesh.settlement.lightning.lnd;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.fleetmesh.spi.settlement.SettlementException;

/**
 * Ready when Lightning is disabled, or when LND answers GetInfo with our macaroon and is synced to chain; LND is asked
 * at most once every 5 s, whoever probes.
 */
@Readiness
@ApplicationScoped
public class LndReadiness implements HealthCheck {
    @Inject
    Instance<LndRail> rail;

    private volatile org.fleetmesh.spi.settlement.HealthProbe<LndRail.NodeInfo> probe;

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("lightning");
        if (!rail.isResolvable()) {
            return response.up().withData("lnd", "disabled").build();
        }
        try {
            org.fleetmesh.spi.settlement.HealthProbe<LndRail.NodeInfo> p = probe;
            if (p == null) {
                LndRail r = rail.get();
                p = new org.fleetmesh.spi.settlement.HealthProbe<>(r::info, java.time.Duration.ofSeconds(5));
                probe = p;
            }
            LndRail.NodeInfo info = p.get();
            response.withData("lnd", rail.get().target()).withData("identity_pubkey", info.identityPubkey())
                    .withData("version", info.version()).withData("synced_to_chain", info.syncedToChain());
            return (info.ready() ? response.up() : response.down()).build();
        } catch (SettlementException e) {
            return response.down().withData("lnd", rail.get().target()).withData("error", e.getMessage()).build();
        }
    }
}
