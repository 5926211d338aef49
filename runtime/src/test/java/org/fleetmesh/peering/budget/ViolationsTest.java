package org.fleetmesh.peering.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ViolationsTest {
    static final long S = 1_000_000_000L;

    @Test
    void pastTheThresholdLowersRatesAndPastTheToleranceDisconnects() {
        Violations v = new Violations(new ViolationPolicy(3, 2, 60));
        assertEquals(Verdict.WITHIN, v.record(0));
        assertEquals(Verdict.WITHIN, v.record(1));
        assertEquals(Verdict.WITHIN, v.record(2), "the threshold itself is tolerated");
        assertEquals(Verdict.OVER_THRESHOLD, v.record(3));
        assertEquals(Verdict.OVER_THRESHOLD, v.record(4), "threshold + tolerance is still tolerated");
        assertEquals(Verdict.DISCONNECT, v.record(5));
        assertEquals(6, v.inPeriod(5));
        assertEquals(6, v.total());
    }

    @Test
    void aNewPeriodStartsTheCountAgain() {
        Violations v = new Violations(new ViolationPolicy(1, 0, 60));
        assertEquals(Verdict.WITHIN, v.record(0));
        assertEquals(Verdict.DISCONNECT, v.record(60 * S - 1), "still the first period");
        assertEquals(0, v.inPeriod(60 * S));
        assertEquals(Verdict.WITHIN, v.record(60 * S), "the period ended: a new one starts here");
        assertEquals(Verdict.WITHIN, v.record(200 * S));
        assertEquals(Verdict.DISCONNECT, v.record(259 * S), "the period starts at its first violation");
        assertEquals(5, v.total());
    }

    @Test
    void toleranceZeroDisconnectsRightPastTheThreshold() {
        Violations v = new Violations(new ViolationPolicy(0, 0, 1));
        assertEquals(Verdict.DISCONNECT, v.record(0));
    }

    @Test
    void aPolicyMustMakeSense() {
        assertThrows(IllegalArgumentException.class, () -> new ViolationPolicy(-1, 0, 60));
        assertThrows(IllegalArgumentException.class, () -> new ViolationPolicy(1, 0, 0));
    }
}
