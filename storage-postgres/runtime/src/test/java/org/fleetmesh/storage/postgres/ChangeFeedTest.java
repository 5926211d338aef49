package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.EventStore.StoredItem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The change feed that live Negentropy indexes follow: after every kind of write, a set kept only
 * from the reported additions and removals equals what the store enumerates.
 */
class ChangeFeedTest extends PgFixture {
    private PostgresStore own;
    private final Set<String> mirror = new HashSet<>();
    private int removedReports;

    @BeforeEach
    void open() throws Exception {
        truncate();
        own = PostgresStore.open(cluster.jdbcUrl(), cluster.user(), cluster.password(), 2);
        assertTrue(own.onCommitted((added, removed) -> {
            synchronized (mirror) {
                for (StoredItem r : removed) {
                    assertTrue(mirror.remove(key(r.createdAt(), r.id().hex())), "removed an item it had added: " + r);
                    removedReports++;
                }
                for (Event a : added) {
                    assertTrue(mirror.add(key(a.createdAt(), a.id().hex())), "added twice: " + a.id());
                }
            }
        }));
    }

    @AfterEach
    void close() {
        own.close();
    }

    private static String key(long createdAt, String id) {
        return createdAt + ":" + id;
    }

    private Set<String> stored(long now) {
        Set<String> s = new HashSet<>();
        own.enumerate(new Filter(null, null, null, Map.of(), null, null, null), now, (c, id) -> s.add(key(c, id.hex())));
        return s;
    }

    private void assertMirrors(long now, String step) {
        synchronized (mirror) {
            assertEquals(stored(now), mirror, step);
        }
    }

    @Test
    void everyWritePathIsReported() {
        PubKey a = Ev.author();
        PubKey b = Ev.author();
        Event n1 = ev(a, NOW - 100, 1, "one", tag("t", "x"));
        Event n2 = ev(b, NOW - 90, 1, "two");
        own.save(List.of(n1, n2, n1));
        assertMirrors(NOW, "inserts, a duplicate in the batch");
        own.save(List.of(n1));
        assertMirrors(NOW, "a duplicate of a stored event");

        Event p1 = ev(a, NOW - 80, 0, "{\"v\":1}");
        Event p2 = ev(a, NOW - 70, 0, "{\"v\":2}");
        Event p0 = ev(a, NOW - 200, 0, "{\"v\":0}");
        own.save(List.of(p1));
        own.save(List.of(p2, p0));
        assertMirrors(NOW, "replaceable: the replaced head is reported removed, the superseded one never added");
        Event art1 = ev(a, NOW - 60, 30023, "a1", tag("d", "art"));
        Event art2 = ev(a, NOW - 50, 30023, "a2", tag("d", "art"));
        own.save(List.of(art1, art2)); // both in one batch: only the winner is stored
        assertMirrors(NOW, "addressable within one batch");

        Event delE = ev(a, NOW - 40, 5, "", tag("e", n1.id().hex()), tag("e", n2.id().hex()));
        own.save(List.of(delE));
        assertMirrors(NOW, "NIP-09 by e tag: own event removed, another author's kept, the deletion added");
        Event delA = ev(a, NOW - 30, 5, "", tag("a", "30023:" + a.hex() + ":art"));
        own.save(List.of(delA));
        assertMirrors(NOW, "NIP-09 by a tag");

        Event expiring = ev(b, NOW - 20, 1, "short-lived", tag("expiration", String.valueOf(NOW + 10)));
        own.save(List.of(expiring));
        assertMirrors(NOW, "expiring event stored");
        assertEquals(1, own.purgeExpired(NOW + 11));
        assertMirrors(NOW + 11, "purged after expiry");

        assertEquals(1, own.delete(List.of(n2.id())));
        assertMirrors(NOW, "operator delete");
        assertEquals(5, removedReports, "removed: p1 (replaced), n1 and art2 (NIP-09), expiring (purged), n2 (operator)");
    }

    @Test
    void writesThroughAnotherStoreObjectAreNotReported() {
        store.save(List.of(ev(Ev.author(), NOW - 5, 1, "via the shared fixture store")));
        synchronized (mirror) {
            assertEquals(Set.of(), mirror);
        }
        assertEquals(1, stored(NOW).size());
    }
}
