package org.fleetmesh.spi.settlement;

import java.util.EnumSet;
import java.util.Set;

/**
 * The life of an invoice on a rail: OPEN → ACCEPTED → SETTLED, or CANCELED / EXPIRED.
 * Lightning: ACCEPTED is a hold invoice whose HTLCs are locked in. Cashu NUT-14: ACCEPTED is an
 * HTLC-locked token received and checked unspent at the mint.
 */
public enum InvoiceState {
    OPEN, ACCEPTED, SETTLED, CANCELED, EXPIRED;

    public boolean isFinal() {
        return this == SETTLED || this == CANCELED || this == EXPIRED;
    }

    /** The states a rail may report next; anything else from a rail is a rail bug. */
    public Set<InvoiceState> successors() {
        return switch (this) {
            case OPEN -> EnumSet.of(ACCEPTED, SETTLED, CANCELED, EXPIRED);
            case ACCEPTED -> EnumSet.of(SETTLED, CANCELED, EXPIRED);
            case SETTLED, CANCELED, EXPIRED -> EnumSet.noneOf(InvoiceState.class);
        };
    }
}
