package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two store instances (two "nodes") on one database: LISTEN/NOTIFY and concurrent writers. */
class SharedDatabaseTest extends PgFixture {
    static PostgresStore other;

    @BeforeAll
    static void openSecond() {
        other = PostgresStore.open(cluster.jdbcUrl(), cluster.user(), cluster.password(), 4);
    }

    @AfterAll
    static void closeSecond() {
        if (other != null) {
            other.close();
        }
    }

    @BeforeEach
    void clean() throws Exception {
        truncate();
    }

    static void await(String what, java.util.function.BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void siblingsLearnOfEachOthersEvents() throws Exception {
        List<String> seenHere = new CopyOnWriteArrayList<>();
        List<String> seenThere = new CopyOnWriteArrayList<>();
        store.onForeignEvents(seenHere::addAll);
        other.onForeignEvents(seenThere::addAll);
        Thread.sleep(300); // LISTEN registered

        PubKey a = Ev.author();
        Event e1 = ev(a, NOW - 2, 1, "from the other node");
        Event e2 = ev(a, NOW - 1, 30023, "addressable", tag("d", "x"));
        assertEquals(List.of(SaveOutcome.STORED, SaveOutcome.STORED), other.save(List.of(e1, e2)));
        await("two events", () -> seenHere.size() >= 2);
        assertEquals(List.of(e1.json(), e2.json()), seenHere);

        // duplicates are not re-announced; own events never come back
        other.save(List.of(e1));
        Event mine = ev(a, NOW, 1, "mine");
        store.save(List.of(mine));
        await("the sibling hears ours", () -> seenThere.contains(mine.json()));
        Thread.sleep(300);
        assertEquals(2, seenHere.size());
        assertTrue(!seenThere.contains(e1.json()));

        // ephemeral events travel as JSON
        Event eph = ev(a, NOW, 20001, "ephemeral");
        other.announceEphemeral(eph);
        await("the ephemeral event", () -> seenHere.contains(eph.json()));
        Event huge = ev(a, NOW, 20001, "x".repeat(9000));
        other.announceEphemeral(huge); // too large for a NOTIFY payload: skipped, no error

        // a large batch is announced in several payloads
        List<Event> many = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            many.add(ev(a, NOW - 1000 + i, 1, "bulk " + i));
        }
        other.save(many);
        await("400 more events", () -> seenHere.size() >= 3 + 400);
        assertEquals(many.stream().map(Event::json).toList(), seenHere.subList(3, 403));

        // the LISTEN connection is re-established when it drops
        sql("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'fleetmesh-listen'");
        Thread.sleep(1500);
        Event after = ev(a, NOW + 1, 1, "after the reconnect");
        other.save(List.of(after));
        await("an event after the reconnect", () -> seenHere.contains(after.json()));
    }

    /**
     * Removals committed through another store object (a sibling node, the CLI's delete, a synced
     * kind 5) reach this store's change listeners as removals, in chunked NOTIFY payloads.
     */
    @Test
    void removalsCommittedByASiblingReachTheChangeFeed() throws Exception {
        List<EventStore.StoredItem> removed = new CopyOnWriteArrayList<>();
        List<Event> added = new CopyOnWriteArrayList<>();
        store.onCommitted((a, r) -> {
            added.addAll(a);
            removed.addAll(r);
        });
        PubKey a = Ev.author();
        // barrier: once one sibling removal arrived, LISTEN is up
        for (int i = 0; removed.isEmpty(); i++) {
            Event probe = ev(a, NOW - 9000 + i, 1, "probe " + i);
            other.save(List.of(probe));
            other.delete(List.of(probe.id()));
            await("a removal", () -> !removed.isEmpty(), 500);
        }
        removed.clear();

        // operator delete of 300 events: more than one 8000-byte payload
        List<Event> many = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            many.add(ev(a, NOW - 5000 + i, 1, "bulk " + i));
        }
        other.save(many);
        assertEquals(300, other.delete(many.stream().map(Event::id).toList()));
        await("300 removals", () -> removed.size() >= 300);
        assertEquals(many.stream().map(e -> new EventStore.StoredItem(e.createdAt(), e.id())).collect(Collectors.toSet()),
                Set.copyOf(removed));
        removed.clear();

        // NIP-09 by id, a replaced profile, an expiry purge
        Event note = ev(a, NOW - 10, 1, "to delete");
        Event profile1 = ev(a, NOW - 10, 0, "{}");
        Event expiring = ev(a, NOW - 10, 1, "expiring", tag("expiration", String.valueOf(NOW - 1)));
        other.save(List.of(note, profile1, expiring));
        other.save(List.of(ev(a, NOW - 5, 5, "", tag("e", note.id().hex()))));
        other.save(List.of(ev(a, NOW - 5, 0, "{\"v\":2}")));
        assertEquals(1, other.purgeExpired(NOW));
        await("three removals", () -> removed.size() >= 3);
        assertEquals(Set.of(item(note), item(profile1), item(expiring)), Set.copyOf(removed));

        // this store's own removals are reported once (locally), not again through NOTIFY
        removed.clear();
        Event own = ev(a, NOW - 3, 1, "own");
        store.save(List.of(own));
        store.delete(List.of(own.id()));
        Event marker = ev(a, NOW - 2, 1, "marker");
        other.save(List.of(marker));
        other.delete(List.of(marker.id()));
        await("the marker's removal", () -> removed.contains(item(marker))); // NOTIFY order: own's would come first
        assertEquals(List.of(item(own), item(marker)), removed);
        assertTrue(added.stream().noneMatch(e -> e.equals(marker)), "sibling additions arrive through onForeignEvents");
    }

    static EventStore.StoredItem item(Event e) {
        return new EventStore.StoredItem(e.createdAt(), e.id());
    }

    static boolean await(String what, java.util.function.BooleanSupplier cond, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    @Test
    void concurrentWritersOnTwoNodes() throws Exception {
        Random r = new Random(7);
        PubKey[] authors = { Ev.author(), Ev.author(), Ev.author() };
        List<Event> regular = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            regular.add(ev(authors[i % 3], NOW - 5000 + i, 1, "r" + i));
        }
        List<Event> versions = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            PubKey a = authors[i % 3];
            int kind = i % 2 == 0 ? 0 : 30000;
            versions.add(ev(a, NOW - 100 + r.nextInt(20), kind, "v" + i, tag("d", "k")));
        }
        Map<EventId, AtomicInteger> stored = new ConcurrentHashMap<>();
        Set<Event> offered = ConcurrentHashMap.newKeySet();
        List<SaveOutcome> all = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            PostgresStore s = t % 2 == 0 ? store : other;
            long seed = t;
            fs.add(pool.submit(() -> {
                Random rr = new Random(seed);
                for (int b = 0; b < 15; b++) {
                    List<Event> batch = new ArrayList<>();
                    List<Event> rs = new ArrayList<>(regular);
                    Collections.shuffle(rs, rr);
                    batch.addAll(rs.subList(0, 60));
                    for (int v = 0; v < 8; v++) {
                        batch.add(versions.get(rr.nextInt(versions.size())));
                    }
                    Collections.shuffle(batch, rr);
                    offered.addAll(batch);
                    List<SaveOutcome> out = s.save(batch);
                    for (int i = 0; i < out.size(); i++) {
                        all.add(out.get(i));
                        if (out.get(i) == SaveOutcome.STORED && batch.get(i).kind() == 1) {
                            stored.computeIfAbsent(batch.get(i).id(), k -> new AtomicInteger()).incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertTrue(all.stream().noneMatch(o -> o == SaveOutcome.FAILED || o == SaveOutcome.DELETED), all.toString());
        // sorted advisory locks and id-ordered inserts: writers never deadlock or collide
        assertEquals(0, store.retries.get() + other.retries.get(), "retried batches");
        for (Map.Entry<EventId, AtomicInteger> e : stored.entrySet()) {
            assertEquals(1, e.getValue().get(), "stored exactly once: " + e.getKey());
        }
        // one head per address: the newest offered version, lowest id on ties
        Map<String, Event> best = new HashMap<>();
        for (Event v : offered) {
            if (v.kind() == 1) {
                continue;
            }
            String key = v.pubkey().hex() + ":" + v.kind();
            Event cur = best.get(key);
            if (cur == null || v.createdAt() > cur.createdAt()
                    || (v.createdAt() == cur.createdAt() && v.id().compareTo(cur.id()) < 0)) {
                best.put(key, v);
            }
        }
        Set<EventId> present = new HashSet<>(ids(store,
                new Filter(null, Set.of(authors), Set.of(0, 30000), Map.of(), null, null, null), NOW));
        assertEquals(6, best.size());
        assertEquals(best.values().stream().map(Event::id).collect(java.util.stream.Collectors.toSet()), present);
        assertEquals(300, store.count(new Filter(null, Set.of(authors), Set.of(1), Map.of(), null, null, null), NOW));
    }
}
