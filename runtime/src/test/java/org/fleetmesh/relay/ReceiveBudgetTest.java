package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ReceiveBudgetTest {
    static final long MIB = 1 << 20;

    @Test
    void aConnectionIsChargedWhatADoublingBufferAllocatesForItsBytes() {
        assertEquals(64, ReceiveBudget.capacity(1));
        assertEquals(64, ReceiveBudget.capacity(64));
        assertEquals(128, ReceiveBudget.capacity(65));
        assertEquals(2 * MIB, ReceiveBudget.capacity(2 * MIB));
        assertEquals(4 * MIB, ReceiveBudget.capacity(2 * MIB + 13), "a 2 MiB payload with its frame header");
    }

    @Test
    void underTheBudgetEveryConnectionMayHoldAWholeMessage() {
        ReceiveBudget b = new ReceiveBudget(10 * MIB);
        ReceiveBudget.Account a = b.open();
        assertTrue(a.received(2_000_000));
        assertEquals(2 * MIB, b.held());
        assertEquals(1, b.holders());
        a.completed();
        assertEquals(0, b.held());
        assertEquals(0, b.holders());
        assertEquals(1, a.completedMessages());
    }

    @Test
    void overTheBudgetOnlyAHolderPastItsShareAndTheFloorIsRefused() {
        ReceiveBudget b = new ReceiveBudget(4 * MIB);
        ReceiveBudget.Account big = b.open();
        ReceiveBudget.Account small = b.open();
        ReceiveBudget.Account late = b.open();
        assertTrue(big.received(1_500_000)); // charged 2 MiB
        assertTrue(small.received(100_000)); // 128 KiB
        assertFalse(late.received(1_500_000), "the budget is past, and 2 MiB is past its share (4 MiB / 3)");
        assertTrue(small.received(100_000), "over the budget, but at the floor of 256 KiB");
        big.closed();
        assertEquals(2 * MIB + 256 * 1024, b.held(), "a closed connection gives back what it was charged");
        small.closed();
        small.closed();
        assertEquals(2 * MIB, b.held(), "closing twice gives back once");
        late.closed();
        assertEquals(0, b.held());
        assertEquals(0, b.holders());
    }

    @Test
    void theBudgetIsPositive() {
        assertThrows(IllegalArgumentException.class, () -> new ReceiveBudget(0));
    }
}
