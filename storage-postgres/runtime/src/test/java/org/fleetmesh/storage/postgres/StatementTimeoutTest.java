package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.QueryTimeoutException;
import org.fleetmesh.spi.storage.Reader;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.Test;

/**
 * Reads run under a statement timeout, so a slow one gives its pool connection back; the writer's
 * transactions do not. The slow read is made by holding a lock the read must wait for.
 */
class StatementTimeoutTest extends PgFixture {

    @Test
    void aSlowReadIsCancelledWithAClearExceptionAndTheConnectionIsReusable() throws Exception {
        truncate();
        Event e = Ev.ev(Ev.author(), NOW - 1, 1, "x");
        store.save(List.of(e));
        try (PostgresStore timed = new PostgresStore(store.dataSource(), store.dataSource()::getConnection,
                Duration.ofMillis(300)); Connection locker = store.dataSource().getConnection()) {
            // its statistics refresh holds a pooled connection while it runs: done before the pool is counted below
            timed.statisticsRefresh().join(60_000);
            lockEvents(locker);
            QueryTimeoutException q = assertThrows(QueryTimeoutException.class,
                    () -> timed.query(Filter.ALL, NOW, Reader.operator(), (id, json) -> true));
            assertEquals(Duration.ofMillis(300), q.timeout());
            assertTrue(q.getMessage().contains("300 ms"), q.getMessage());
            assertThrows(QueryTimeoutException.class, () -> timed.count(List.of(Filter.ALL, Filter.ALL), NOW, Reader.operator()));
            assertThrows(QueryTimeoutException.class, () -> timed.enumerate(List.of(Filter.ALL), NOW, Reader.operator(), (c, id) -> {
            }));
            locker.rollback();
            // the pool's connections carry no timeout afterwards (SET LOCAL ended with the read)
            assertEquals(1, timed.count(Filter.ALL, NOW));
            try (Connection c = store.dataSource().getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("show statement_timeout")) {
                rs.next();
                assertEquals("0", rs.getString(1));
            }
        }
    }

    @Test
    void aSmallReadInOneRoundTripIsCancelledToo() throws Exception {
        truncate();
        Event e = Ev.ev(Ev.author(), NOW - 1, 1, "x");
        store.save(List.of(e));
        Filter limited = Filter.ALL.withLimit(10);
        try (PostgresStore timed = new PostgresStore(store.dataSource(), store.dataSource()::getConnection,
                Duration.ofMillis(300)); Connection locker = store.dataSource().getConnection()) {
            // its statistics refresh holds a pooled connection while it runs: done before the pool is counted below
            timed.statisticsRefresh().join(60_000);
            List<String> before = new java.util.ArrayList<>();
            timed.query(limited, NOW, Reader.operator(), (id, json) -> before.add(json));
            assertEquals(List.of(e.json()), before, "the set_config's row is not taken for the read's");
            lockEvents(locker);
            // bounded, so a read that carried no timeout fails the test instead of waiting for the lock forever
            QueryTimeoutException q = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(
                    QueryTimeoutException.class, () -> timed.query(limited, NOW, Reader.operator(), (id, json) -> true)));
            assertEquals(Duration.ofMillis(300), q.timeout());
            assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> assertThrows(QueryTimeoutException.class, () -> timed.count(Filter.ALL, NOW)));
            // a lookup by ids (one round trip, the timeout in the same statement text)
            Filter byId = new Filter(java.util.Set.of(e.id()), null, null, java.util.Map.of(), null, null, null);
            QueryTimeoutException ids = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(
                    QueryTimeoutException.class, () -> timed.query(byId, NOW, Reader.operator(), (id, json) -> true)));
            assertEquals(Duration.ofMillis(300), ids.timeout());
            locker.rollback();
            List<String> found = new java.util.ArrayList<>();
            timed.query(byId, NOW, Reader.operator(), (id, json) -> found.add(json));
            assertEquals(List.of(e.json()), found);
        }
        // no pooled connection kept the timeout
        onEveryPooledConnection(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("show statement_timeout")) {
                rs.next();
                assertEquals("0", rs.getString(1));
            }
        });
    }

    @Test
    void theWriterWaitsLongerThanTheReadTimeout() throws Exception {
        truncate();
        try (PostgresStore timed = new PostgresStore(store.dataSource(), store.dataSource()::getConnection,
                Duration.ofMillis(200)); Connection locker = store.dataSource().getConnection()) {
            lockEvents(locker);
            Event e = Ev.ev(Ev.author(), NOW - 1, 1, "waits");
            CompletableFuture<List<SaveOutcome>> save = CompletableFuture.supplyAsync(() -> timed.save(List.of(e)));
            // the writer has been blocked for longer than the read timeout
            SharedDatabaseTest.await("a writer blocked for 600 ms", () -> blockedLongerThan(600));
            locker.rollback();
            assertEquals(List.of(SaveOutcome.STORED), save.get(30, TimeUnit.SECONDS));
        }
    }

    /** Takes a lock that every read and write of event waits for, until {@code locker} rolls back. */
    private static void lockEvents(Connection locker) throws Exception {
        locker.setAutoCommit(false);
        try (Statement s = locker.createStatement()) {
            s.execute("lock table event in access exclusive mode");
        }
    }

    private static boolean blockedLongerThan(long millis) {
        try (Connection c = store.dataSource().getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                        + " and query like 'with input as%' and now() - query_start > interval '" + millis + " milliseconds'")) {
            rs.next();
            return rs.getLong(1) > 0;
        } catch (java.sql.SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * A read planned once per connection (SqlFilter.oneBestPlan) sets the timeout and the plan mode in one statement:
     * the timeout still cancels it, both settings end with it, and without a timeout the read runs with the plan mode
     * alone.
     */
    @Test
    void aReadPlannedOnceIsCancelledLikeAnyOtherAndLeavesNoSettingBehind() throws Exception {
        truncate();
        Event e = Ev.ev(Ev.author(), NOW - 1, 7, "x");
        store.save(List.of(e));
        Filter oneKind = new Filter(null, null, java.util.Set.of(7), java.util.Map.of(), null, null, 10);
        Filter manyKind = new Filter(null, null, java.util.Set.of(7), java.util.Map.of(), null, null, 1000); // streamed
        try (PostgresStore timed = new PostgresStore(store.dataSource(), store.dataSource()::getConnection,
                Duration.ofMillis(300)); Connection locker = store.dataSource().getConnection()) {
            timed.statisticsRefresh().join(60_000);
            lockEvents(locker);
            // bounded, so a read that carried no timeout fails the test instead of waiting for the lock forever
            for (Filter f : List.of(oneKind, manyKind)) {
                assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(QueryTimeoutException.class,
                        () -> timed.query(f, NOW, Reader.operator(), (id, json) -> true)));
            }
            locker.rollback();
            assertEquals(List.of(e.id()), ids(timed, oneKind, NOW));
            assertEquals(List.of(e.id()), ids(timed, manyKind, NOW));
        }
        try (PostgresStore untimed = new PostgresStore(store.dataSource(), store.dataSource()::getConnection, Duration.ZERO)) {
            untimed.statisticsRefresh().join(60_000);
            assertEquals(List.of(e.id()), ids(untimed, oneKind, NOW));
            assertEquals(List.of(e.id()), ids(untimed, manyKind, NOW));
        }
        // every pooled connection is back to the server's settings
        onEveryPooledConnection(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "select current_setting('statement_timeout'), current_setting('plan_cache_mode')")) {
                rs.next();
                assertEquals("0", rs.getString(1));
                assertEquals("auto", rs.getString(2));
            }
        });
    }
}
