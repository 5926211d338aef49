package org.fleetmesh.relay.capacity;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class PressureTest {
    static final CapacityPolicy POLICY = CapacityPolicy.DEFAULT; // write 0.5, commit 4 s, heap 0.5 to 0.95, query 0.5

    static Load load(int writeQueued, long commitMillis, long heapUsed, int queryQueued) {
        return new Load(writeQueued, 1000, Duration.ofMillis(commitMillis).toNanos(), heapUsed, 1000, queryQueued, 100);
    }

    @Test
    void anIdleRelayHasNoPressure() {
        Pressure p = Pressure.of(load(0, 0, 0, 0), POLICY);
        assertEquals(0.0, p.level());
        assertEquals(Pressure.Source.NONE, p.source());
        assertEquals("idle", p.describe());
    }

    @Test
    void eachSourceIsAShareOfItsHighMark() {
        Pressure p = Pressure.of(load(250, 2000, 725, 10), POLICY);
        assertEquals(0.5, p.writeQueue(), 1e-9, "250 of 1000 queued, high mark at half full");
        assertEquals(0.5, p.commitLatency(), 1e-9, "2 s of a 4 s mark");
        assertEquals(0.5, p.heap(), 1e-9, "72.5% is half way from the 50% floor to the 95% mark");
        assertEquals(0.2, p.queryQueue(), 1e-9, "10 of 100 queued, high mark at half full");
    }

    @Test
    void theLevelIsTheWorstSource() {
        assertEquals(Pressure.Source.WRITE_QUEUE, Pressure.of(load(400, 100, 0, 0), POLICY).source());
        Pressure commits = Pressure.of(load(100, 6000, 0, 0), POLICY);
        assertEquals(Pressure.Source.COMMIT_LATENCY, commits.source());
        assertEquals(1.5, commits.level(), 1e-9);
        assertEquals("commits taking 6000 ms", commits.describe());
        assertEquals(Pressure.Source.HEAP, Pressure.of(load(0, 0, 950, 0), POLICY).source());
        Pressure queries = Pressure.of(load(0, 0, 0, 40), POLICY);
        assertEquals(Pressure.Source.QUERY_QUEUE, queries.source());
        assertEquals("query queue 40% full", queries.describe());
    }

    @Test
    void anAnswerNamesTheCause() {
        assertEquals("write queue 60% full", Pressure.of(load(600, 0, 0, 0), POLICY).describe());
        assertEquals("heap 95% used", Pressure.of(load(0, 0, 950, 0), POLICY).describe());
    }

    @Test
    void aHeapBelowItsFloorIsNoPressure() {
        assertEquals(0.0, Pressure.of(load(0, 0, 400, 0), POLICY).heap(), "live data under the 50% floor");
    }

    @Test
    void anUnknownHeapSizeIsNoPressure() {
        Pressure p = Pressure.of(new Load(0, 10, 0, 5_000_000, 0, 0, 10), POLICY);
        assertEquals(0.0, p.heap());
    }

    @Test
    void aFullQueueIsOneHundredPercentNotMore() {
        Pressure p = Pressure.of(new Load(20, 10, 0, 0, 0, 0, 10), POLICY);
        assertEquals(2.0, p.writeQueue(), 1e-9, "fill clamped to 1.0, over a 0.5 mark");
    }
}
