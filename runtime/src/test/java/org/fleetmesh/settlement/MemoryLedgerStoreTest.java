package org.fleetmesh.settlement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.fleetmesh.spi.settlement.JournalEntry;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.LedgerStore.Outcome;
import org.fleetmesh.spi.settlement.Msat;
import org.fleetmesh.spi.settlement.Posting;
import org.junit.jupiter.api.Test;

class MemoryLedgerStoreTest {
    final MemoryLedgerStore store = new MemoryLedgerStore();

    @Test
    void postingMovesBalancesBothWays() {
        store.post(JournalEntry.of("k1", Posting.debit("rail:ln", 5_000), Posting.credit("income", 5_000)));
        assertEquals(5_000, store.balance("rail:ln"));
        assertEquals(-5_000, store.balance("income"));
        assertEquals(0, store.balance("never-used"));
    }

    @Test
    void sameKeyTwiceHasOneEffect() {
        JournalEntry e = JournalEntry.of("k1", Posting.debit("a", 42), Posting.credit("b", 42));
        assertEquals(Outcome.APPLIED, store.post(e));
        assertEquals(Outcome.REPLAYED, store.post(e));
        assertEquals(Outcome.REPLAYED, store.post(JournalEntry.of("k1", Posting.debit("a", 1), Posting.credit("b", 1))));
        assertEquals(42, store.balance("a"));
    }

    @Test
    void overflowingAccountTotalIsRefusedAndNothingIsWritten() {
        for (int i = 0; i < 4; i++) {
            store.post(JournalEntry.of("k" + i, Posting.debit("big", Msat.MAX), Posting.credit("small" + i, Msat.MAX)));
        }
        var ex = assertThrows(LedgerException.class,
                () -> store.post(JournalEntry.of("k4", Posting.debit("big", Msat.MAX), Posting.credit("other", Msat.MAX))));
        assertEquals(LedgerException.Reason.OVERFLOW, ex.reason());
        assertEquals(4 * Msat.MAX, store.balance("big"));
        assertEquals(0, store.balance("other"));
        // the key was not consumed: a smaller entry under it still applies
        assertEquals(Outcome.APPLIED, store.post(JournalEntry.of("k4", Posting.debit("other", 1), Posting.credit("x", 1))));
    }

    @Test
    void trialBalanceDebitsEqualCredits() {
        store.post(JournalEntry.of("k1", Posting.debit("a", 10), Posting.credit("b", 7), Posting.credit("c", 3)));
        store.post(JournalEntry.of("k2", Posting.debit("c", 3), Posting.credit("a", 3)));
        long debits = 0;
        long credits = 0;
        for (LedgerStore.AccountTotals t : store.trialBalance()) {
            debits += t.debitMsat();
            credits += t.creditMsat();
        }
        assertEquals(debits, credits);
        assertEquals(7, store.balance("a"));
        assertEquals(0, store.balance("c"));
    }
}
