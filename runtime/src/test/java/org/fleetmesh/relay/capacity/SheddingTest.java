package org.fleetmesh.relay.capacity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The tiers a pressure reading sheds, and when they come back (defaults: 0.5, 0.7, 0.85, 1.0; restore at 75% for 2 s). */
class SheddingTest {
    static final long S = 1_000_000_000L;

    static Set<Priority> shed(Shedding s) {
        Set<Priority> out = EnumSet.noneOf(Priority.class);
        for (Priority p : Priority.values()) {
            if (s.sheds(p)) {
                out.add(p);
            }
        }
        return out;
    }

    @Test
    void lowPressureShedsNothing() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(0.49, 0);
        assertEquals(Set.of(), shed(s));
    }

    @Test
    void risingPressureShedsTheLowestTierFirst() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(0.5, 0);
        assertEquals(EnumSet.of(Priority.BACKFILL), shed(s));
        s.update(0.7, 1);
        assertEquals(EnumSet.of(Priority.BACKFILL, Priority.PEER_SYNC), shed(s));
        s.update(0.85, 2);
        assertEquals(EnumSet.of(Priority.BACKFILL, Priority.PEER_SYNC, Priority.CLIENT_REQ), shed(s));
        s.update(1.0, 3);
        assertEquals(EnumSet.of(Priority.BACKFILL, Priority.PEER_SYNC, Priority.CLIENT_REQ, Priority.CLIENT_EVENT), shed(s));
    }

    @Test
    void liveRoutingIsNeverShed() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(1e9, 0);
        assertFalse(s.sheds(Priority.LIVE_ROUTING));
        assertEquals(EnumSet.complementOf(EnumSet.of(Priority.LIVE_ROUTING)), shed(s));
    }

    @Test
    void aShedTierStaysShedAboveItsRestoreMark() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(0.6, 0);
        s.update(0.4, 10 * S); // below 0.5 but not below 0.375
        assertTrue(s.sheds(Priority.BACKFILL), "hysteresis: 0.4 is above 0.75 x 0.5");
    }

    @Test
    void aShedTierComesBackAfterTheHoldBelowItsRestoreMark() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(0.6, 0);
        s.update(0.3, 1 * S);
        assertTrue(s.sheds(Priority.BACKFILL), "calm for 0 s of 2");
        s.update(0.3, 2 * S);
        assertTrue(s.sheds(Priority.BACKFILL), "calm for 1 s of 2");
        s.update(0.3, 3 * S);
        assertFalse(s.sheds(Priority.BACKFILL), "calm for 2 s");
    }

    @Test
    void aSpikeDuringTheHoldStartsItAgain() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(0.6, 0);
        s.update(0.3, 1 * S);
        s.update(0.45, 2 * S); // above the restore mark: not calm
        s.update(0.3, 3 * S);
        assertTrue(s.sheds(Priority.BACKFILL), "the calm restarted at 3 s");
        s.update(0.3, 5 * S);
        assertFalse(s.sheds(Priority.BACKFILL));
    }

    @Test
    void fallingPressureRestoresTheHighestTierFirst() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(2.0, 0);
        s.update(0.6, 1 * S); // below 0.75 x 1.0 and 0.75 x 0.85, not below 0.75 x 0.7 = 0.525
        s.update(0.6, 3 * S);
        assertEquals(EnumSet.of(Priority.BACKFILL, Priority.PEER_SYNC), shed(s));
        s.update(0.3, 4 * S);
        s.update(0.3, 6 * S);
        assertEquals(Set.of(), shed(s));
    }

    @Test
    void aDisabledPolicyShedsNothing() {
        Shedding s = new Shedding(CapacityPolicy.OFF);
        s.update(100, 0);
        assertEquals(Set.of(), shed(s));
    }

    @Test
    void levelsMustRiseWithPriority() {
        CapacityPolicy d = CapacityPolicy.DEFAULT;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CapacityPolicy(true, d.writeQueueHigh(), d.commitLatencyHigh(), d.heapHigh(), d.heapFloor(), d.queryQueueHigh(),
                        0.9, 0.7, 0.85, 1.0, d.restoreRatio(), d.restoreHold(), d.sampleEvery()));
        assertTrue(e.getMessage().contains("rise with priority"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new CapacityPolicy(true, 0, Duration.ofSeconds(1), 0.9, 0.5, 0.5, 0.5,
                0.7, 0.85, 1.0, 0.75, Duration.ZERO, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new CapacityPolicy(true, 0.5, Duration.ZERO, 0.9, 0.5, 0.5, 0.5,
                0.7, 0.85, 1.0, 0.75, Duration.ZERO, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new CapacityPolicy(true, 0.5, Duration.ofSeconds(1), 0.9, 0.5, 0.5, 0.5,
                0.7, 0.85, 1.0, 1.5, Duration.ZERO, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new CapacityPolicy(true, 0.5, Duration.ofSeconds(1), 0.9, 0.9, 0.5, 0.5,
                0.7, 0.85, 1.0, 0.75, Duration.ZERO, Duration.ZERO), "the heap's floor at its high mark");
    }
}
