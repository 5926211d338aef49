package org.fleetmesh.settlement;

import java.util.Objects;

import org.fleetmesh.spi.settlement.Escrow;

/** An escrow whose last persisted step needs the caller to act, and what to do. */
public record FollowUp(Escrow escrow, Action action) {

    public enum Action {
        /** SEALED: record INVOICED, then create the invoice. */
        INVOICE,
        /** INVOICED, invoice not confirmed: create it on the rail (again; a duplicate hash means it exists), then watch. */
        CREATE_INVOICE,
        /** INVOICED and issued: watch the rail for ACCEPTED / CANCELED / EXPIRED (watches do not survive a restart). */
        WATCH,
        /** PAID: release the key (record KEY_RELEASED, then settle) or give up (record REFUNDED, then cancel). */
        RELEASE_OR_REFUND,
        /** KEY_RELEASED, settle not confirmed: settle on the rail with the preimage (idempotent). */
        SETTLE,
        /** REFUNDED or EXPIRED, cancel not confirmed: cancel on the rail (idempotent). */
        CANCEL
    }

    public FollowUp {
        Objects.requireNonNull(escrow, "escrow");
        Objects.requireNonNull(action, "action");
    }
}
