package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every main filter shape is answered from an index, never by reading a whole table. */
class ExplainTest extends PgFixture {
    static final List<PubKey> AUTHORS = new ArrayList<>();
    static final List<Event> EVENTS = new ArrayList<>();

    @BeforeAll
    static void fill() throws Exception {
        Random r = new Random(42);
        for (int i = 0; i < 200; i++) {
            AUTHORS.add(Ev.author());
        }
        int[] kinds = { 1, 1, 1, 1, 1, 7, 7, 6, 1111 };
        List<Event> batch = new ArrayList<>();
        for (int i = 0; i < 6000; i++) {
            PubKey a = AUTHORS.get(r.nextInt(AUTHORS.size()));
            int kind = r.nextInt(100) == 0 ? 30 : kinds[r.nextInt(kinds.length)];
            List<String[]> tags = new ArrayList<>();
            if (!EVENTS.isEmpty() && r.nextBoolean()) {
                tags.add(tag("e", EVENTS.get(r.nextInt(EVENTS.size())).id().hex()));
            }
            tags.add(tag("p", AUTHORS.get(r.nextInt(AUTHORS.size())).hex()));
            tags.add(tag("t", "topic" + r.nextInt(60)));
            Event e = ev(a, 1_600_000_000L + i * 60L + r.nextInt(30), kind, "note " + i, tags.toArray(new String[0][]));
            EVENTS.add(e);
            batch.add(e);
            if (batch.size() == 500) {
                store.save(batch).forEach(o -> assertTrue(o == SaveOutcome.STORED));
                batch.clear();
            }
        }
        store.save(batch);
        sql("analyze event", "analyze tag");
    }

    static String explain(Filter f, SqlFilter.Mode mode) throws Exception {
        SqlFilter.Sql sql = SqlFilter.build(f, NOW, mode);
        StringBuilder plan = new StringBuilder();
        try (Connection c = store.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("explain " + sql.text())) {
            SqlFilter.bind(c, ps, sql.params());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        return plan.toString();
    }

    static void assertIndexed(String what, Filter f) throws Exception {
        assertIndexed(what, f, SqlFilter.Mode.values());
    }

    static void assertIndexed(String what, Filter f, SqlFilter.Mode... modes) throws Exception {
        for (SqlFilter.Mode mode : modes) {
            String plan = explain(f, mode);
            assertFalse(plan.contains("Seq Scan on event"), what + " " + mode + " reads the whole event table:\n" + plan);
            assertFalse(plan.contains("Seq Scan on tag"), what + " " + mode + " reads the whole tag table:\n" + plan);
            assertTrue(plan.contains("Index"), what + " " + mode + " uses no index:\n" + plan);
        }
    }

    static Filter f(Set<EventId> ids, Set<PubKey> authors, Set<Integer> kinds, Map<String, Set<String>> tags,
            Long since, Long until, Integer limit) {
        return new Filter(ids, authors, kinds, tags, since, until, limit);
    }

    @Test
    void ids() throws Exception {
        assertIndexed("ids", f(Set.of(EVENTS.get(5).id(), EVENTS.get(500).id()), null, null, Map.of(), null, null, null));
    }

    @Test
    void authors() throws Exception {
        assertIndexed("one author", f(null, Set.of(AUTHORS.get(3)), null, Map.of(), null, null, null));
        assertIndexed("one author, limit", f(null, Set.of(AUTHORS.get(3)), null, Map.of(), null, null, 20));
        assertIndexed("ten authors, limit", f(null, Set.copyOf(AUTHORS.subList(0, 10)), null, Map.of(), null, null, 50));
        assertIndexed("ten authors", f(null, Set.copyOf(AUTHORS.subList(0, 10)), null, Map.of(), null, null, null));
        assertIndexed("authors x kinds, limit",
                f(null, Set.copyOf(AUTHORS.subList(0, 5)), Set.of(1, 7), Map.of(), null, null, 20));
    }

    @Test
    void oneAuthorWithALimitIsReadInIndexOrderWithoutAFullSort() throws Exception {
        String plan = explain(f(null, Set.of(AUTHORS.get(3)), null, Map.of(), null, null, 20), SqlFilter.Mode.QUERY);
        // the index gives created_at order; only ties on created_at are put in id order (Incremental Sort)
        assertFalse(plan.replace("Incremental Sort  (", "").contains("Sort  ("),
                "one author, limit: the index gives the order, no full sort:\n" + plan);
        assertTrue(plan.contains("Index Scan"), plan);
    }

    @Test
    void kinds() throws Exception {
        assertIndexed("rare kind", f(null, null, Set.of(30), Map.of(), null, null, null));
        // kinds 1 and 7 are most of the table: only the limited read must use the index
        assertIndexed("kinds, limit", f(null, null, Set.of(1, 7), Map.of(), null, null, 20), SqlFilter.Mode.QUERY,
                SqlFilter.Mode.ENUMERATE);
    }

    @Test
    void tags() throws Exception {
        String e = EVENTS.get(100).id().hex();
        String p = AUTHORS.get(7).hex();
        assertIndexed("#e", f(null, null, null, Map.of("e", Set.of(e)), null, null, null));
        assertIndexed("#e, limit", f(null, null, null, Map.of("e", Set.of(e)), null, null, 10));
        assertIndexed("#p", f(null, null, null, Map.of("p", Set.of(p)), null, null, null));
        assertIndexed("#p, limit", f(null, null, null, Map.of("p", Set.of(p)), null, null, 10));
        assertIndexed("#p + kinds, limit", f(null, null, Set.of(7), Map.of("p", Set.of(p)), null, null, 10));
        assertIndexed("#p + #t", f(null, null, null, Map.of("p", Set.of(p), "t", Set.of("topic1")), null, null, null));
    }

    @Test
    void timeRange() throws Exception {
        long since = EVENTS.get(3000).createdAt();
        assertIndexed("since/until", f(null, null, null, Map.of(), since, since + 600, null));
        assertIndexed("since/until, limit", f(null, null, null, Map.of(), since, since + 600, 5));
        // (counting everything is a whole-table read by definition)
        assertIndexed("latest, limit", f(null, null, null, Map.of(), null, null, 10), SqlFilter.Mode.QUERY,
                SqlFilter.Mode.ENUMERATE);
    }
}
