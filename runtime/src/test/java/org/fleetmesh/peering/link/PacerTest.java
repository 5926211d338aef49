package org.fleetmesh.peering.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fleetmesh.peering.budget.Allowance;
import org.fleetmesh.peering.budget.Bucket;
import org.junit.jupiter.api.Test;

class PacerTest {

    @Test
    void framesGoAtTheGrantedRateAndWaitOtherwise() {
        Pacer p = new Pacer();
        assertFalse(p.paced());
        assertEquals(0, p.delay(1_000_000, 1_000, 0), "no grant received: nothing to keep to");
        p.retarget(new Allowance(1000, 10, 0, 10), 0); // 10 events per 10 s: one a second
        assertTrue(p.paced());
        assertEquals(0, p.delay(100, 10, 0));
        assertEquals(1_000_000_000L, p.delay(100, 1, 0), "the next event refills in one second");
        assertEquals(0, p.delay(100, 1, 1_000_000_000L));
        assertEquals(Bucket.NEVER, p.delay(2000, 1, 5_000_000_000L), "bigger than the whole grant: split it");
        // a refused events reservation gives its bytes back
        assertEquals(0, p.delay(800, 4, 5_000_000_000L));
    }
}
