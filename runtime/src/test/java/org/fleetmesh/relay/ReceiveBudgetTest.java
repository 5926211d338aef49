package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ReceiveBudgetTest {
    @Test
    void underTheBudgetEveryConnectionMayHoldAWholeMessage() {
        ReceiveBudget b = new ReceiveBudget(10_000_000);
        ReceiveBudget.Account a = b.open();
        assertTrue(a.received(2_000_000));
        assertEquals(1, b.holders());
        a.completed();
        assertEquals(0, b.held());
        assertEquals(0, b.holders());
    }

    @Test
    void overTheBudgetOnlyAHolderPastItsShareAndTheFloorIsRefused() {
        ReceiveBudget b = new ReceiveBudget(1_000_000);
        ReceiveBudget.Account big = b.open();
        ReceiveBudget.Account small = b.open();
        assertTrue(big.received(900_000));
        assertTrue(small.received(200_000), "over the budget, but under the floor of 256 KiB");
        assertFalse(big.received(1), "past the budget and past its share (1,000,000 / 2)");
        big.closed();
        assertEquals(200_000, b.held(), "a closed connection gives back what it held");
        assertTrue(small.received(100_000));
        small.closed();
        small.closed();
        assertEquals(0, b.held(), "closing twice gives back once");
        assertEquals(0, b.holders());
    }

    @Test
    void theBudgetIsPositive() {
        assertThrows(IllegalArgumentException.class, () -> new ReceiveBudget(0));
    }
}
