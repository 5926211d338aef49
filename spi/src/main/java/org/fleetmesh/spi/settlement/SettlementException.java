package org.fleetmesh.spi.settlement;

import java.util.Objects;

/** A rail refused or failed a call; {@link #reason()} is machine-readable, the message is for people. */
public class SettlementException extends RuntimeException {

    /** Why; stable names, safe to put on the wire or in a metric label. */
    public enum Reason {
        /** The rail lacks the {@link Capability} the call needs. */
        UNSUPPORTED,
        /** The request could not be parsed, or is for another network or currency. */
        INVALID_REQUEST,
        /** Amount zero, negative, too large, or outside the rail's limits. */
        AMOUNT_OUT_OF_RANGE,
        /** No invoice or HTLC with this payment hash. */
        UNKNOWN_PAYMENT_HASH,
        /** An invoice with this payment hash already exists. */
        DUPLICATE_PAYMENT_HASH,
        /** The preimage does not hash to the payment hash of the invoice. */
        PREIMAGE_MISMATCH,
        /** Settle of a hold invoice that is not ACCEPTED (nothing to claim yet). */
        NOT_ACCEPTED,
        /** The invoice or HTLC is already settled; it cannot be canceled. */
        ALREADY_SETTLED,
        /** The invoice or HTLC is canceled or expired; it cannot be settled. */
        ALREADY_CANCELED,
        /** The request or the HTLC timed out. */
        EXPIRED,
        /** Lightning found no route, or the mint refused the swap. */
        NO_ROUTE,
        /** The payment would cost more than the fee limit. */
        FEE_LIMIT_EXCEEDED,
        /** Not enough outbound liquidity or ecash. */
        INSUFFICIENT_FUNDS,
        /** The node, wallet or mint is unreachable or not ready. */
        RAIL_UNAVAILABLE,
        /** Anything else the rail reported; see the message. */
        RAIL_ERROR
    }

    private final Reason reason;

    public SettlementException(Reason reason, String message) {
        super(reason + ": " + message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public SettlementException(Reason reason, String message, Throwable cause) {
        super(reason + ": " + message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
