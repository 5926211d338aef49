package org.fleetmesh.spi.settlement;

import java.util.List;
import java.util.Objects;

/**
 * A set of postings applied together or not at all, identified by an idempotency key: a store
 * applies a key once, and a second entry with the same key has no effect.
 *
 * <p>Invariant checked here: the postings are empty (an escrow step that moves no money) or at
 * least two whose debits and credits are equal, summed with {@link Math#addExact} so an
 * overflowing entry is refused rather than wrapped.
 */
public record JournalEntry(String key, List<Posting> postings) {

    public JournalEntry {
        Objects.requireNonNull(key, "key");
        if (key.isBlank() || key.length() > 200) {
            throw new IllegalArgumentException("an entry key is 1 to 200 characters");
        }
        postings = List.copyOf(postings);
        if (postings.size() == 1) {
            throw new LedgerException(LedgerException.Reason.UNBALANCED, "entry " + key + " has a single posting");
        }
        long debits = 0;
        long credits = 0;
        try {
            for (Posting p : postings) {
                if (p.side() == Posting.Side.DEBIT) {
                    debits = Math.addExact(debits, p.amountMsat());
                } else {
                    credits = Math.addExact(credits, p.amountMsat());
                }
            }
        } catch (ArithmeticException e) {
            throw new LedgerException(LedgerException.Reason.OVERFLOW, "entry " + key + " sums past a long", e);
        }
        if (debits != credits) {
            throw new LedgerException(LedgerException.Reason.UNBALANCED,
                    "entry " + key + " debits " + debits + " msat but credits " + credits + " msat");
        }
    }

    public static JournalEntry of(String key, Posting... postings) {
        return new JournalEntry(key, List.of(postings));
    }

    /** The total moved: sum of the debits (= sum of the credits). */
    public long totalMsat() {
        long t = 0;
        for (Posting p : postings) {
            if (p.side() == Posting.Side.DEBIT) {
                t += p.amountMsat(); // cannot overflow: checked in the constructor
            }
        }
        return t;
    }
}
