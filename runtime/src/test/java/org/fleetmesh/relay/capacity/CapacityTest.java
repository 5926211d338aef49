package org.fleetmesh.relay.capacity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.Filter;
import org.junit.jupiter.api.Test;

/** The check as the relay and peering code call it, over a load and a clock the test sets. */
class CapacityTest {
    final AtomicReference<Load> load = new AtomicReference<>(Load.IDLE);
    final AtomicLong clock = new AtomicLong();
    final AtomicInteger reads = new AtomicInteger();

    Capacity capacity(CapacityPolicy policy) {
        return new Capacity(policy, () -> {
            reads.incrementAndGet();
            return load.get();
        }, clock::get);
    }

    /** {@code n} of 100 events waiting to be written (write queue high mark 0.5: 50 waiting is pressure 1.0). */
    static Load writeQueue(int n) {
        return new Load(n, 100, 0, 0, 0, 0, 100);
    }

    @Test
    void underPressureTheShedTierGetsARateLimitedAnswerNamingTheCause() {
        Capacity c = capacity(CapacityPolicy.DEFAULT);
        load.set(writeQueue(30)); // 0.6: backfill only
        String answer = c.refusal(Priority.BACKFILL);
        assertEquals("rate-limited: the relay is under load (write queue 30% full); negentropy sync and backfill paused; "
                + "try again in a few seconds", answer);
        assertNull(c.refusal(Priority.PEER_SYNC));
        assertNull(c.refusal(Priority.CLIENT_REQ));
        assertNull(c.refusal(Priority.CLIENT_EVENT));
        assertNull(c.refusal(Priority.LIVE_ROUTING));
        assertEquals(1, c.refused(Priority.BACKFILL));
        assertEquals(0, c.refused(Priority.CLIENT_REQ));
    }

    @Test
    void theSignalIsReadAtMostOncePerInterval() {
        Capacity c = capacity(CapacityPolicy.DEFAULT); // every 100 ms
        load.set(writeQueue(30));
        c.refusal(Priority.BACKFILL);
        load.set(writeQueue(0));
        c.refusal(Priority.BACKFILL);
        c.refusal(Priority.CLIENT_REQ);
        assertEquals(1, reads.get(), "no second reading within the interval");
        clock.addAndGet(Duration.ofMillis(100).toNanos());
        c.refusal(Priority.BACKFILL);
        assertEquals(2, reads.get());
    }

    @Test
    void serviceReturnsAsPressureFalls() {
        Capacity c = capacity(CapacityPolicy.DEFAULT);
        load.set(writeQueue(45)); // 0.9: backfill, peer sync, client queries
        assertTrue(c.sheds(Priority.CLIENT_REQ));
        load.set(writeQueue(5)); // 0.1
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        assertTrue(c.sheds(Priority.BACKFILL), "calm for 0 s of the 2 s hold");
        clock.addAndGet(Duration.ofSeconds(2).toNanos());
        assertNull(c.refusal(Priority.BACKFILL));
        assertNull(c.refusal(Priority.CLIENT_REQ));
        assertEquals(0.1, c.pressure().level(), 1e-9);
    }

    @Test
    void aDisabledPolicyAdmitsEverythingButStillMeasures() {
        Capacity c = capacity(CapacityPolicy.OFF);
        load.set(writeQueue(100));
        assertNull(c.refusal(Priority.BACKFILL));
        assertNull(c.refusal(Priority.CLIENT_EVENT));
        assertEquals(2.0, c.pressure().level(), 1e-9);
        assertFalse(c.sheds(Priority.BACKFILL));
    }

    @Test
    void applyingAPolicyDecidesAfresh() {
        Capacity c = capacity(CapacityPolicy.OFF);
        load.set(writeQueue(30));
        assertNull(c.refusal(Priority.BACKFILL));
        c.apply(CapacityPolicy.DEFAULT);
        assertTrue(c.refusal(Priority.BACKFILL).startsWith("rate-limited: "));
        assertEquals(CapacityPolicy.DEFAULT, c.policy());
    }

    @Test
    void anUnreadableSourceLeavesTheLastReading() {
        AtomicReference<RuntimeException> fail = new AtomicReference<>();
        Capacity c = new Capacity(CapacityPolicy.DEFAULT, () -> {
            if (fail.get() != null) {
                throw fail.get();
            }
            return load.get();
        }, clock::get);
        load.set(writeQueue(30));
        assertTrue(c.sheds(Priority.BACKFILL));
        fail.set(new IllegalStateException("pool closed"));
        clock.addAndGet(Duration.ofSeconds(5).toNanos());
        assertTrue(c.sheds(Priority.BACKFILL));
    }

    @Test
    void requestsMapToTheirTiers() {
        Filter all = Filter.ALL;
        assertEquals(Priority.CLIENT_REQ, Priority.of(new ClientMessage.Req("s", List.of(all))));
        assertEquals(Priority.LIVE_ROUTING, Priority.of(new ClientMessage.Req("s", List.of(all.withLimit(0)))),
                "a REQ that reads nothing stored only waits for live events");
        assertEquals(Priority.CLIENT_REQ, Priority.of(new ClientMessage.Req("s", List.of(all.withLimit(0), all))));
        assertEquals(Priority.CLIENT_REQ, Priority.of(new ClientMessage.Count("s", List.of(all))));
        assertEquals(Priority.BACKFILL, Priority.of(new ClientMessage.NegOpen("s", List.of(all), new byte[] { 0x61 })));
        assertNull(Priority.of(new ClientMessage.Close("s")));
    }
}
