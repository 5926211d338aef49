package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.author;
import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.Reader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.agroal.api.AgroalDataSource;

/**
 * V11 splits the stored JSON of existing rows into body and sig; readers rebuild it byte for byte, and a row whose
 * JSON is not in Event.json()'s form keeps it whole and is still served verbatim.
 */
class CompactRowsMigrationTest {
    private static final long NOW = 1_700_000_000L;

    @Test
    void existingRowsAreSplitAndServedByteForByte(@TempDir Path dir) throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(dir);
                AgroalDataSource pool = PostgresStore.createPool(c.jdbcUrl(), c.user(), c.password(), 2)) {
            PgFixture.migrateTo(pool, "10");
            PubKey a = author();
            List<Event> events = new ArrayList<>();
            events.add(ev(a, NOW, 1, "plain"));
            events.add(ev(a, NOW + 1, 1, "quotes \" and \\ and \n and unicode \u00e9\u2603 and ,\"sig\":\" inside"));
            String target = "ab".repeat(32);
            events.add(ev(a, NOW + 2, 7, "+", new String[] { "e", target }, new String[] { "t", "Topic" },
                    new String[] { "p", "AB".repeat(32) }));
            // the same event as the first, but as some other writer spelled it (spaces): kept verbatim
            Event odd = ev(a, NOW + 3, 1, "odd");
            String oddJson = odd.json().replace("\",\"pubkey\":", "\", \"pubkey\":");
            try (Connection conn = pool.getConnection(); Statement st = conn.createStatement()) {
                for (Event e : events) {
                    st.execute("insert into event (id, pubkey, created_at, kind, json) values ('\\x" + e.id().hex()
                            + "', '\\x" + a.hex() + "', " + e.createdAt() + ", " + e.kind() + ", '"
                            + e.json().replace("'", "''") + "')");
                }
                // the V1 tag rows of events.get(2), and one of no stored event (dropped by V11)
                Event tagged = events.get(2);
                for (String[] t : new String[][] { { "e", target }, { "t", "Topic" }, { "p", "AB".repeat(32) } }) {
                    st.execute("insert into tag (event_id, name, value, kind, created_at) values ('\\x" + tagged.id().hex()
                            + "', '" + t[0] + "', '" + t[1] + "', 7, " + tagged.createdAt() + ")");
                }
                st.execute("insert into tag (event_id, name, value, kind, created_at) values ('\\x" + "cd".repeat(32)
                        + "', 'e', '" + target + "', 1, " + NOW + ")");
                st.execute("insert into event (id, pubkey, created_at, kind, json) values ('\\x" + odd.id().hex()
                        + "', '\\x" + a.hex() + "', " + odd.createdAt() + ", 1, '" + oddJson + "')");
            }
            Migrations.migrate(pool);
            try (Connection conn = pool.getConnection(); Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("select count(*) filter (where json is null),"
                            + " count(*) filter (where json is not null and body is null and sig is null) from event")) {
                rs.next();
                assertEquals(events.size(), rs.getInt(1), "rows in Event.json() form are split");
                assertEquals(1, rs.getInt(2), "the odd row keeps its JSON");
            }
            try (Connection conn = pool.getConnection(); Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("select name, encode(value, 'hex') from tag order by name")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getString(1) + "=" + rs.getString(2));
                }
                // hex ids as 0x01 + 32 bytes; uppercase hex and text as their UTF-8 bytes; the orphan gone
                assertEquals(List.of("e=01" + target, "p=" + org.fleetmesh.nostr.Hex.encode("AB".repeat(32).getBytes()),
                        "t=" + org.fleetmesh.nostr.Hex.encode("Topic".getBytes())), rows);
            }
            try (PostgresStore s = new PostgresStore(pool)) {
                for (Map<String, Set<String>> tf : List.of(Map.of("e", Set.of(target)), Map.of("t", Set.of("Topic")),
                        Map.of("p", Set.of("AB".repeat(32))))) {
                    for (Integer limit : new Integer[] { null, 5 }) {
                        List<EventId> hit = new ArrayList<>();
                        s.query(new Filter(null, null, null, tf, null, null, limit), NOW + 10, Reader.operator(), (id, json) -> {
                            hit.add(id);
                            return true;
                        });
                        assertEquals(List.of(events.get(2).id()), hit, tf + " limit " + limit);
                    }
                }
                Map<EventId, String> served = new LinkedHashMap<>();
                s.query(new Filter(null, Set.of(a), null, Map.of(), null, null, null), NOW + 10, Reader.operator(), (id, json) -> {
                    served.put(id, json);
                    return true;
                });
                assertEquals(events.size() + 1, served.size());
                for (Event e : events) {
                    assertEquals(e.json(), served.get(e.id()));
                }
                assertEquals(oddJson, served.get(odd.id()));
                // new rows are written split, and read back the same
                Event fresh = ev(a, NOW + 4, 1, "written after V11 \u0001\u001f");
                s.save(List.of(fresh));
                List<String> back = new ArrayList<>();
                s.query(new Filter(Set.of(fresh.id()), null, null, Map.of(), null, null, null), NOW + 10, Reader.operator(), (id, json) -> {
                    back.add(json);
                    return true;
                });
                assertEquals(List.of(fresh.json()), back);
                try (Connection conn = pool.getConnection(); Statement st = conn.createStatement();
                        ResultSet rs = st.executeQuery("select json, sig from event where id = '\\x" + fresh.id().hex() + "'")) {
                    assertTrue(rs.next());
                    assertNull(rs.getString(1));
                    assertEquals(fresh.sig().hex(), org.fleetmesh.nostr.Hex.encode(rs.getBytes(2)));
                }
            }
        }
    }
}
