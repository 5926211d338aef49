package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.author;
import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.agroal.api.AgroalDataSource;

/** event.seq and PostgresStore.scan: the store-and-forward queue of docs/spec/delivery.md. */
class SequenceScanTest extends PgFixture {

    record Row(long seq, EventId id, String json) {
    }

    static List<Row> scan(PostgresStore s, long after, int limit) {
        List<Row> out = new ArrayList<>();
        s.scan(after, limit, (seq, id, json) -> out.add(new Row(seq, id, json)));
        return out;
    }

    static List<EventId> ids(List<Row> rows) {
        return rows.stream().map(Row::id).toList();
    }

    @BeforeEach
    void clean() throws Exception {
        truncate();
    }

    @Test
    void eventsComeInCommitOrderAfterTheCursorWithIncreasingNumbers() {
        PubKey a = author();
        List<Event> first = List.of(ev(a, NOW, 1, "z"), ev(a, NOW - 50, 1, "y"), ev(a, NOW + 9, 1, "x"));
        List<Event> second = List.of(ev(a, NOW - 100, 1, "w"), ev(a, NOW, 7, "v"));
        long before = store.lastSequence();
        store.save(first);
        store.save(second);
        assertTrue(store.sequenced());
        List<Row> all = scan(store, before, 100);
        assertEquals(5, all.size());
        // within a batch the insert order is the writer's (by id), across batches the commit order
        assertEquals(first.stream().map(Event::id).collect(java.util.stream.Collectors.toSet()),
                new java.util.HashSet<>(ids(all.subList(0, 3))));
        assertEquals(second.stream().map(Event::id).collect(java.util.stream.Collectors.toSet()),
                new java.util.HashSet<>(ids(all.subList(3, 5))));
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i).seq() > all.get(i - 1).seq());
        }
        assertEquals(all.get(4).seq(), store.lastSequence());
        assertEquals(first.get(0).json(), all.stream().filter(r -> r.id().equals(first.get(0).id())).findFirst()
                .orElseThrow().json());
        // pages: a limit, then on from the last number seen
        List<Row> page1 = scan(store, before, 2);
        List<Row> page2 = scan(store, page1.get(1).seq(), 2);
        List<Row> page3 = scan(store, page2.get(1).seq(), 2);
        assertEquals(all, concat(page1, page2, page3));
        assertEquals(List.of(), scan(store, store.lastSequence(), 10));
        assertEquals(List.of(), scan(store, before, 0));
    }

    @Test
    void theSinkStopsTheStream() {
        PubKey a = author();
        store.save(List.of(ev(a, NOW, 1, "1"), ev(a, NOW, 1, "2"), ev(a, NOW, 1, "3")));
        List<EventId> seen = new ArrayList<>();
        store.scan(0, 10, (seq, id, json) -> {
            seen.add(id);
            return seen.size() < 2;
        });
        assertEquals(2, seen.size());
    }

    @Test
    void aDuplicateGetsNoNewNumber() {
        Event e = ev(author(), NOW, 1, "once");
        store.save(List.of(e));
        long last = store.lastSequence();
        assertEquals(List.of(SaveOutcome.DUPLICATE), store.save(List.of(e)));
        assertEquals(List.of(), scan(store, last, 10));
    }

    @Test
    void replacedDeletedAndRemovedEventsAreGoneAndANewVersionComesAfter() {
        PubKey a = author();
        Event v1 = ev(a, NOW - 10, 0, "profile 1");
        Event note = ev(a, NOW, 1, "to be deleted");
        Event other = ev(a, NOW, 1, "operator removes this");
        Event expired = ev(a, NOW, 1, "expired", tag("expiration", String.valueOf(NOW - 1)));
        long before = store.lastSequence();
        store.save(List.of(v1, note, other, expired));
        Event v2 = ev(a, NOW, 0, "profile 2");
        Event deletion = ev(a, NOW + 1, 5, "", tag("e", note.id().hex()));
        store.save(List.of(v2));
        store.save(List.of(deletion));
        assertEquals(1, store.delete(List.of(other.id())));
        List<Row> rows = scan(store, before, 100);
        // expired events stay in the sequence (the reader decides); replaced, deleted and removed ones do not
        assertEquals(List.of(expired.id(), v2.id(), deletion.id()), ids(rows));
    }

    @Test
    void numbersBecomeVisibleInIncreasingOrderWhenAnotherProcessWritesConcurrently() throws Exception {
        // A second writer (a sibling node, the CLI's import) whose commit we hold after its insert: it has the
        // lower number. The node's own writer must not commit a higher number before it, or a reader following
        // the sequence would step over the held one for good.
        HeldCommits held = new HeldCommits();
        try (AgroalDataSource pool = PostgresStore.createPool(cluster.jdbcUrl(), cluster.user(), cluster.password(), 2);
                PostgresStore sibling = new PostgresStore(held.wrap(pool))) {
            Event slow = ev(author(), NOW, 1, "held at commit");
            Event fast = ev(author(), NOW, 1, "written meanwhile");
            long cursor = store.lastSequence();
            held.arm();
            CompletableFuture<List<SaveOutcome>> t1 = CompletableFuture.supplyAsync(() -> sibling.save(List.of(slow)));
            assertTrue(held.reached.await(30, TimeUnit.SECONDS), "the sibling reached its commit");
            CompletableFuture<List<SaveOutcome>> t2 = CompletableFuture.supplyAsync(() -> store.save(List.of(fast)));
            // wait until the node's writer has either committed or queued behind the sibling's lock
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!t2.isDone() && waitingForAdvisoryLock() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            List<EventId> seen = new ArrayList<>();
            for (Row r : scan(store, cursor, 100)) {
                seen.add(r.id());
                cursor = r.seq();
            }
            held.release.countDown();
            assertEquals(List.of(SaveOutcome.STORED), t1.get(30, TimeUnit.SECONDS));
            assertEquals(List.of(SaveOutcome.STORED), t2.get(30, TimeUnit.SECONDS));
            for (Row r : scan(store, cursor, 100)) {
                seen.add(r.id());
            }
            assertEquals(List.of(slow.id(), fast.id()), seen);
        }
    }

    @Test
    void theSequenceSurvivesARestartOfTheDatabase(@TempDir Path dir) throws Exception {
        Event a = ev(author(), NOW, 1, "before");
        Event b = ev(author(), NOW, 1, "after");
        long last;
        try (EmbeddedCluster c = EmbeddedCluster.start(dir);
                PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 2)) {
            s.save(List.of(a));
            last = s.lastSequence();
            assertEquals(List.of(a.id()), ids(scan(s, 0, 10)));
        }
        try (EmbeddedCluster c = EmbeddedCluster.start(dir);
                PostgresStore s = PostgresStore.open(c.jdbcUrl(), c.user(), c.password(), 2)) {
            assertEquals(last, s.lastSequence());
            s.save(List.of(b));
            List<Row> rows = scan(s, 0, 10);
            assertEquals(List.of(a.id(), b.id()), ids(rows));
            assertTrue(rows.get(1).seq() > last);
            assertEquals(List.of(b.id()), ids(scan(s, last, 10)));
        }
    }

    @Test
    void theMigrationNumbersTheEventsOfAnExistingDatabase(@TempDir Path dir) throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(dir);
                AgroalDataSource pool = PostgresStore.createPool(c.jdbcUrl(), c.user(), c.password(), 2)) {
            PgFixture.migrateTo(pool, "4");
            PubKey a = author();
            try (Connection conn = pool.getConnection(); Statement st = conn.createStatement()) {
                for (int i = 0; i < 3; i++) {
                    Event e = ev(a, NOW + i, 1, "old " + i);
                    st.execute("insert into event (id, pubkey, created_at, kind, json) values ('\\x" + e.id().hex()
                            + "', '\\x" + a.hex() + "', " + e.createdAt() + ", 1, '" + e.json() + "')");
                }
            }
            try (PostgresStore s = new PostgresStore(pool)) {
                assertEquals(3, scan(s, 0, 10).size());
                assertEquals(3, s.lastSequence());
                Event fresh = ev(a, NOW, 1, "new");
                s.save(List.of(fresh));
                assertEquals(List.of(fresh.id()), ids(scan(s, 3, 10)));
            }
        }
    }

    static long waitingForAdvisoryLock() throws Exception {
        try (Connection c = store.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from pg_locks where locktype = 'advisory' and not granted")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @SafeVarargs
    static <T> List<T> concat(List<T>... lists) {
        List<T> out = new ArrayList<>();
        for (List<T> l : lists) {
            out.addAll(l);
        }
        return out;
    }

    /** Connections whose next commit, once armed, waits until released (after telling that it got there). */
    static final class HeldCommits {
        final AtomicBoolean armed = new AtomicBoolean();
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        void arm() {
            armed.set(true);
        }

        DataSource wrap(DataSource ds) {
            InvocationHandler h = (proxy, m, args) -> {
                Object r = invoke(ds, m, args);
                return m.getName().equals("getConnection") ? connection((Connection) r) : r;
            };
            return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                    new Class<?>[] { DataSource.class }, h);
        }

        Connection connection(Connection c) {
            InvocationHandler h = (proxy, m, args) -> {
                if (m.getName().equals("commit") && armed.compareAndSet(true, false)) {
                    reached.countDown();
                    release.await();
                }
                return invoke(c, m, args);
            };
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] { Connection.class }, h);
        }

        static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
