package org.fleetmesh.settlement.lightning.lnd;

import io.quarkus.arc.lookup.LookupIfProperty;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;

import java.time.Clock;

/** Makes the {@link LndRail} bean when {@code fleetmesh.lightning.enabled=true}. */
@ApplicationScoped
public class LndRailProducer {

    @Produces
    @Singleton
    @LookupIfProperty(name = "fleetmesh.lightning.enabled", stringValue = "true")
    LndRail rail(LightningConfig config) {
        LightningConfig.Lnd lnd = config.lnd();
        var cert = lnd.tlsCertPath().orElseThrow(() -> new SettlementException(Reason.RAIL_UNAVAILABLE,
                "fleetmesh.lightning.lnd.tls-cert-path is required when fleetmesh.lightning.enabled=true"));
        var macaroon = lnd.macaroonPath().orElseThrow(() -> new SettlementException(Reason.RAIL_UNAVAILABLE,
                "fleetmesh.lightning.lnd.macaroon-path is required when fleetmesh.lightning.enabled=true"));
        var network = lnd.network().map(n -> LndRail.networkOf(n).orElseThrow(() -> new SettlementException(
                Reason.RAIL_UNAVAILABLE, "fleetmesh.lightning.lnd.network: unknown network " + n)));
        var options = new LndRail.Options(lnd.callTimeout(), lnd.paymentTimeout(), lnd.holdCltvExpiry(), network,
                java.time.Duration.ofSeconds(2));
        return new LndRail(LndConnection.open(lnd.host(), lnd.port(), cert, macaroon, lnd.keepAlive()), options, Clock.systemUTC());
    }

    void close(@Disposes LndRail rail) {
        rail.close();
    }
}
