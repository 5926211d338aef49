package org.fleetmesh.spi.settlement;

import java.util.Objects;

/** The ledger refused a write; {@link #reason()} says why in a machine-readable way. */
public class LedgerException extends RuntimeException {

    public enum Reason {
        /** Debits and credits differ, or an entry has a single posting. */
        UNBALANCED,
        /** An entry total or an account balance would pass {@link Long#MAX_VALUE}. */
        OVERFLOW,
        /** The escrow moved since it was read (optimistic lock), or was created twice. */
        CONFLICT,
        /** No escrow with this payment hash. */
        UNKNOWN_ESCROW,
        /** The escrow state machine does not allow this step. */
        ILLEGAL_TRANSITION,
        /** The store failed (I/O, database); the write did not happen. */
        STORE_FAILED
    }

    private final Reason reason;

    public LedgerException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public LedgerException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
