package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.EventStore.EventSink;
import org.fleetmesh.spi.storage.Reader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reads answered from the tag index and the event cache ({@link IndexRead}) give what the full statement gives, and
 * what NIP-01 says: compared with a model of the events (Filter.matches, NIP-40, the reader's rule, newest first, a
 * tie by the lowest id, the limit) and with the same store with the cache off, cold and warm, across ties that
 * straddle the limit, expiries that pass while an event is cached, deletions and replacements.
 */
class IndexReadTest extends PgFixture {
    private static final List<String> P = List.of("a1".repeat(32), "b2".repeat(32), "c3".repeat(32));

    @BeforeEach
    void clean() throws Exception {
        truncate();
        store.eventCacheMib(PostgresStore.DEFAULT_EVENT_CACHE_MIB);
    }

    @AfterEach
    void restore() {
        store.eventCacheMib(PostgresStore.DEFAULT_EVENT_CACHE_MIB);
    }

    /** What the store sends, as ids and the exact JSON, in order. */
    private static List<String> read(Filter f, long now, Reader who) {
        List<String> out = new ArrayList<>();
        store.query(f, now, who, new EventSink() {
            @Override
            public boolean accept(EventId id, String json) {
                out.add(id.hex() + " " + json);
                return true;
            }
        });
        return out;
    }

    private static List<String> model(List<Event> stored, Filter f, long now, Reader who) {
        return stored.stream().filter(f::matches).filter(e -> e.expiration() == null || e.expiration() > now)
                .filter(who::mayRead)
                .sorted(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id))
                .limit(f.limit() == null ? Long.MAX_VALUE : f.limit()).map(e -> e.id().hex() + " " + e.json())
                .toList();
    }

    private static long indexReads() {
        return store.readCacheStats()[5];
    }

    @Test
    void randomReadsAgreeWithTheModelAndWithTheCacheOff() {
        Random r = new Random(20261205);
        List<PubKey> authors = List.of(Ev.author(), Ev.author(), Ev.author());
        List<Event> stored = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            long at = NOW - 200 + r.nextInt(40) * 5; // 40 distinct times: many ties
            int kind = r.nextInt(10) == 0 ? 4 : (r.nextBoolean() ? 1 : 7);
            List<List<String>> tags = new ArrayList<>();
            tags.add(List.of("p", P.get(r.nextInt(P.size()))));
            if (r.nextBoolean()) {
                tags.add(List.of("t", r.nextBoolean() ? "x" : "y"));
            }
            if (r.nextInt(8) == 0) {
                tags.add(List.of("expiration", Long.toString(NOW - 20 + r.nextInt(60))));
            }
            stored.add(ev(authors.get(r.nextInt(3)), at, kind, tags, "e" + i + " \"q\" \u00e9"));
        }
        // in batches of a few, highest ids first: a batch may be stored in id order, and seq order must not be id order
        List<Event> byIdDescending = stored.stream().sorted(Comparator.comparing(Event::id).reversed()).toList();
        for (int i = 0; i < byIdDescending.size(); i += 3) {
            store.save(byIdDescending.subList(i, Math.min(i + 3, byIdDescending.size())));
        }
        Reader stranger = Reader.of(Set.of(4), Set.of());
        Reader owner = Reader.of(Set.of(4), Set.of(authors.get(0)));
        long before = indexReads();
        int fast = 0;
        int[] shapes = new int[4];
        for (int q = 0; q < 600; q++) {
            // the shapes: one tag value (tag_value_idx); one author, one kind, both, or neither (event's indexes); and
            // some that no one index answers (two authors, two tags)
            int shape = r.nextInt(4);
            Map<String, Set<String>> tags = switch (shape) {
                case 0 -> r.nextInt(4) == 0 ? Map.of("t", Set.of(r.nextBoolean() ? "x" : "y"))
                        : Map.of("p", Set.of(P.get(r.nextInt(P.size()))));
                case 1 -> r.nextInt(8) == 0 ? Map.of("p", Set.of(P.get(0)), "t", Set.of("x")) : Map.of();
                default -> Map.of();
            };
            Set<PubKey> by = shape != 1 ? null
                    : r.nextInt(6) == 0 ? Set.of(authors.get(0), authors.get(1)) : Set.of(authors.get(r.nextInt(3)));
            Set<Integer> kinds = switch (r.nextInt(5)) {
                case 0 -> Set.of(1);
                case 1 -> Set.of(4, 7);
                case 2 -> Set.of(4);
                default -> shape == 2 ? Set.of(7) : null;
            };
            Long since = r.nextInt(3) == 0 ? NOW - 200 + r.nextInt(200) : null;
            Long until = r.nextInt(3) == 0 ? NOW - 100 + r.nextInt(100) : null;
            int limit = 1 + r.nextInt(r.nextBoolean() ? 5 : 120);
            Filter f = new Filter(null, by, kinds, tags, since, until, limit);
            long now = NOW + r.nextInt(40) - 20;
            Reader who = switch (r.nextInt(3)) {
                case 0 -> Reader.operator();
                case 1 -> stranger;
                default -> owner;
            };
            List<String> expected = model(stored, f, now, who);
            long n0 = indexReads();
            assertEquals(expected, read(f, now, who), "cold or warm, " + f + " at " + now);
            assertEquals(expected, read(f, now, who), "warm, " + f + " at " + now);
            if (indexReads() - n0 > 0) {
                fast++;
                shapes[shape]++;
            }
            store.eventCacheMib(0);
            assertEquals(expected, read(f, now, who), "cache off, " + f);
            store.eventCacheMib(PostgresStore.DEFAULT_EVENT_CACHE_MIB);
        }
        // the fast path answered a good share of each shape (the rest: ties across the limit, which this data has on
        // purpose, 40 distinct times for 400 events; expired events not yet purged; the owner's gated kinds; several
        // authors, kinds or tags)
        assertTrue(fast >= 80, "answered from an index: " + fast + " of 600 queries");
        for (int shape = 0; shape < 4; shape++) {
            assertTrue(shapes[shape] >= 10, "shape " + shape + " answered from an index " + shapes[shape] + " times");
        }
        assertTrue(indexReads() - before >= 2L * fast);
    }

    @Test
    void aTieAcrossTheLimitIsCutAtTheLowestIds() {
        PubKey a = Ev.author();
        List<Event> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(ev(a, NOW - 100, 1, "tie " + i, tag("p", P.get(0))));
        }
        all.add(ev(a, NOW - 50, 1, "newest", tag("p", P.get(0))));
        // one at a time, highest id first: the index orders a tie by seq, the opposite of NIP-01's order here
        for (Event e : all.stream().sorted(Comparator.comparing(Event::id).reversed()).toList()) {
            store.save(List.of(e));
        }
        for (int limit = 1; limit <= 12; limit++) {
            Filter f = new Filter(null, null, null, Map.of("p", Set.of(P.get(0))), null, null, limit);
            for (int pass = 0; pass < 2; pass++) {
                assertEquals(model(all, f, NOW, Reader.operator()), read(f, NOW, Reader.operator()), "limit " + limit);
            }
        }
    }

    @Test
    void anEventThatExpiresWhileCachedIsNotSentAndTheNextOneIs() {
        PubKey a = Ev.author();
        Event soon = ev(a, NOW - 10, 1, "expires at NOW + 5", tag("p", P.get(1)), tag("expiration", Long.toString(NOW + 5)));
        Event older = ev(a, NOW - 20, 1, "older", tag("p", P.get(1)));
        Event oldest = ev(a, NOW - 30, 1, "oldest", tag("p", P.get(1)));
        store.save(List.of(soon, older, oldest));
        Filter f = new Filter(null, null, null, Map.of("p", Set.of(P.get(1))), null, null, 2);
        long n0 = indexReads();
        assertEquals(List.of(soon.id(), older.id()), ids(store, f, NOW));
        assertEquals(List.of(soon.id(), older.id()), ids(store, f, NOW), "from the cache");
        assertEquals(n0 + 2, indexReads(), "both from the tag index");
        assertEquals(List.of(older.id(), oldest.id()), ids(store, f, NOW + 5), "expired: skipped, the next one sent");
        assertEquals(List.of(older.id(), oldest.id()), ids(store, f, NOW + 6));
    }

    @Test
    void deletedAndReplacedEventsAreGoneThoughCached() {
        PubKey a = Ev.author();
        Event note = ev(a, NOW - 30, 1, "to delete", tag("p", P.get(2)));
        Event keep = ev(a, NOW - 40, 1, "kept", tag("p", P.get(2)));
        Event v1 = ev(a, NOW - 20, 10002, "", tag("p", P.get(2)));
        store.save(List.of(note, keep, v1));
        Filter f = new Filter(null, null, null, Map.of("p", Set.of(P.get(2))), null, null, 10);
        assertEquals(List.of(v1.id(), note.id(), keep.id()), ids(store, f, NOW));
        assertEquals(List.of(v1.id(), note.id(), keep.id()), ids(store, f, NOW));
        long cached = store.readCacheStats()[2];
        assertTrue(cached >= 3, "cached: " + cached);
        Event v2 = ev(a, NOW - 5, 10002, "", tag("p", P.get(1)));
        store.save(List.of(ev(a, NOW - 1, 5, "", tag("e", note.id().hex())), v2));
        long n0 = indexReads();
        assertEquals(List.of(keep.id()), ids(store, f, NOW), "the deleted note and the replaced list are not sent");
        assertEquals(n0 + 1, indexReads());
        store.delete(List.of(keep.id()));
        assertEquals(List.of(), ids(store, f, NOW));
    }

    @Test
    void aStrangerDoesNotSeeGatedKindsAndTheirAuthorDoes() {
        PubKey a = Ev.author();
        Event dm = ev(a, NOW - 10, 4, "dm", tag("p", P.get(0)));
        Event note = ev(a, NOW - 20, 1, "note", tag("p", P.get(0)));
        store.save(List.of(dm, note));
        Filter f = new Filter(null, null, null, Map.of("p", Set.of(P.get(0))), null, null, 10);
        Reader stranger = Reader.of(Set.of(4), Set.of());
        for (int pass = 0; pass < 2; pass++) {
            assertEquals(List.of(dm.id(), note.id()), ids(store, f, NOW), "the operator sees everything");
            List<EventId> got = new ArrayList<>();
            store.query(f, NOW, stranger, (id, json) -> got.add(id));
            assertEquals(List.of(note.id()), got);
            got.clear();
            store.query(f, NOW, Reader.of(Set.of(4), Set.of(a)), (id, json) -> got.add(id));
            assertEquals(List.of(dm.id(), note.id()), got, "the author sees their own");
        }
    }

    @Test
    void aSeqUsedAgainUnderTheCacheIsReadFromTheRow() throws Exception {
        PubKey a = Ev.author();
        String restart = "truncate event, tag, deleted_event, deleted_address restart identity";
        sql(restart);
        Event first = ev(a, NOW - 10, 1, "first", tag("p", P.get(0)));
        store.save(List.of(first));
        Filter f = new Filter(null, null, null, Map.of("p", Set.of(P.get(0))), null, null, 5);
        assertEquals(List.of(first.id()), ids(store, f, NOW));
        // emptied under the running store, its sequence restarted: the next event gets the same seq
        sql(restart);
        Event second = ev(a, NOW - 20, 1, "second", tag("p", P.get(0)));
        store.save(List.of(second));
        assertEquals(List.of(second.id()), ids(store, f, NOW));
        assertEquals(List.of(second.id()), ids(store, f, NOW));
    }

    @Test
    void theLargestLimitAndTooManyBytesToHold() {
        PubKey a = Ev.author();
        List<Event> many = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            many.add(ev(a, NOW - 1000 + i, 1, "n" + i, tag("p", P.get(1))));
        }
        store.save(many);
        long n0 = indexReads();
        Filter f = new Filter(null, null, null, Map.of("p", Set.of(P.get(1))), null, null, 255);
        List<String> expected = model(many, f, NOW, Reader.operator());
        assertEquals(expected, read(f, NOW, Reader.operator()), "255 misses, fetched");
        assertEquals(expected, read(f, NOW, Reader.operator()), "255 hits");
        assertEquals(n0 + 2, indexReads());
        Filter more = f.withLimit(256);
        assertEquals(model(many, more, NOW, Reader.operator()), read(more, NOW, Reader.operator()));
        assertEquals(n0 + 2, indexReads(), "256: the ordinary statement");
        // 60 events of 150,000 characters: 9 MB, more than a read holds before it sends
        PubKey b = Ev.author();
        List<Event> big = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            big.add(ev(b, NOW - 100 + i, 1, "x".repeat(150_000) + i));
        }
        store.save(big);
        Filter all = new Filter(null, Set.of(b), null, Map.of(), null, null, 100);
        List<String> bigExpected = model(big, all, NOW, Reader.operator());
        long n1 = indexReads();
        assertEquals(bigExpected, read(all, NOW, Reader.operator()));
        assertEquals(bigExpected, read(all, NOW, Reader.operator()));
        assertEquals(n1, indexReads(), "the ordinary statement answered both");
        Filter few = new Filter(null, Set.of(b), null, Map.of(), null, null, 10);
        assertEquals(model(big, few, NOW, Reader.operator()), read(few, NOW, Reader.operator()));
        assertEquals(n1 + 1, indexReads(), "1.5 MB: the index answers");
    }

    @Test
    void theSinkCanStopTheStream() {
        PubKey a = Ev.author();
        List<Event> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            all.add(ev(a, NOW - i, 1, "n" + i, tag("p", P.get(0))));
        }
        store.save(all);
        Filter f = new Filter(null, null, null, Map.of("p", Set.of(P.get(0))), null, null, 6);
        for (int pass = 0; pass < 2; pass++) {
            List<EventId> got = new ArrayList<>();
            store.query(f, NOW, (id, json) -> got.add(id) && got.size() < 2);
            assertEquals(List.of(all.get(0).id(), all.get(1).id()), got);
        }
    }

    /**
     * A tag whose values name few events each (as an {@code e} tag's replies do) is read by one statement, the scan with
     * its events joined, once its reads have shown it; its answers are the model's (ties across the limit, expired and
     * deleted events included) and the cache's, and a tag whose values name many events keeps the scan and the fetch.
     */
    @Test
    void aTagOfFewEventsPerValueIsReadInOneStatementWithTheSameAnswers() {
        Random r = new Random(7);
        PubKey a = Ev.author();
        List<Event> stored = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int v = 0; v < 40; v++) {
            String value = String.format("%064x", 0xe0000L + v);
            values.add(value);
            int events = 1 + r.nextInt(3);
            for (int i = 0; i < events; i++) {
                long at = NOW - 100 + r.nextInt(5); // ties
                List<List<String>> tags = new ArrayList<>();
                tags.add(List.of("e", value));
                tags.add(List.of("m", "many"));
                if (r.nextInt(6) == 0) {
                    tags.add(List.of("expiration", Long.toString(NOW - 2 + r.nextInt(4))));
                }
                stored.add(ev(a, at, r.nextBoolean() ? 1 : 7, tags, "reply " + v + " " + i));
            }
        }
        store.save(stored);
        EventReader reader = store.reader();
        long joined0 = reader.joinedReads.sum();
        for (int q = 0; q < 300; q++) {
            String value = values.get(r.nextInt(values.size()));
            Set<Integer> kinds = r.nextInt(4) == 0 ? Set.of(7) : null;
            Filter f = new Filter(null, null, kinds, Map.of("e", Set.of(value)), null, null, 1 + r.nextInt(3));
            long now = NOW + r.nextInt(4) - 2;
            assertEquals(model(stored, f, now, Reader.operator()), read(f, now, Reader.operator()), f + " at " + now);
        }
        assertTrue(reader.tagRows('e') <= EventReader.FEW_ROWS, "e reads return few rows: " + reader.tagRows('e'));
        long joined = reader.joinedReads.sum() - joined0;
        assertTrue(joined >= 250, "answered by the joined statement: " + joined + " of 300");
        // a deleted event is not sent by the joined statement either
        Event gone = stored.stream().filter(e -> e.tags().get(0).get(1).equals(values.get(0))).findFirst().orElseThrow();
        store.save(List.of(ev(a, NOW - 1, 5, "", tag("e", gone.id().hex()))));
        stored.remove(gone);
        Filter first = new Filter(null, null, null, Map.of("e", Set.of(values.get(0))), null, null, 5);
        assertEquals(model(stored, first, NOW, Reader.operator()), read(first, NOW, Reader.operator()));
        // "m": one value on every event, read with limit 100, keeps the scan and the fetch
        long joinedBefore = reader.joinedReads.sum();
        Filter many = new Filter(null, null, null, Map.of("m", Set.of("many")), null, null, 100);
        for (int q = 0; q < 3; q++) {
            assertEquals(model(stored, many, NOW, Reader.operator()), read(many, NOW, Reader.operator()));
        }
        assertTrue(reader.tagRows('m') > EventReader.FEW_ROWS, "m: " + reader.tagRows('m'));
        assertEquals(joinedBefore, reader.joinedReads.sum(), "m reads took the scan and the fetch");
    }
}
