package org.fleetmesh.settlement.lightning.l402;

import java.time.Duration;

/**
 * What the export needs from configuration, checked ({@link L402Config} is the Quarkus form).
 *
 * @param pricePerEventMsat what one exported event costs
 * @param minPriceMsat      the least an export costs (also when nothing matches), at least 1
 * @param tokenLifetime     how long a token is usable after it was issued
 * @param invoiceExpiry     how long the invoice can be paid
 * @param maxEvents         the most events one export delivers (the relay's {@code max-limit})
 * @param location          the macaroon's location hint
 */
public record L402Settings(long pricePerEventMsat, long minPriceMsat, Duration tokenLifetime, Duration invoiceExpiry,
        int maxEvents, String location) {

    public L402Settings {
        if (pricePerEventMsat < 0) {
            throw new IllegalArgumentException("fleetmesh.l402.price-msat-per-event must not be negative");
        }
        if (minPriceMsat < 1) {
            throw new IllegalArgumentException("fleetmesh.l402.min-price-msat must be at least 1 (an invoice has a positive amount)");
        }
        if (maxEvents < 1) {
            throw new IllegalArgumentException("the relay's max-limit must be at least 1");
        }
        if (pricePerEventMsat > 0 && pricePerEventMsat > Long.MAX_VALUE / maxEvents) {
            throw new IllegalArgumentException("fleetmesh.l402.price-msat-per-event is absurdly large");
        }
        if (tokenLifetime == null || tokenLifetime.isNegative() || tokenLifetime.isZero()) {
            throw new IllegalArgumentException("fleetmesh.l402.token-lifetime must be positive");
        }
        if (invoiceExpiry == null || invoiceExpiry.toSeconds() < 1) {
            throw new IllegalArgumentException("fleetmesh.l402.invoice-expiry must be at least one second");
        }
        location = location == null ? "" : location;
    }

    /** The price of {@code events} events: per-event price times events, but at least the minimum. */
    public long priceMsat(long events) {
        return Math.max(minPriceMsat, pricePerEventMsat * events);
    }
}
