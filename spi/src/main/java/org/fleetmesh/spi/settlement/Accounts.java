package org.fleetmesh.spi.settlement;

/**
 * Account names of the node's ledger (balance = debits - credits). Assets (receivables, funds on a
 * rail) carry debit balances, escrow obligations and income carry credit balances.
 */
public final class Accounts {
    /** Earned: credited when a key is released. */
    public static final String INCOME = "income";
    /** Spent on rail fees: debited. */
    public static final String FEES = "fees";

    private Accounts() {
    }

    /** What {@code did} owes us on open invoices. */
    public static String receivable(String did) {
        return "peer:" + did + ":receivable";
    }

    /** Our obligation to release k for this payment hash, until it is released or given up. */
    public static String escrow(PaymentHash hash) {
        return "escrow:" + hash.hex();
    }

    /** Payments locked to us on {@code rail} but not yet claimed (held HTLCs, HTLC-locked ecash). */
    public static String locked(String rail) {
        return "rail:" + rail + ":locked";
    }

    /** Funds we hold on {@code rail} (channel balance, ecash). */
    public static String funds(String rail) {
        return "rail:" + rail;
    }
}
