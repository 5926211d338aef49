package org.fleetmesh.spi.settlement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class HealthProbeTest {
    @Test
    void theBackendIsAskedAtMostOncePerIntervalAndAFailureIsKeptAsLongAsAnAnswer() {
        long[] now = { 0 };
        AtomicInteger asked = new AtomicInteger();
        boolean[] down = { false };
        HealthProbe<String> p = new HealthProbe<>(() -> {
            asked.incrementAndGet();
            if (down[0]) {
                throw new SettlementException(SettlementException.Reason.RAIL_UNAVAILABLE, "the mint does not answer");
            }
            return "up " + asked.get();
        }, Duration.ofSeconds(5), () -> now[0]);
        for (int i = 0; i < 1000; i++) {
            assertEquals("up 1", p.get());
        }
        assertEquals(1, asked.get(), "a thousand probes, one question");
        down[0] = true;
        now[0] += Duration.ofSeconds(5).toNanos();
        assertThrows(SettlementException.class, p::get);
        assertThrows(SettlementException.class, p::get);
        assertEquals(2, asked.get());
        down[0] = false;
        now[0] += Duration.ofSeconds(5).toNanos();
        assertEquals("up 3", p.get());
    }
}
