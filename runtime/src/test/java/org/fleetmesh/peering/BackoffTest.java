package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** Exponential backoff with full jitter. */
class BackoffTest {
    private final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));

    @Test
    void theCeilingDoublesPerFailureUpToTheCap() {
        assertEquals(500, backoff.ceilingMillis(0));
        assertEquals(1000, backoff.ceilingMillis(1));
        assertEquals(16_000, backoff.ceilingMillis(5));
        assertEquals(30_000, backoff.ceilingMillis(6));
        assertEquals(30_000, backoff.ceilingMillis(1_000_000), "no overflow however many failures");
    }

    @Test
    void theDelayIsDrawnUniformlyFromZeroToTheCeiling() {
        assertEquals(0, backoff.delayMillis(3, () -> 0.0));
        assertEquals(2000, backoff.delayMillis(3, () -> 0.5));
        assertEquals(4000, backoff.delayMillis(3, () -> 0.99999999));
        assertThrows(IllegalArgumentException.class, () -> backoff.delayMillis(0, () -> 1.0));
    }

    @Test
    void aCapBelowTheBaseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
    }
}
