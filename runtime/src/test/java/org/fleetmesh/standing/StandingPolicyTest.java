package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The policy refuses weights and thresholds that make no sense, with the setting's name. */
class StandingPolicyTest {

    static StandingPolicy with(double s1, double peer, double demote, double suspend, double quarantine, int iterations,
            Duration halfLife) {
        return new StandingPolicy(s1, 0.5, 1.0, 1.0, peer, 0.0, 1, halfLife, demote, suspend, quarantine, iterations);
    }

    static String refusal(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void theDefaults() {
        StandingPolicy p = StandingPolicy.defaults();
        assertEquals(new StandingPolicy(0.1, 0.5, 1.0, 1.0, 0.5, 0.0, 1, Duration.ofDays(7), 0.95, 0.6, 0.2, 4), p);
        assertEquals(0.1, p.severity("S1"));
        assertEquals(0.5, p.severity("S2"));
        assertEquals(1.0, p.severity("S3"));
        assertEquals(-1, p.severity("S0"));
    }

    @Test
    void badSettingsAreRefusedByName() {
        Duration week = Duration.ofDays(7);
        assertTrue(refusal(() -> with(-0.1, 0.5, 0.95, 0.6, 0.2, 4, week)).startsWith("weight.s1"));
        assertTrue(refusal(() -> with(Double.NaN, 0.5, 0.95, 0.6, 0.2, 4, week)).startsWith("weight.s1"));
        assertTrue(refusal(() -> with(0.1, Double.POSITIVE_INFINITY, 0.95, 0.6, 0.2, 4, week))
                .startsWith("weight.peer"));
        assertTrue(refusal(() -> with(0.1, 0.5, 1.5, 0.6, 0.2, 4, week)).startsWith("demote-below"));
        assertTrue(refusal(() -> with(0.1, 0.5, 0.95, 0.6, -0.2, 4, week)).startsWith("quarantine-below"));
        assertTrue(refusal(() -> with(0.1, 0.5, 0.5, 0.6, 0.2, 4, week)).startsWith("need demote-below"));
        assertTrue(refusal(() -> with(0.1, 0.5, 0.95, 0.1, 0.2, 4, week)).startsWith("need demote-below"));
        assertTrue(refusal(() -> with(0.1, 0.5, 0.95, 0.6, 0.2, 0, week)).startsWith("iterations"));
        assertTrue(refusal(() -> with(0.1, 0.5, 0.95, 0.6, 0.2, 17, week)).startsWith("iterations"));
        assertTrue(refusal(() -> with(0.1, 0.5, 0.95, 0.6, 0.2, 4, Duration.ZERO)).startsWith("half-life"));
        assertTrue(refusal(() -> new StandingPolicy(0.1, 0.5, 1.0, 1.0, 0.5, 0.0, -1, week, 0.95, 0.6, 0.2, 4))
                .startsWith("min-observer-tier"));
        with(0, 0, 1, 1, 1, 1, Duration.ofMillis(1)); // the edges are allowed
        with(0, 0, 0, 0, 0, 16, Duration.ofMillis(1));
    }
}
