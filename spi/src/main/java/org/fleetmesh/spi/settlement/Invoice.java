package org.fleetmesh.spi.settlement;

import java.time.Instant;
import java.util.Objects;

/**
 * A request for payment, whatever the rail: a BOLT-11 string on Lightning, a NUT-18 payment
 * request (or the HTLC terms a payer must lock a token to) on Cashu.
 *
 * @param rail           {@link SettlementRail#id()} of the rail that issued it
 * @param paymentRequest what the payer needs, in the rail's own encoding
 * @param paymentHash    the lock: SHA-256 of the preimage
 * @param amountMsat     the amount, positive
 * @param expiresAt      after this the request can no longer be paid
 */
public record Invoice(String rail, String paymentRequest, PaymentHash paymentHash, long amountMsat, Instant expiresAt) {
    public Invoice {
        Objects.requireNonNull(rail, "rail");
        Objects.requireNonNull(paymentRequest, "paymentRequest");
        Objects.requireNonNull(paymentHash, "paymentHash");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Msat.positive(amountMsat, "invoice amount");
    }

    public boolean expired(Instant now) {
        return !now.isBefore(expiresAt);
    }
}
