package org.fleetmesh.settlement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.fleetmesh.spi.settlement.JournalEntry;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.Msat;
import org.fleetmesh.spi.settlement.Posting;
import org.junit.jupiter.api.Test;

class JournalEntryTest {

    @Test
    void balancedEntryIsAccepted() {
        JournalEntry e = JournalEntry.of("k", Posting.debit("a", 700), Posting.debit("b", 300), Posting.credit("c", 1000));
        assertEquals(1000, e.totalMsat());
    }

    @Test
    void entryWithNoPostingsIsAnEmptyStep() {
        assertEquals(0, new JournalEntry("k", List.of()).totalMsat());
    }

    @Test
    void unbalancedEntryIsRefused() {
        var ex = assertThrows(LedgerException.class,
                () -> JournalEntry.of("k", Posting.debit("a", 1000), Posting.credit("b", 999)));
        assertEquals(LedgerException.Reason.UNBALANCED, ex.reason());
    }

    @Test
    void singlePostingIsRefused() {
        var ex = assertThrows(LedgerException.class, () -> JournalEntry.of("k", Posting.debit("a", 1)));
        assertEquals(LedgerException.Reason.UNBALANCED, ex.reason());
    }

    @Test
    void overflowingSumIsRefusedNotWrapped() {
        // five debits of 2.1e18 pass Long.MAX_VALUE (9.2e18); wrapped, they could "balance" a small credit
        Posting big = Posting.debit("a", Msat.MAX);
        var ex = assertThrows(LedgerException.class,
                () -> JournalEntry.of("k", big, big, big, big, big, Posting.credit("b", Msat.MAX)));
        assertEquals(LedgerException.Reason.OVERFLOW, ex.reason());
    }

    @Test
    void zeroNegativeAndOversizedAmountsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Posting.debit("a", 0));
        assertThrows(IllegalArgumentException.class, () -> Posting.credit("a", -1));
        assertThrows(IllegalArgumentException.class, () -> Posting.credit("a", Msat.MAX + 1));
    }

    @Test
    void accountNamesAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> Posting.debit("", 1));
        assertThrows(IllegalArgumentException.class, () -> Posting.debit("has space", 1));
        assertEquals("peer:did:key:z6Mk:receivable", Posting.debit("peer:did:key:z6Mk:receivable", 1).account());
    }

    @Test
    void msatArithmeticRefusesOverflow() {
        assertThrows(ArithmeticException.class, () -> Msat.add(Long.MAX_VALUE, 1));
        assertThrows(ArithmeticException.class, () -> Msat.ofSat(Long.MAX_VALUE / 999));
        assertEquals(1, Msat.toSatFloor(1999));
        assertThrows(IllegalArgumentException.class, () -> Msat.checked(-1, "x"));
    }
}
