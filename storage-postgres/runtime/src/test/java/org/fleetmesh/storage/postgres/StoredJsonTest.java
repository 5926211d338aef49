package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stored event's JSON built by the reader from its row's columns ({@link StoredJson}) is byte for byte
 * {@code Event.json()} and the text the SQL rule of docs/spec/storage.md ("Compact rows", {@link #SQL_JSON}) builds,
 * through every statement shape a REQ reads with; a legacy row's stored JSON is served as it is.
 */
class StoredJsonTest extends PgFixture {
    /** The spec's rule in SQL, as the V11 migration checks rows with it. */
    static final String SQL_JSON = "coalesce(e.json, '{\"id\":\"' || encode(e.id, 'hex') || '\",\"pubkey\":\"'"
            + " || encode(e.pubkey, 'hex') || '\",\"created_at\":' || e.created_at || ',\"kind\":' || e.kind"
            + " || ',\"tags\":' || e.body || ',\"sig\":\"' || encode(e.sig, 'hex') || '\"}')";

    static List<Event> tricky(PubKey a) {
        return List.of(
                ev(a, 0, 0, ""),
                ev(a, NOW - 1, 1, "plain", tag("t", "x")),
                ev(a, NOW - 2, 65535, "quotes \" and \\ backslash / slash", tag("t", "x"), tag("p", "ab")),
                ev(a, NOW - 3, 1, "line\nbreak\ttab\r\u0001\u001f\u007f", tag("t", "y", "extra", "")),
                ev(a, NOW - 4, 30023, "é ü ß 日本語 🌍 \ud83d\ude00", tag("d", "art\u00e9"), tag("t", "x")),
                ev(a, 4_102_444_800L, 7, "+", tag("e", "0".repeat(64)), tag("t", "y")),
                ev(a, NOW - 5, 1, "x".repeat(70_000), tag("t", "x")));
    }

    @BeforeEach
    void clean() throws Exception {
        truncate();
    }

    @Test
    void theColumnsMakeEventJson() {
        for (Event e : tricky(Ev.author())) {
            byte[] built = StoredJson.utf8(e.id().toBytes(), e.pubkey().toBytes(), e.createdAt(), e.kind(),
                    EventWriter.body(e).getBytes(StandardCharsets.UTF_8), e.sig().unsafeBytes());
            assertEquals(e.json(), new String(built, StandardCharsets.UTF_8));
            assertArrayEquals(e.json().getBytes(StandardCharsets.UTF_8), built);
        }
    }

    @Test
    void aRowNotOfItsLengthsIsRefused() {
        Event e = tricky(Ev.author()).get(1);
        byte[] body = EventWriter.body(e).getBytes(StandardCharsets.UTF_8);
        assertThrows(IllegalArgumentException.class, () -> StoredJson.utf8(new byte[31], e.pubkey().toBytes(), 1, 1,
                body, e.sig().unsafeBytes()));
        assertThrows(IllegalArgumentException.class, () -> StoredJson.utf8(e.id().toBytes(), new byte[33], 1, 1, body,
                e.sig().unsafeBytes()));
        assertThrows(IllegalArgumentException.class, () -> StoredJson.utf8(e.id().toBytes(), e.pubkey().toBytes(), 1,
                1, body, new byte[63]));
    }

    /** What the store serves for the filter, id → bytes, read as a relay reads them (acceptUtf8). */
    static Map<EventId, byte[]> served(Filter f) {
        return served(f, 0, 0);
    }

    /**
     * What a query hands a sink that asks for {@code head} bytes of room before each event's JSON and {@code tail}
     * after it (a relay's frame, {@code EventSink.headroom}): the JSON alone, checked to sit in such an array.
     */
    static Map<EventId, byte[]> served(Filter f, int head, int tail) {
        Map<EventId, byte[]> out = new HashMap<>();
        store.query(f, NOW, new org.fleetmesh.spi.storage.EventStore.EventSink() {
            @Override
            public boolean accept(EventId id, String json) {
                throw new AssertionError("the reader hands over bytes");
            }

            @Override
            public boolean acceptUtf8(EventId id, byte[] json) {
                if (head != 0 || tail != 0) {
                    throw new AssertionError("a sink that asked for room is handed the array with it");
                }
                out.put(id, json);
                return true;
            }

            @Override
            public int headroom() {
                return head;
            }

            @Override
            public int tailroom() {
                return tail;
            }

            @Override
            public boolean acceptUtf8(EventId id, byte[] buf, int offset, int length) {
                if (head == 0 && tail == 0) {
                    return org.fleetmesh.spi.storage.EventStore.EventSink.super.acceptUtf8(id, buf, offset, length);
                }
                assertEquals(head, offset, "the JSON starts after the room asked for");
                assertEquals(head + length + tail, buf.length, "and the room after it is there too");
                for (int i = 0; i < head; i++) {
                    assertEquals(0, buf[i], "the room is free");
                }
                for (int i = head + length; i < buf.length; i++) {
                    assertEquals(0, buf[i], "the room is free");
                }
                out.put(id, java.util.Arrays.copyOfRange(buf, offset, offset + length));
                return true;
            }
        });
        return out;
    }

    @Test
    void theJsonIsBuiltInsideTheRoomAskedFor() {
        for (Event e : tricky(Ev.author())) {
            byte[] body = EventWriter.body(e).getBytes(StandardCharsets.UTF_8);
            byte[] alone = StoredJson.utf8(e.id().toBytes(), e.pubkey().toBytes(), e.createdAt(), e.kind(), body,
                    e.sig().unsafeBytes());
            byte[] framed = StoredJson.utf8(12, 3, e.id().toBytes(), e.pubkey().toBytes(), e.createdAt(), e.kind(),
                    body, e.sig().unsafeBytes());
            assertEquals(12 + alone.length + 3, framed.length);
            assertArrayEquals(alone, java.util.Arrays.copyOfRange(framed, 12, 12 + alone.length));
        }
    }

    @Test
    void numbersAreWrittenAsLongToStringWritesThem() {
        byte[] id = new byte[32];
        byte[] sig = new byte[64];
        byte[] body = "[],\"content\":\"\"".getBytes(StandardCharsets.UTF_8);
        long[] times = { 0, 1, 9, 10, 99, 100, 999_999_999, 1_000_000_000, 1_700_000_000, 4_102_444_800L,
            Long.MAX_VALUE, -1, -10, Long.MIN_VALUE + 1, Long.MIN_VALUE };
        int[] kinds = { 0, 1, 7, 9, 10, 999, 1000, 30023, 65535, Integer.MAX_VALUE, -1, Integer.MIN_VALUE };
        for (long t : times) {
            for (int k : kinds) {
                String json = new String(StoredJson.utf8(id, id, t, k, body, sig), StandardCharsets.UTF_8);
                String want = "\"created_at\":" + t + ",\"kind\":" + k + ",\"tags\":";
                assertEquals(true, json.contains(want), json + " has " + want);
                assertEquals(Long.toString(t).length(), StoredJson.digits(t), "digits of " + t);
            }
        }
    }

    @Test
    void everyReadShapeServesEventJsonAsSqlBuildsIt() throws Exception {
        PubKey a = Ev.author();
        List<Event> events = tricky(a);
        store.save(events);
        Map<EventId, String> sql = new HashMap<>();
        try (Connection c = store.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("select e.id, " + SQL_JSON + " from event e");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                sql.put(new EventId(rs.getBytes(1)), rs.getString(2));
            }
        }
        List<Filter> shapes = List.of(
                new Filter(null, Set.of(a), null, Map.of(), null, null, 100), // plain, by author
                new Filter(null, null, null, Map.of(), null, null, 100), // the newest, planned once
                new Filter(null, null, Set.of(1), Map.of(), null, null, 100), // one kind, planned once
                new Filter(events.stream().map(Event::id).collect(java.util.stream.Collectors.toSet()), null, null,
                        Map.of(), null, null, null), // ids
                new Filter(null, null, null, Map.of("t", Set.of("x")), null, null, 100), // one tag value
                new Filter(null, null, null, Map.of("t", Set.of("x", "y")), null, null, 100), // several: lateral
                new Filter(null, null, null, Map.of("t", Set.of("x", "y")), null, null, null)); // no limit: streamed
        for (Filter f : shapes) {
            Map<EventId, byte[]> got = served(f);
            assertEquals(false, got.isEmpty(), "the shape reads something: " + f);
            Map<EventId, byte[]> framed = served(f, 19, 1); // as a relay reads: the JSON inside its frame
            assertEquals(got.keySet(), framed.keySet(), "the same events in a frame: " + f);
            for (var g : got.entrySet()) {
                assertArrayEquals(g.getValue(), framed.get(g.getKey()), "the same JSON in a frame: " + f);
            }
            for (Event e : events) {
                byte[] b = got.get(e.id());
                if (b != null) {
                    assertEquals(e.json(), new String(b, StandardCharsets.UTF_8), "as Event.json(): " + f);
                    assertEquals(sql.get(e.id()), new String(b, StandardCharsets.UTF_8), "as SQL builds it: " + f);
                }
            }
        }
        // every event through some shape
        Map<EventId, byte[]> all = served(shapes.get(3));
        assertEquals(events.size(), all.size());
    }

    @Test
    void aLegacyRowIsServedAsStored() throws Exception {
        PubKey a = Ev.author();
        Event e = ev(a, NOW - 1, 1, "legacy", tag("t", "z"));
        store.save(List.of(e));
        // what V11 leaves of a row whose JSON it could not split: the JSON itself, no body or sig (here one the
        // columns would not rebuild, so what is served can only be this text)
        String stored = e.json().replace("\"content\":\"legacy\"", "\"content\": \"legacy\"");
        sql("update event set json = '" + stored.replace("'", "''") + "', body = null, sig = null where id = '\\x"
                + e.id().hex() + "'");
        for (Filter f : List.of(new Filter(null, Set.of(a), null, Map.of(), null, null, 10),
                new Filter(null, null, null, Map.of("t", Set.of("z")), null, null, 10))) {
            Map<EventId, byte[]> got = served(f);
            assertEquals(List.of(e.id()), new ArrayList<>(got.keySet()));
            assertEquals(stored, new String(got.get(e.id()), StandardCharsets.UTF_8));
            Map<EventId, byte[]> framed = served(f, 19, 1);
            assertEquals(stored, new String(framed.get(e.id()), StandardCharsets.UTF_8), "in a frame too");
        }
    }
}
