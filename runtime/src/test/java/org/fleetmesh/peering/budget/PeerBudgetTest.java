package org.fleetmesh.peering.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class PeerBudgetTest {
    static final long S = 1_000_000_000L;
    final AtomicLong clock = new AtomicLong(42);
    final PeerBudget budget = new PeerBudget(new Allowance(1000, 10, 0, 10), new Allowance(500, 5, 2, 10),
            ViolationPolicy.DEFAULT, clock::get);

    @Test
    void bytesAndEventsAreReservedTogetherOrNotAtAll() {
        assertEquals(0, budget.reserve(Direction.IN, 900, 9));
        long wait = budget.reserve(Direction.IN, 50, 2);
        assertEquals(S, wait, "the second event refills in a second (10 per 10 s)");
        assertEquals(900, budget.used(Direction.IN, Resource.BYTES), "the bytes of the refused reservation came back");
        assertEquals(0, budget.reserve(Direction.IN, 100, 1));
        assertEquals(10, budget.used(Direction.IN, Resource.EVENTS));
    }

    @Test
    void theDirectionsAreSeparate() {
        assertEquals(0, budget.reserve(Direction.IN, 1000, 10));
        assertEquals(0, budget.reserve(Direction.OUT, 500, 5));
        assertEquals(Bucket.NEVER, budget.reserve(Direction.OUT, 501, 1));
        assertEquals(0, budget.used(Direction.OUT, Resource.REQS));
    }

    @Test
    void applyCommitsTheActualCostAndReleaseGivesItBack() {
        assertEquals(0, budget.reserve(Direction.IN, 600, 3));
        budget.apply(Direction.IN, 600, 3, 200, 1);
        assertEquals(200, budget.used(Direction.IN, Resource.BYTES));
        assertEquals(1, budget.used(Direction.IN, Resource.EVENTS));
        assertEquals(0, budget.reserve(Direction.IN, 800, 9));
        budget.release(Direction.IN, 800, 9);
        assertEquals(200, budget.used(Direction.IN, Resource.BYTES));
    }

    @Test
    void timeRefillsAndReqsAreMeteredOnlyWhereAllowed() {
        assertEquals(0, budget.reserve(Direction.IN, 1000, 10));
        clock.addAndGet(10 * S);
        assertEquals(0, budget.used(Direction.IN, Resource.BYTES), "a whole window refills everything");
        assertEquals(0, budget.reserveReq(Direction.IN), "IN does not meter REQs");
        assertNull(budget.bucket(Direction.IN, Resource.REQS));
        assertEquals(0, budget.reserveReq(Direction.OUT));
        assertEquals(0, budget.reserveReq(Direction.OUT));
        assertEquals(5 * S, budget.reserveReq(Direction.OUT));
    }

    @Test
    void violationsAreCountedOnTheInjectedClock() {
        for (int i = 0; i < 10; i++) {
            assertEquals(Verdict.WITHIN, budget.violation());
        }
        assertEquals(Verdict.OVER_THRESHOLD, budget.violation());
        clock.addAndGet(60 * S);
        assertEquals(Verdict.WITHIN, budget.violation(), "a minute later a new period has begun");
    }
}
