package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

/** The subscription index finds exactly the subscriptions a scan of all of them would, for random filters and events. */
class SubscriptionIndexTest {
    static final long NOW = 1_700_000_000L;
    final Random random = new Random(20261201L);
    final List<byte[]> keys = new ArrayList<>();
    final List<PubKey> authors = new ArrayList<>();
    final List<String> values = List.of("a", "b", "c", "d", "e");
    final ClientState owner = new ClientState(new RelayTest.Client("c"));

    SubscriptionIndexTest() {
        for (int i = 0; i < 4; i++) {
            byte[] k = Schnorr.newSecretKey();
            keys.add(k);
            authors.add(new PubKey(Schnorr.publicKey(k)));
        }
    }

    Event randomEvent() {
        int kind = random.nextInt(5);
        List<List<String>> tags = new ArrayList<>();
        for (int i = random.nextInt(3); i > 0; i--) {
            tags.add(List.of(random.nextBoolean() ? "t" : "p", values.get(random.nextInt(values.size()))));
        }
        if (random.nextInt(5) == 0) {
            tags.add(List.of("long-name", "a"));
        }
        return Events.sign(keys.get(random.nextInt(keys.size())), NOW - random.nextInt(10), kind, tags, "e" + random.nextInt());
    }

    <T> Set<T> some(List<T> pool, boolean allowEmpty) {
        Set<T> out = new HashSet<>();
        int n = random.nextInt(pool.size()) + (allowEmpty ? 0 : 1);
        for (int i = 0; i < n; i++) {
            out.add(pool.get(random.nextInt(pool.size())));
        }
        return out;
    }

    Filter randomFilter(List<EventId> knownIds) {
        Set<EventId> ids = random.nextInt(6) == 0 ? some(knownIds, random.nextInt(10) == 0) : null;
        Set<PubKey> as = random.nextInt(3) == 0 ? some(authors, random.nextInt(10) == 0) : null;
        Set<Integer> kinds = random.nextInt(2) == 0 ? some(List.of(0, 1, 2, 3, 4), random.nextInt(10) == 0) : null;
        Map<String, Set<String>> tags = new HashMap<>();
        if (random.nextInt(3) == 0) {
            tags.put("t", some(values, random.nextInt(10) == 0));
        }
        if (random.nextInt(4) == 0) {
            tags.put("p", some(values, false));
        }
        Long since = random.nextInt(4) == 0 ? NOW - random.nextInt(10) : null;
        Long until = random.nextInt(4) == 0 ? NOW - random.nextInt(10) : null;
        return new Filter(ids, as, kinds, tags, since, until, random.nextInt(3) == 0 ? 0 : null);
    }

    @Test
    void matchesWhatABruteForceScanMatches() {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            events.add(randomEvent());
        }
        List<EventId> ids = events.stream().map(Event::id).toList();
        SubscriptionIndex index = new SubscriptionIndex();
        List<Subscription> subs = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            List<Filter> filters = new ArrayList<>();
            for (int f = random.nextInt(3) + 1; f > 0; f--) {
                filters.add(randomFilter(ids));
            }
            Subscription s = new Subscription("s" + i, filters, owner, 10);
            subs.add(s);
            index.add(s);
        }
        // remove some again, and add one twice: the index holds each once
        for (int i = 0; i < 100; i++) {
            index.remove(subs.remove(random.nextInt(subs.size())));
        }
        index.add(subs.get(0));
        assertEquals(subs.size(), index.size());
        int matched = 0;
        for (Event e : events) {
            Set<Subscription> expected = new HashSet<>();
            for (Subscription s : subs) {
                if (s.matches(e)) {
                    expected.add(s);
                }
            }
            List<Subscription> got = index.matching(e);
            assertEquals(expected.size(), got.size(), "each matching subscription once for " + e.json());
            assertEquals(expected, new HashSet<>(got), e.json());
            matched += got.size();
        }
        assertTrue(matched > 300, "the random mix matches something: " + matched);
    }

    @Test
    void aNarrowSubscriptionIsNotEvenACandidateForOtherEvents() {
        SubscriptionIndex index = new SubscriptionIndex();
        Subscription byAuthor = new Subscription("a", List.of(new Filter(null, Set.of(authors.get(0)), null, Map.of(), null, null, null)),
                owner, 10);
        index.add(byAuthor);
        Event other = Events.sign(keys.get(1), NOW, 1, List.of(), "x");
        assertEquals(List.of(), index.matching(other));
        Event mine = Events.sign(keys.get(0), NOW, 1, List.of(), "y");
        assertEquals(List.of(byAuthor), index.matching(mine));
        index.remove(byAuthor);
        assertEquals(List.of(), index.matching(mine));
        assertEquals(0, index.size());
    }
}
