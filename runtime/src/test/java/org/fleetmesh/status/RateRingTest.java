package org.fleetmesh.status;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class RateRingTest {
    private static final List<String> SERIES = List.of("events", "frames");

    @Test
    void ratesArePerSecondBetweenConsecutiveSamples() {
        RateRing ring = new RateRing(SERIES, 10);
        assertEquals(0, ring.rates().ends().length, "one sample gives no rate");
        ring.record(10_000, 0, 100);
        assertEquals(0, ring.rates().ends().length);
        ring.record(20_000, 50, 100);
        ring.record(25_000, 60, 130);
        RateRing.Rates r = ring.rates();
        assertArrayEquals(new long[] {20_000, 25_000}, r.ends());
        assertArrayEquals(new double[] {5.0, 2.0}, r.of("events"), 1e-9);
        assertArrayEquals(new double[] {0.0, 6.0}, r.of("frames"), 1e-9);
    }

    @Test
    void keepsOnlyTheLastCapacityRates() {
        RateRing ring = new RateRing(SERIES, 3);
        for (int i = 0; i <= 10; i++) {
            ring.record(1_000L * (i + 1), i * i, i);
        }
        assertEquals(4, ring.samples(), "capacity + 1 samples");
        RateRing.Rates r = ring.rates();
        assertArrayEquals(new long[] {9_000, 10_000, 11_000}, r.ends());
        // i*i: 49, 64, 81, 100 -> 15, 17, 19 per second
        assertArrayEquals(new double[] {15, 17, 19}, r.of("events"), 1e-9);
        assertArrayEquals(new double[] {1, 1, 1}, r.of("frames"), 1e-9);
    }

    @Test
    void aCounterThatWentDownGivesZeroNotANegativeRate() {
        RateRing ring = new RateRing(SERIES, 5);
        ring.record(1_000, 100, 10);
        ring.record(2_000, 40, 20);
        ring.record(3_000, 43, 20);
        assertArrayEquals(new double[] {0, 3}, ring.rates().of("events"), 1e-9);
    }

    @Test
    void aSampleNotLaterThanTheLastIsIgnored() {
        RateRing ring = new RateRing(SERIES, 5);
        ring.record(5_000, 0, 0);
        ring.record(5_000, 10, 10);
        ring.record(4_000, 20, 20);
        assertEquals(1, ring.samples());
        ring.record(6_000, 1, 2);
        assertArrayEquals(new double[] {1}, ring.rates().of("events"), 1e-9);
    }

    @Test
    void refusesWrongShapes() {
        assertThrows(IllegalArgumentException.class, () -> new RateRing(List.of(), 3));
        assertThrows(IllegalArgumentException.class, () -> new RateRing(SERIES, 0));
        RateRing ring = new RateRing(SERIES, 3);
        assertThrows(IllegalArgumentException.class, () -> ring.record(1, 1));
        assertThrows(IllegalArgumentException.class, () -> ring.rates().of("nope"));
    }

    @Test
    void asMapRoundsToMilliUnitsAndKeepsSeriesOrder() {
        RateRing ring = new RateRing(SERIES, 3);
        ring.record(0, 0, 0);
        ring.record(3_000, 1, 2);
        Map<String, Object> m = ring.rates().asMap();
        assertEquals(List.of(3_000L), m.get("at"));
        assertEquals(Map.of("events", List.of(0.333), "frames", List.of(0.667)), m.get("series"));
        assertEquals(SERIES, List.copyOf(((Map<?, ?>) m.get("series")).keySet()));
    }
}
