package org.fleetmesh.peering.link;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.fleetmesh.peering.budget.Direction;
import org.fleetmesh.spi.peers.PeerRecord;
import org.junit.jupiter.api.Test;

class StrainLedgerTest {
    static final long H = 1_000_000_000L; // a half-life of one second (of a test clock)

    @Test
    void figuresHalveEveryHalfLifeAndDirectionsStayApart() {
        StrainLedger l = new StrainLedger(H, 0);
        l.add(Direction.IN, 1000, 80, 4000, 0, 0);
        l.add(Direction.OUT, 10, 1, 0, 600, 0);
        assertEquals(1000, l.get(Direction.IN, StrainLedger.Measure.BYTES, 0));
        assertEquals(500, l.get(Direction.IN, StrainLedger.Measure.BYTES, H));
        assertEquals(20, l.get(Direction.IN, StrainLedger.Measure.EVENTS, 2 * H));
        assertEquals(1000, l.get(Direction.IN, StrainLedger.Measure.VERIFY_NANOS, 2 * H));
        assertEquals(75, l.get(Direction.OUT, StrainLedger.Measure.QUERY_NANOS, 3 * H));
        assertEquals(0, l.get(Direction.OUT, StrainLedger.Measure.VERIFY_NANOS, 3 * H));
        l.add(Direction.IN, 100, 0, 0, 0, 3 * H);
        assertEquals(225, l.get(Direction.IN, StrainLedger.Measure.BYTES, 3 * H));
    }

    @Test
    void aRestoredLedgerDecaysForTheTimeItWasAway() {
        PeerRecord.Strain s = new PeerRecord.Strain(800, 8, 0, 0, 0, 0, 0, 40);
        StrainLedger l = StrainLedger.restore(s, 2 * H, H, 5 * H);
        assertEquals(200, l.get(Direction.IN, StrainLedger.Measure.BYTES, 5 * H));
        assertEquals(10, l.snapshot(5 * H).outQueryNanos());
    }
}
