package org.fleetmesh.settlement.lightning.l402;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChallengeBudgetTest {
    static final long S = 1_000_000_000L;

    @Test
    void oneAddressGetsItsAllowanceThenWaitsForARefill() {
        ChallengeBudget b = new ChallengeBudget(3, 100, 60 * S, 10);
        long t = 7 * S;
        for (int i = 0; i < 3; i++) {
            assertEquals(0, b.admit("a", t));
        }
        long wait = b.admit("a", t);
        assertEquals(20 * S, wait, "one refills every 60/3 s");
        assertEquals(0, b.admit("b", t), "another address has its own");
        assertTrue(b.admit("a", t + 19 * S) > 0);
        assertEquals(0, b.admit("a", t + 20 * S));
        assertTrue(b.admit("a", t + 20 * S) > 0);
    }

    @Test
    void allAddressesTogetherAreHeldToTheTotal() {
        ChallengeBudget b = new ChallengeBudget(3, 5, 60 * S, 100);
        int made = 0;
        for (int i = 0; i < 20; i++) {
            if (b.admit("addr" + i, 0) == 0) {
                made++;
            }
        }
        assertEquals(5, made);
        assertEquals(12 * S, b.admit("fresh", 0), "the total refills one every 60/5 s");
    }

    @Test
    void addressesRememberedAreBounded() {
        ChallengeBudget b = new ChallengeBudget(1, 100, 60 * S, 2);
        assertEquals(0, b.admit("a", 0));
        assertEquals(0, b.admit("b", 0));
        assertEquals(0, b.admit("c", 0));
        assertEquals(0, b.admit("a", 0), "the least recently seen was forgotten");
        assertTrue(b.admit("c", 0) > 0);
    }
}
