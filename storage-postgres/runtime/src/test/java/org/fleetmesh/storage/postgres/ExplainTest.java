package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

    /**
     * The plan PostgreSQL caches for {@code sql} when told to plan generically, as the reader runs a statement whose
     * best plan does not depend on its values: PREPARE with the parameters' types, EXPLAIN EXECUTE.
     */
    static String genericPlan(SqlFilter.Sql sql) throws Exception {
        StringBuilder types = new StringBuilder();
        StringBuilder values = new StringBuilder();
        for (Object p : sql.params()) {
            String type;
            String literal;
            if (p instanceof Long l) {
                type = "bigint";
                literal = l.toString();
            } else if (p instanceof Integer n) {
                type = "int4";
                literal = n.toString();
            } else if (p instanceof byte[] b) {
                type = "bytea";
                literal = "'\\x" + java.util.HexFormat.of().formatHex(b) + "'";
            } else if (p instanceof SqlFilter.Arr a && a.type().equals("int4")) {
                type = "int4[]";
                literal = "array" + java.util.Arrays.toString(a.values()) + "::int4[]";
            } else {
                throw new IllegalArgumentException("no literal for " + p);
            }
            types.append(types.length() == 0 ? "" : ", ").append(type);
            values.append(values.length() == 0 ? "" : ", ").append(literal);
        }
        StringBuilder text = new StringBuilder();
        int n = 0;
        for (char ch : sql.text().toCharArray()) {
            if (ch == '?') {
                text.append('$').append(++n);
            } else {
                text.append(ch);
            }
        }
        StringBuilder plan = new StringBuilder();
        try (Connection c = store.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute("set plan_cache_mode = force_generic_plan");
            st.execute("prepare g (" + types + ") as " + text);
            try (ResultSet rs = st.executeQuery("explain execute g(" + values + ")")) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            } finally {
                st.execute("deallocate g");
                st.execute("reset plan_cache_mode");
            }
        }
        return plan.toString();
    }

    @Test
    void onlyReadsWithOneBestPlanArePlannedGenerically() {
        long since = 1_600_100_000L;
        Set<PubKey> one = Set.of(AUTHORS.get(3));
        SqlFilter.Mode q = SqlFilter.Mode.QUERY;
        assertTrue(SqlFilter.build(f(null, null, Set.of(1), Map.of(), null, null, 100), NOW, q).generic(), "one kind");
        assertTrue(SqlFilter.build(f(null, null, null, Map.of(), null, null, 20), NOW, q).generic(), "the latest");
        // the best plan depends on the values: left to the plan cache
        assertFalse(SqlFilter.build(f(null, null, Set.of(1), Map.of(), since, since + 7200, 100), NOW, q).generic(),
                "one kind, a window");
        assertFalse(SqlFilter.build(f(null, null, null, Map.of(), since, since + 7200, 500), NOW, q).generic(), "a window");
        assertFalse(SqlFilter.build(f(null, null, null, Map.of(), since, null, 500), NOW, q).generic(), "since");
        assertFalse(SqlFilter.build(f(null, null, Set.of(1, 7), Map.of(), null, null, 100), NOW, q).generic(), "kinds");
        assertFalse(SqlFilter.build(f(null, one, null, Map.of(), null, null, 100), NOW, q).generic(), "an author");
        assertFalse(SqlFilter.build(f(Set.of(EVENTS.get(1).id()), null, null, Map.of(), null, null, 5), NOW, q).generic(),
                "ids");
        assertFalse(SqlFilter.build(f(null, null, Set.of(1), Map.of("t", Set.of("topic1")), null, null, 10), NOW, q)
                .generic(), "a tag");
        assertFalse(SqlFilter.build(f(null, null, Set.of(1), Map.of(), null, null, null), NOW, q).generic(), "no limit");
        assertFalse(SqlFilter.build(f(null, null, Set.of(1), Map.of(), null, null, 100), NOW, SqlFilter.Mode.ENUMERATE)
                .generic(), "an enumeration");
        // the kind and the limit are written out, so the generic plan is made for them; the time stays a parameter
        SqlFilter.Sql kind = SqlFilter.build(f(null, null, Set.of(1), Map.of(), null, null, 100), NOW, q);
        assertTrue(kind.text().endsWith(" limit 100") && kind.text().contains("e.kind = 1 "), kind.text());
        assertTrue(kind.params().equals(List.of(NOW)), kind.params().toString());
        // elsewhere the limit stays a parameter: with it the plan cache keeps planning each execution for its values
        SqlFilter.Sql window = SqlFilter.build(f(null, null, Set.of(1), Map.of(), since, since + 60, 100), NOW, q);
        assertTrue(window.text().endsWith(" limit ?") && window.params().contains(100), window.text());
    }

    @Test
    void theGenericPlansReadByIndexAndStopAtTheLimit() throws Exception {
        // many: more matches than the limit, so the plan must read in index order and stop there (no full sort)
        record Case(String what, Filter f, String index, boolean many) {
        }
        // as an unauthenticated reader (the gated-kind rule adds its condition), like a relay's anonymous client
        org.fleetmesh.spi.storage.Reader anonymous = org.fleetmesh.spi.storage.Reader.of(Set.of(4, 1059), Set.of());
        for (Case k : List.of(
                // kind 1 is over half the store: walking the newest events and skipping the others is as good (and
                // what a plan for the value picks); a rare kind must be read by its own index, never by that walk
                new Case("one common kind", f(null, null, Set.of(1), Map.of(), null, null, 100),
                        "event_(kind|created_at)_idx", true),
                new Case("one rare kind", f(null, null, Set.of(30), Map.of(), null, null, 100), "event_kind_idx", false),
                new Case("a kind of one event in nine", f(null, null, Set.of(1111), Map.of(), null, null, 5),
                        "event_(kind|created_at)_idx", true),
                new Case("the latest", f(null, null, null, Map.of(), null, null, 20), "event_created_at_idx", true))) {
            SqlFilter.Sql sql = SqlFilter.build(k.f(), NOW, SqlFilter.Mode.QUERY, anonymous);
            assertTrue(sql.generic(), k.what());
            String plan = genericPlan(sql);
            assertTrue(java.util.regex.Pattern.compile("(Index Scan using|Bitmap Index Scan on) " + k.index() + " ")
                    .matcher(plan).find(), k.what() + ":\n" + plan);
            assertFalse(plan.contains("Seq Scan"), k.what() + ":\n" + plan);
            assertTrue(plan.startsWith("Limit"), k.what() + ":\n" + plan);
            if (k.many()) {
                assertFalse(plan.contains("Bitmap"), k.what() + ":\n" + plan);
                assertFalse(plan.replace("Incremental Sort  (", "").contains("Sort  ("), k.what() + ": a full sort\n" + plan);
            }
        }
    }

    /**
     * The reads the event cache serves ({@link IndexRead}) are one index-only scan each, in the index's order (no sort),
     * for the operator and for a reader whose gated kinds are excluded by a condition on the entry's kind: V13's
     * covering indexes hold what the scan returns.
     */
    @Test
    void theCachedShapesAreIndexOnlyScans() throws Exception {
        sql("vacuum event", "vacuum tag"); // index-only scans need the visibility map
        String p = AUTHORS.get(4).hex();
        Map<String, Filter> shapes = new java.util.LinkedHashMap<>();
        shapes.put("one #p value", f(null, null, null, Map.of("p", Set.of(p)), null, null, 100));
        shapes.put("one #p value, kinds, a window", f(null, null, Set.of(1, 7), Map.of("p", Set.of(p)),
                1_600_000_000L, 1_600_200_000L, 50));
        shapes.put("one author", f(null, Set.of(AUTHORS.get(3)), null, Map.of(), null, null, 100));
        shapes.put("one author, one kind", f(null, Set.of(AUTHORS.get(3)), Set.of(1), Map.of(), null, null, 100));
        shapes.put("one kind, until", f(null, null, Set.of(7), Map.of(), null, 1_600_200_000L, 100));
        shapes.put("a window", f(null, null, null, Map.of(), 1_600_100_000L, 1_600_103_600L, 200));
        shapes.put("the newest", f(null, null, null, Map.of(), null, null, 20));
        for (org.fleetmesh.spi.storage.Reader who : List.of(org.fleetmesh.spi.storage.Reader.operator(),
                org.fleetmesh.spi.storage.Reader.of(Set.of(4, 1059), Set.of()))) {
            for (Map.Entry<String, Filter> shape : shapes.entrySet()) {
                IndexRead read = IndexRead.plan(shape.getValue(), who);
                assertTrue(read != null, shape.getKey() + ": one index answers it");
                StringBuilder plan = new StringBuilder();
                try (Connection c = store.dataSource().getConnection();
                        PreparedStatement ps = c.prepareStatement("explain " + read.scan.text())) {
                    SqlFilter.bind(c, ps, read.scan.params());
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            plan.append(rs.getString(1)).append('\n');
                        }
                    }
                }
                assertTrue(plan.toString().contains("Index Only Scan"), shape.getKey() + ":\n" + plan);
                assertFalse(plan.toString().contains("Sort"), shape.getKey() + ": no sort\n" + plan);
            }
        }
        assertTrue(IndexRead.plan(f(null, Set.copyOf(AUTHORS.subList(0, 2)), null, Map.of(), null, null, 10),
                org.fleetmesh.spi.storage.Reader.operator()) == null, "two authors: the ordinary statement");
    }

    /** The plan of {@code sql} under {@code plan_cache_mode = mode} (set for one transaction, rolled back). */
    private static String planUnder(String mode, SqlFilter.Sql sql) throws Exception {
        StringBuilder plan = new StringBuilder();
        try (Connection c = store.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("set local plan_cache_mode = " + mode);
            }
            try (PreparedStatement ps = c.prepareStatement("explain " + sql.text())) {
                SqlFilter.bind(c, ps, sql.params());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
            }
            c.rollback();
        }
        return plan.toString();
    }

    /**
     * A tag read with its events joined (for tags of few events per value) walks the tag index in its order and finds
     * each entry's event by {@code event_seq_idx}: no sort, no hash, with the plan for these values and the generic one.
     */
    @Test
    void aTagReadWithItsEventsJoinedIsANestedLoopInIndexOrder() throws Exception {
        sql("vacuum event", "vacuum tag");
        String p = AUTHORS.get(4).hex();
        IndexRead read = IndexRead.plan(f(null, null, null, Map.of("p", Set.of(p)), null, null, 100),
                org.fleetmesh.spi.storage.Reader.operator());
        SqlFilter.Sql joined = read.scanWithEvents();
        for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
            String text = planUnder(mode, joined);
            assertTrue(text.contains("Nested Loop") && text.contains("tag_value_idx") && text.contains("event_seq_idx"),
                    mode + ":\n" + text);
            assertFalse(text.contains("Sort") || text.contains("Hash"), mode + ":\n" + text);
        }
    }

    /**
     * The events of one author's read that the cache lacks are fetched back through the author's index range (the
     * one the scan walked), not by a descent of {@code event_seq_idx} per event: with the plan for these values and
     * with the generic plan that the plan cache settles on after five executions.
     */
    @Test
    void anAuthorsMissingEventsAreFetchedThroughTheAuthorsIndex() throws Exception {
        sql("vacuum event");
        for (Filter f : List.of(f(null, Set.of(AUTHORS.get(3)), null, Map.of(), null, null, 100),
                f(null, Set.of(AUTHORS.get(3)), Set.of(1), Map.of(), null, null, 100))) {
            IndexRead read = IndexRead.plan(f, org.fleetmesh.spi.storage.Reader.operator());
            List<long[]> rows = new java.util.ArrayList<>();
            try (Connection c = store.dataSource().getConnection();
                    PreparedStatement ps = c.prepareStatement(read.scan.text())) {
                SqlFilter.bind(c, ps, read.scan.params());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new long[] { rs.getLong(1), rs.getLong(2) });
                    }
                }
            }
            assertTrue(rows.size() > 10, "the author has events: " + rows.size());
            long[] seqs = rows.stream().mapToLong(r -> r[0]).toArray();
            long oldest = rows.stream().mapToLong(r -> r[1]).min().getAsLong();
            long newest = rows.stream().mapToLong(r -> r[1]).max().getAsLong();
            SqlFilter.Sql fetch = read.fetch(seqs, oldest, newest);
            for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
                String plan = planUnder(mode, fetch);
                assertTrue(plan.contains("event_pubkey"), mode + ", " + f + ":\n" + plan);
                assertFalse(plan.contains("event_seq_idx"), mode + ", " + f + ":\n" + plan);
            }
            int found = 0;
            try (Connection c = store.dataSource().getConnection(); PreparedStatement ps = fetch.prepare(c);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found++;
                }
            }
            assertEquals(seqs.length, found, "every event the scan named");
        }
        // a read without an author fetches by seq
        IndexRead newest = IndexRead.plan(f(null, null, null, Map.of(), null, null, 20),
                org.fleetmesh.spi.storage.Reader.operator());
        assertEquals(IndexRead.fetch(new long[] { 1, 2 }).text(), newest.fetch(new long[] { 1, 2 }, 0, 1).text());
    }

    @Test
    void theReaderRunsThemWithGenericPlansAndLeavesTheRestToThePlanCache() throws Exception {
        store.eventCacheMib(0); // the ordinary statements (with the cache, one index answers these two: IndexReadTest)
        try {
            ordinaryStatementsPlanned();
        } finally {
            store.eventCacheMib(PostgresStore.DEFAULT_EVENT_CACHE_MIB);
        }
    }

    private void ordinaryStatementsPlanned() throws Exception {
        Filter kind = f(null, null, Set.of(7), Map.of(), null, null, 37);
        Filter author = f(null, Set.of(AUTHORS.get(11)), null, Map.of(), null, null, 37);
        List<EventId> expected = null;
        for (int i = 0; i < 12; i++) {
            List<EventId> got = ids(kind);
            assertTrue(got.size() == 37, got.toString());
            if (expected != null) {
                assertTrue(expected.equals(got), "the same answer every time");
            }
            expected = got;
            ids(author);
        }
        // the newest 37 of kind 7, newest first (ties: lowest id), as a scan of every event says
        List<EventId> scan = EVENTS.stream().filter(e -> e.kind() == 7)
                .sorted(java.util.Comparator.comparingLong(Event::createdAt).reversed()
                        .thenComparing(e -> e.id().hex()))
                .limit(37).map(Event::id).toList();
        assertTrue(scan.equals(expected), "kind 7, limit 37: " + expected + " against " + scan);
        // every connection of the pool: what its session has prepared (pgjdbc names a statement from its fifth use)
        long[] plans = new long[3]; // one kind: generic, custom; an author: custom
        onEveryPooledConnection(c -> {
            try (java.sql.Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                    "select statement, generic_plans, custom_plans from pg_prepared_statements")) {
                while (rs.next()) {
                    String text = rs.getString(1);
                    if (text.contains("e.kind = 7 ") && text.endsWith("limit 37")) {
                        plans[0] += rs.getLong(2);
                        plans[1] += rs.getLong(3);
                    } else if (text.contains("e.pubkey = $1") && text.contains("limit $")) {
                        plans[2] += rs.getLong(3);
                    }
                }
            }
        });
        assertTrue(plans[0] > 0 && plans[1] == 0, "one kind: generic " + plans[0] + ", custom " + plans[1]);
        assertTrue(plans[2] > 0, "an author's read is planned per execution at first (the plan cache's own rule)");
    }
}
