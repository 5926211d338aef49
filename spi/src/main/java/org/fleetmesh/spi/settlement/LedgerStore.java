package org.fleetmesh.spi.settlement;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Durable millisatoshi ledger and escrow table. Every write is atomic: an entry's postings, and
 * an escrow step together with its entry, are persisted entirely or not at all. Writes are
 * idempotent by the entry key. Implementations must be safe for use by several threads and,
 * for shared databases, several processes.
 */
public interface LedgerStore {

    /** Whether a write took effect or was a replay of a key already applied (and had no effect). */
    enum Outcome { APPLIED, REPLAYED }

    /**
     * Applies a balanced entry not tied to an escrow. REPLAYED if its key was applied before.
     * Throws {@link LedgerException.Reason#OVERFLOW} if a balance would overflow (nothing is written).
     */
    Outcome post(JournalEntry entry);

    /**
     * Persists an escrow step and its entry in one transaction. REPLAYED (nothing written) if the
     * step's key was applied before. {@link LedgerException.Reason#CONFLICT} if the stored escrow
     * is not at {@code step.before()} with version {@code step.after().version() - 1} (or, for a
     * creation, already exists).
     */
    Outcome apply(EscrowStep step);

    /**
     * Records that the side effect of the escrow's current step was performed, if the escrow is
     * still at {@code state}; false otherwise (it moved on, or is unknown).
     */
    boolean markEffectDone(PaymentHash hash, EscrowState state);

    Optional<Escrow> escrow(PaymentHash hash);

    /** The states the escrow went through, oldest first; empty if unknown. */
    List<EscrowState> history(PaymentHash hash);

    /**
     * Escrows that need a follow-up: not final, or final with the side effect not done.
     * Oldest first.
     */
    List<Escrow> unfinished();

    /** Debits minus credits of {@code account}; 0 for an account never posted to. */
    long balance(String account);

    /** Debits and credits of every account ever posted to (a trial balance sums both to the same). */
    List<AccountTotals> trialBalance();

    /** Running totals of one account. */
    record AccountTotals(String account, long debitMsat, long creditMsat) {
        public long balance() {
            return Math.subtractExact(debitMsat, creditMsat);
        }
    }
}
