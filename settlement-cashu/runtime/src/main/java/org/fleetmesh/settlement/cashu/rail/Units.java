package org.fleetmesh.settlement.cashu.rail;

import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;

/**
 * A mint's unit onto the millisatoshi ledger, exactly: {@code sat} is 1000 msat, {@code msat} is 1 msat. An amount
 * that is not a whole number of the unit is refused, never rounded (a sub-satoshi price needs an msat mint).
 */
public enum Units {
    SAT(1000), MSAT(1);

    private final long msat;

    Units(long msat) {
        this.msat = msat;
    }

    public static Units of(String unit) {
        return switch (unit) {
            case "sat" -> SAT;
            case "msat" -> MSAT;
            default -> throw new IllegalArgumentException("unit " + unit
                    + " cannot be mapped onto millisatoshis exactly (sat and msat can)");
        };
    }

    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code amountMsat} in the unit; AMOUNT_OUT_OF_RANGE unless it is a whole, positive number of it. */
    public long fromMsat(long amountMsat) {
        if (amountMsat <= 0 || amountMsat % msat != 0) {
            throw new SettlementException(Reason.AMOUNT_OUT_OF_RANGE, amountMsat + " msat is not a whole number of "
                    + wire() + " (this mint's unit); amounts are never rounded");
        }
        return amountMsat / msat;
    }

    public long toMsat(long amount) {
        return Math.multiplyExact(amount, msat);
    }
}
