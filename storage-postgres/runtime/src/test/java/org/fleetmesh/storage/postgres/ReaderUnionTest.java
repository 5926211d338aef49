package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.Reader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reader visibility and filter unions computed in SQL, compared with a brute-force model over the
 * same random events (private kinds 4/13/1059 with p tags, random readers, overlapping filters).
 */
class ReaderUnionTest extends PgFixture {
    static final Set<Integer> PRIVATE = Set.of(4, 13, 1059);
    static final int[] KINDS = { 1, 4, 7, 13, 1059, 30023 - 29000 };
    static final Comparator<Event> NEWEST = Comparator.comparingLong(Event::createdAt).reversed()
            .thenComparing(Event::id);
    static final Comparator<Event> ASCENDING = Comparator.comparingLong(Event::createdAt).thenComparing(Event::id);

    static final Random RND = new Random(20261201);
    static final List<PubKey> KEYS = new ArrayList<>();
    static final List<Event> EVENTS = new ArrayList<>();

    @BeforeAll
    static void fill() throws Exception {
        truncate();
        for (int i = 0; i < 6; i++) {
            KEYS.add(Ev.author());
        }
        for (int i = 0; i < 600; i++) {
            PubKey author = pick(KEYS);
            int kind = KINDS[RND.nextInt(KINDS.length)];
            List<List<String>> tags = new ArrayList<>();
            int pTags = RND.nextInt(3);
            for (int j = 0; j < pTags; j++) {
                tags.add(List.of("p", pick(KEYS).hex()));
            }
            if (RND.nextBoolean()) {
                tags.add(List.of("t", "t" + RND.nextInt(3)));
            }
            // few distinct times: many ties, so the id order of ties is exercised
            EVENTS.add(Ev.ev(author, NOW - RND.nextInt(40), kind, tags, "c" + i));
        }
        for (int i = 0; i < EVENTS.size(); i += 100) {
            store.save(EVENTS.subList(i, Math.min(EVENTS.size(), i + 100)));
        }
    }

    static <T> T pick(List<T> l) {
        return l.get(RND.nextInt(l.size()));
    }

    static Reader randomReader() {
        int n = RND.nextInt(4);
        if (n == 3) {
            return Reader.operator();
        }
        Set<PubKey> keys = new HashSet<>();
        for (int i = 0; i < n; i++) {
            keys.add(pick(KEYS));
        }
        return Reader.of(PRIVATE, keys);
    }

    static Filter randomFilter() {
        Set<PubKey> authors = null;
        if (RND.nextInt(3) == 0) {
            authors = new HashSet<>();
            authors.add(pick(KEYS));
            if (RND.nextBoolean()) {
                authors.add(pick(KEYS));
            }
        }
        Set<Integer> kinds = null;
        if (RND.nextInt(2) == 0) {
            kinds = new HashSet<>();
            kinds.add(KINDS[RND.nextInt(KINDS.length)]);
            if (RND.nextBoolean()) {
                kinds.add(KINDS[RND.nextInt(KINDS.length)]);
            }
        }
        Map<String, Set<String>> tags = new HashMap<>();
        int t = RND.nextInt(4);
        if (t == 0) {
            tags.put("p", Set.of(pick(KEYS).hex()));
        } else if (t == 1) {
            tags.put("t", new HashSet<>(List.of("t" + RND.nextInt(3), "t" + RND.nextInt(3))));
        }
        Long since = RND.nextInt(3) == 0 ? NOW - 30 : null;
        Long until = RND.nextInt(3) == 0 ? NOW - 5 : null;
        Integer limit = RND.nextInt(2) == 0 ? 1 + RND.nextInt(30) : null;
        return new Filter(null, authors, kinds, tags, since, until, limit);
    }

    static List<Event> modelQuery(Filter f, Reader r) {
        return EVENTS.stream().filter(e -> f.matches(e) && r.mayRead(e)).sorted(NEWEST)
                .limit(f.limit() == null ? Long.MAX_VALUE : f.limit()).toList();
    }

    @Test
    void queryHidesPrivateKindsFromOtherReadersBeforeTheLimit() {
        for (int round = 0; round < 300; round++) {
            Filter f = randomFilter();
            Reader r = randomReader();
            List<EventId> got = new ArrayList<>();
            store.query(f, NOW, r, (id, json) -> got.add(id));
            assertEquals(modelQuery(f, r).stream().map(Event::id).toList(), got, "round " + round + ": " + f + " " + r);
        }
    }

    @Test
    void countIsTheVisibleUnionEachEventOnce() {
        for (int round = 0; round < 300; round++) {
            List<Filter> filters = new ArrayList<>();
            int n = 1 + RND.nextInt(4);
            for (int i = 0; i < n; i++) {
                filters.add(randomFilter());
            }
            Reader r = randomReader();
            long want = EVENTS.stream().filter(e -> r.mayRead(e) && filters.stream().anyMatch(f -> f.matches(e))).count();
            assertEquals(want, store.count(filters, NOW, r), "round " + round + ": " + filters + " " + r);
        }
    }

    @Test
    void countOfTwoEmptyFiltersIsTheStoreSize() {
        assertEquals(EVENTS.size(), store.count(List.of(Filter.ALL, Filter.ALL), NOW, Reader.operator()));
        long anonymous = EVENTS.stream().filter(e -> !PRIVATE.contains(e.kind())).count();
        assertEquals(anonymous, store.count(List.of(Filter.ALL, Filter.ALL), NOW, Reader.of(PRIVATE, Set.of())),
                "an unauthenticated reader counts no private-kind event");
    }

    @Test
    void enumerateIsTheVisibleUnionAscendingWithEachFiltersLimit() {
        for (int round = 0; round < 300; round++) {
            List<Filter> filters = new ArrayList<>();
            int n = 1 + RND.nextInt(4);
            for (int i = 0; i < n; i++) {
                filters.add(randomFilter());
            }
            Reader r = randomReader();
            TreeSet<Event> want = new TreeSet<>(ASCENDING);
            for (Filter f : filters) {
                want.addAll(modelQuery(f, r));
            }
            List<EventId> got = new ArrayList<>();
            LinkedHashSet<EventId> distinct = new LinkedHashSet<>();
            store.enumerate(filters, NOW, r, (createdAt, id) -> {
                got.add(id);
                distinct.add(id);
            });
            assertEquals(want.stream().map(Event::id).toList(), got, "round " + round + ": " + filters + " " + r);
            assertEquals(got.size(), distinct.size(), "each event once");
        }
    }

    @Test
    void mayReadFollowsAuthorAndPTags() {
        PubKey a = KEYS.get(0);
        PubKey b = KEYS.get(1);
        PubKey c = KEYS.get(2);
        Event dm = Ev.ev(a, NOW, 4, List.of(List.of("p", b.hex())), "x");
        assertEquals(true, Reader.of(PRIVATE, Set.of(a)).mayRead(dm), "author");
        assertEquals(true, Reader.of(PRIVATE, Set.of(c, b)).mayRead(dm), "recipient among several keys");
        assertEquals(false, Reader.of(PRIVATE, Set.of(c)).mayRead(dm), "a third party");
        assertEquals(false, Reader.of(PRIVATE, Set.of()).mayRead(dm), "unauthenticated");
        assertEquals(true, Reader.operator().mayRead(dm), "operator");
        assertEquals(true, Reader.of(PRIVATE, Set.of()).mayRead(Ev.ev(a, NOW, 1, List.of(), "public")));
    }
}
