package org.fleetmesh.spi.settlement;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One leg of a {@link JournalEntry}: {@code amountMsat} debited or credited to {@code account}.
 * An account's balance is its debits minus its credits.
 */
public record Posting(String account, Side side, long amountMsat) {

    public enum Side { DEBIT, CREDIT }

    /** Lower-case words, digits and {@code : . _ - /}, at most 200 characters: e.g. {@code peer:did:key:z6Mk...:receivable}. */
    private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9][a-zA-Z0-9:._/-]{0,199}");

    public Posting {
        Objects.requireNonNull(account, "account");
        Objects.requireNonNull(side, "side");
        if (!ACCOUNT.matcher(account).matches()) {
            throw new IllegalArgumentException("not an account name: " + account);
        }
        Msat.positive(amountMsat, "posting amount");
    }

    public static Posting debit(String account, long amountMsat) {
        return new Posting(account, Side.DEBIT, amountMsat);
    }

    public static Posting credit(String account, long amountMsat) {
        return new Posting(account, Side.CREDIT, amountMsat);
    }

    /** +amount for a debit, -amount for a credit. */
    public long signedMsat() {
        return side == Side.DEBIT ? amountMsat : -amountMsat;
    }
}
