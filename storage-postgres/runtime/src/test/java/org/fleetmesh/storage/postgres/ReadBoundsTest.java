package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.junit.jupiter.api.Test;

/**
 * How many rows a REQ filter's statement can return, which decides its round trips: at most
 * {@link EventReader#ONE_SHOT_MAX_ROWS} is one (autocommit), more is a cursor in a transaction (BEGIN, fetches,
 * ROLLBACK).
 */
class ReadBoundsTest {
    private static Set<EventId> ids(int n) {
        Set<EventId> out = new HashSet<>();
        for (int i = 0; i < n; i++) {
            byte[] b = new byte[32];
            b[0] = (byte) i;
            b[1] = (byte) (i >> 8);
            out.add(new EventId(b));
        }
        return out;
    }

    private static Filter f(Set<EventId> ids, Integer limit) {
        return new Filter(ids, null, null, Map.of(), null, null, limit);
    }

    @Test
    void tenIdsUnderTheDefaultLimitAreTenRowsAtMostSoOneRoundTrip() {
        assertEquals(10, EventReader.rowsAtMost(f(ids(10), 500)));
        assertEquals(10, EventReader.rowsAtMost(f(ids(10), null)));
    }

    @Test
    void aLimitBelowTheIdsStillBounds() {
        assertEquals(3, EventReader.rowsAtMost(f(ids(10), 3)));
    }

    @Test
    void manyIdsStillStream() {
        int rows = EventReader.rowsAtMost(f(ids(EventReader.ONE_SHOT_MAX_ROWS + 1), 5000));
        assertEquals(EventReader.ONE_SHOT_MAX_ROWS + 1, rows); // above ONE_SHOT_MAX_ROWS: a cursor
    }

    @Test
    void withoutIdsTheLimitDecides() {
        assertEquals(500, EventReader.rowsAtMost(f(null, 500)));
        assertEquals(1, EventReader.rowsAtMost(f(null, 0)));
        assertEquals(-256, EventReader.rowsAtMost(f(null, null))); // unbounded: streamed 256 at a time
    }
}
