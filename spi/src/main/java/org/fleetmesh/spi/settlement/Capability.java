package org.fleetmesh.spi.settlement;

/** What a {@link SettlementRail} can do; a call outside its capabilities throws {@link SettlementException.Reason#UNSUPPORTED}. */
public enum Capability {
    /** {@link SettlementRail#invoice}: the rail is given the preimage and settles by itself when paid. */
    PREIMAGE_INVOICE,
    /** {@link SettlementRail#holdInvoice}, {@link SettlementRail#settle}, {@link SettlementRail#cancel}: the payee holds the payment until it reveals the preimage. */
    HOLD_INVOICE,
    /** {@link SettlementRail#watch}: state changes of our own invoices are pushed. */
    WATCH,
    /** {@link SettlementRail#pay}: the node can pay a request and learn its preimage. */
    PAY,
    /** {@link SettlementRail#decode}: payment requests can be parsed offline. */
    DECODE,
    /** Amount-less requests can be paid (the amount comes from elsewhere). */
    AMOUNTLESS_REQUEST
}
