package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PenaltiesTest {

    @Test
    void onePenaltyPerPublisherAndMinute() {
        Penalties p = new Penalties(10, 100);
        assertTrue(p.take("a", true, 0));
        assertFalse(p.take("a", true, 59_999));
        assertTrue(p.take("b", true, 1));
        assertTrue(p.take("a", true, 60_000));
    }

    @Test
    void strangersShareABudgetPerMinuteAndLinkedPeersDoNot() {
        Penalties p = new Penalties(3, 1000);
        int taken = 0;
        for (int i = 0; i < 100; i++) {
            if (p.take("stranger-" + i, false, 1000 + i)) {
                taken++;
            }
        }
        assertEquals(3, taken, "a swarm of fresh keys gets the stranger budget, no more");
        assertTrue(p.take("peer", true, 2000), "a linked peer is not held to the strangers' budget");
        assertTrue(p.take("stranger-late", false, 61_000), "a new minute, a new budget");
    }

    @Test
    void rememberedPublishersAreBounded() {
        Penalties p = new Penalties(0, 2);
        assertTrue(p.take("a", true, 0));
        assertTrue(p.take("b", true, 0));
        assertTrue(p.take("c", true, 0));
        // "a" was forgotten (only two remembered): a second penalty within the minute is allowed, the map stays small
        assertTrue(p.take("a", true, 1));
        assertFalse(p.take("c", true, 2));
    }
}
