package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.Test;

/**
 * {@code reorderByTime} ({@code meshnode import --reorder}): events saved in random time order are rewritten newest
 * first, every read answers as before (the event cache included), the writer goes on, and a session using the events
 * makes it give up without changing anything.
 */
class ReorderTest extends PgFixture {
    static final PubKey A = Ev.author();
    static final PubKey B = Ev.author();

    /** 3,000 events with random times, saved in batches in that random order. */
    static List<Event> importShuffled() throws Exception {
        truncate();
        Random r = new Random(7);
        List<Event> all = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            all.add(Ev.ev(i % 2 == 0 ? A : B, 1_600_000_000L + r.nextInt(100_000), i % 3 == 0 ? 7 : 1, "n" + i,
                    Ev.tag("t", "x" + (i % 5))));
        }
        for (int i = 0; i < all.size(); i += 250) {
            store.save(all.subList(i, Math.min(all.size(), i + 250)))
                    .forEach(o -> assertEquals(SaveOutcome.STORED, o));
        }
        return all;
    }

    /** The heap's order: the events' times as the table's pages hold them. */
    static List<Long> physicalTimes() throws Exception {
        List<Long> out = new ArrayList<>();
        try (Connection c = store.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select created_at from event order by ctid")) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    static boolean newestFirst(List<Long> times) {
        for (int i = 1; i < times.size(); i++) {
            if (times.get(i) > times.get(i - 1)) {
                return false;
            }
        }
        return true;
    }

    static List<Filter> filters() {
        return List.of(
                new Filter(null, null, null, Map.of(), 1_600_020_000L, 1_600_023_600L, 500),
                new Filter(null, Set.of(A), null, Map.of(), null, null, 100),
                new Filter(null, null, Set.of(7), Map.of(), null, 1_600_050_000L, 100),
                new Filter(null, null, null, Map.of("t", Set.of("x3")), null, null, 100),
                new Filter(null, Set.of(B), Set.of(1), Map.of(), 1_600_010_000L, null, 1000),
                Filter.ALL);
    }

    static List<List<EventId>> readAll() {
        List<List<EventId>> out = new ArrayList<>();
        for (Filter f : filters()) {
            out.add(ids(f));
        }
        return out;
    }

    @Test
    void eventsSavedInRandomOrderAreRewrittenNewestFirstAndReadTheSame() throws Exception {
        List<Event> all = importShuffled();
        assertFalse(newestFirst(physicalTimes()), "saved in random time order");
        List<List<EventId>> before = readAll(); // fills the event cache too
        List<EventId> newest = all.stream()
                .sorted(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id))
                .map(Event::id).toList();
        assertEquals(newest, before.get(before.size() - 1), "the model agrees before");

        assertTrue(store.reorderByTime());

        List<Long> after = physicalTimes();
        assertEquals(all.size(), after.size(), "nothing lost");
        assertTrue(newestFirst(after), "the table now holds the events newest first");
        try (Connection c = store.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select relpages, relallvisible from pg_class where relname = 'event'")) {
            rs.next();
            assertTrue(rs.getInt(1) > 0 && rs.getInt(2) == rs.getInt(1),
                    "every page all-visible (index-only scans stay index-only): " + rs.getInt(2) + " of " + rs.getInt(1));
        }
        assertEquals(before, readAll(), "every read answers as before");
        store.eventCacheMib(0);
        try {
            assertEquals(before, readAll(), "and so does the table itself, without the cache");
        } finally {
            store.eventCacheMib(64);
        }
        Event later = Ev.ev(A, 1_600_200_000L, 1, "after the reorder");
        assertEquals(List.of(SaveOutcome.STORED), store.save(List.of(later)));
        assertEquals(later.id(), ids(new Filter(null, Set.of(A), null, Map.of(), null, null, 1)).get(0));
    }

    @Test
    void aSessionUsingTheEventsMakesItGiveUpAndNothingChanges() throws Exception {
        importShuffled();
        List<Long> before = physicalTimes();
        Properties p = new Properties();
        p.setProperty("user", cluster.user());
        p.setProperty("password", cluster.password());
        try (Connection other = DriverManager.getConnection(cluster.jdbcUrl(), p)) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("lock table event in access share mode"); // what any read holds until it ends
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> store.reorderByTime(Duration.ofMillis(200)));
                assertTrue(e.getMessage().contains("in use by another session"), e.getMessage());
            }
            other.rollback();
        }
        assertEquals(before, physicalTimes(), "the table as it was");
        assertTrue(store.reorderByTime(), "and once the session is gone it goes through");
        assertTrue(newestFirst(physicalTimes()));
    }
}
