package org.fleetmesh.spi.settlement;

/**
 * Where a compute escrow stands, whatever the rail. The legal moves are enforced by the runtime
 * (org.fleetmesh.settlement.EscrowBook); stores only persist them.
 */
public enum EscrowState {
    /** Result encrypted under k and committed to; price agreed; nothing asked of the payer yet. */
    SEALED,
    /** An invoice (or HTLC request) on SHA256(k) is issued. */
    INVOICED,
    /** The payment is locked in (hold invoice ACCEPTED, HTLC token received and unspent). */
    PAID,
    /** k revealed: the payment is claimed. Final. */
    KEY_RELEASED,
    /** Given up: the invoice is canceled, locked funds go back to the payer. Final. */
    REFUNDED,
    /** The invoice or the HTLC locktime ran out. Final. */
    EXPIRED;

    public boolean isFinal() {
        return this == KEY_RELEASED || this == REFUNDED || this == EXPIRED;
    }
}
