package org.fleetmesh.settlement.lightning.lnd;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.fleetmesh.spi.settlement.SettlementException;

/** Ready when Lightning is disabled, or when LND answers GetInfo with our macaroon and is synced to chain. */
@Readiness
@ApplicationScoped
public class LndReadiness implements HealthCheck {
    @Inject
    Instance<LndRail> rail;

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("lightning");
        if (!rail.isResolvable()) {
            return response.up().withData("lnd", "disabled").build();
        }
        try {
            LndRail.NodeInfo info = rail.get().info();
            response.withData("lnd", rail.get().target()).withData("identity_pubkey", info.identityPubkey())
                    .withData("version", info.version()).withData("synced_to_chain", info.syncedToChain());
            return (info.ready() ? response.up() : response.down()).build();
        } catch (SettlementException e) {
            return response.down().withData("lnd", rail.get().target()).withData("error", e.getMessage()).build();
        }
    }
}
