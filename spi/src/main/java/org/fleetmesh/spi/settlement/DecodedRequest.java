package org.fleetmesh.spi.settlement;

import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What a payment request says, read without paying it.
 *
 * @param rail        the rail that understood it
 * @param paymentHash the lock the payment will be bound to
 * @param amountMsat  empty for an amount-less request
 * @param payee       the payee in the rail's own form (node id hex, Cashu P2PK pubkey hex), never null
 * @param description the memo, possibly empty
 * @param expiresAt   after this the request is dead
 */
public record DecodedRequest(String rail, PaymentHash paymentHash, OptionalLong amountMsat, String payee,
        String description, Instant expiresAt) {
    public DecodedRequest {
        Objects.requireNonNull(rail, "rail");
        Objects.requireNonNull(paymentHash, "paymentHash");
        Objects.requireNonNull(amountMsat, "amountMsat");
        Objects.requireNonNull(payee, "payee");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(expiresAt, "expiresAt");
        amountMsat.ifPresent(a -> Msat.positive(a, "request amount"));
    }
}
