package org.fleetmesh.spi.settlement;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * One compute escrow as persisted.
 *
 * @param paymentHash SHA256(k); the escrow's identity
 * @param peer        the payer's DID
 * @param rail        {@link SettlementRail#id()} it settles over
 * @param amountMsat  the price, positive
 * @param state       the last persisted step
 * @param version     1 when sealed, +1 on every step (optimistic locking)
 * @param effectDone  whether the caller confirmed the side effect of the current step (invoice issued,
 *                    key released on the rail, invoice canceled)
 * @param updatedAt   when the current step was persisted (millisecond precision)
 */
public record Escrow(PaymentHash paymentHash, String peer, String rail, long amountMsat, EscrowState state,
        long version, boolean effectDone, Instant updatedAt) {

    public Escrow {
        Objects.requireNonNull(paymentHash, "paymentHash");
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(rail, "rail");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(updatedAt, "updatedAt");
        Msat.positive(amountMsat, "escrow amount");
        if (version < 1) {
            throw new IllegalArgumentException("versions start at 1");
        }
        updatedAt = updatedAt.truncatedTo(ChronoUnit.MILLIS); // what every store can keep exactly
    }

    /** The next step: new state, next version, side effect not yet done. */
    public Escrow next(EscrowState to, Instant at) {
        return new Escrow(paymentHash, peer, rail, amountMsat, to, version + 1, false, at);
    }

    public Escrow withEffectDone() {
        return new Escrow(paymentHash, peer, rail, amountMsat, state, version, true, updatedAt);
    }
}
