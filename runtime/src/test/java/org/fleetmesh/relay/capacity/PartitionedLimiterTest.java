package org.fleetmesh.relay.capacity;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limiter.AbstractPartitionedLimiter;

/**
 * Why Netflix concurrency-limits' partitioned limiter (0.5.3) is the anchor but not the mechanism:
 * it guarantees each partition a share of a concurrency limit, so at saturation the lowest tier
 * still gets in while its share is free, and a higher tier past its share is refused. The issue
 * asks the opposite order (the lowest tier shed first), which {@link Shedding} gives.
 */
class PartitionedLimiterTest {

    static final class TierLimiter extends AbstractPartitionedLimiter<Priority> {
        static final class Builder extends AbstractPartitionedLimiter.Builder<Builder, Priority> {
            @Override
            protected Builder self() {
                return this;
            }
        }

        TierLimiter(Builder b) {
            super(b);
        }
    }

    static Limiter<Priority> limiter() {
        return new TierLimiter.Builder().limit(FixedLimit.of(10)).partitionResolver(Priority::label)
                .partition(Priority.CLIENT_EVENT.label(), 0.4).partition(Priority.CLIENT_REQ.label(), 0.3)
                .partition(Priority.PEER_SYNC.label(), 0.2).partition(Priority.BACKFILL.label(), 0.1).build();
    }

    @Test
    void atSaturationThePartitionedLimiterAdmitsBackfillAndRefusesClientQueries() {
        Limiter<Priority> l = limiter();
        List<Limiter.Listener> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // client queries borrow the whole limit while it is free
            held.add(l.acquire(Priority.CLIENT_REQ).orElseThrow());
        }
        Optional<Limiter.Listener> backfill = l.acquire(Priority.BACKFILL);
        Optional<Limiter.Listener> query = l.acquire(Priority.CLIENT_REQ);
        assertTrue(backfill.isPresent(), "backfill's guaranteed 10% share is free: admitted past the limit");
        assertFalse(query.isPresent(), "client queries are past their 30% share: refused");
        held.forEach(Limiter.Listener::onSuccess);
        backfill.get().onSuccess();
    }

    @Test
    void underTheSameSaturationSheddingRefusesBackfillFirst() {
        Shedding s = new Shedding(CapacityPolicy.DEFAULT);
        s.update(0.9, 0); // a saturated resource, e.g. the query queue 45% full against a 50% mark
        assertTrue(s.sheds(Priority.BACKFILL));
        assertTrue(s.sheds(Priority.CLIENT_REQ));
        s.update(0.6, 1);
        assertTrue(s.sheds(Priority.BACKFILL), "still the lowest tier is refused");
        assertFalse(s.sheds(Priority.CLIENT_EVENT));
    }
}
