package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SendBudgetTest {

    @Test
    void aSendPastTheBudgetIsRefusedAndTakesNothing() {
        SendBudget budget = new SendBudget(16_384);
        assertTrue(budget.take(16_000));
        assertFalse(budget.take(385));
        assertEquals(16_000, budget.queued());
        assertTrue(budget.take(384), "exactly the budget fits");
        budget.giveBack(16_000);
        assertEquals(384, budget.queued(), "written sends give their bytes back");
    }

    @Test
    void aBudgetThatCannotHoldAHandshakeMessageIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SendBudget(1024));
    }

}
