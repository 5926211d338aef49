package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;
import org.fleetmesh.storage.postgres.compute.PgJobBook;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Compute jobs in PostgreSQL (V9__compute_jobs.sql): saved only from the version before, read back whole. */
class PgJobBookTest extends PgFixture {
    JobBook book;

    @BeforeEach
    void clean() throws Exception {
        sql("truncate compute_job");
        book = new PgJobBook(store.dataSource());
    }

    static JobEntry fresh(String id, JobEntry.Role role, long at) {
        return JobEntry.fresh(id, role, "did:peer:2.Ez", "{\"job\":{}}", "requested", at);
    }

    @Test
    void anEntryIsReadBackWholeAfterEachMove() {
        JobEntry e = fresh("a", JobEntry.Role.WORKER, NOW);
        assertTrue(book.save(e));
        JobEntry sealed = e.moved("sealed", NOW + 1).withKey("ab".repeat(32)).withPrice(1234, "ln", "lnbc1", "cd"
                .repeat(32)).withSealed("{\"request\":\"a\"}").withResult("{}");
        assertTrue(book.save(sealed));
        assertEquals(sealed, book.find(JobEntry.Role.WORKER, "a").get());
        assertTrue(book.find(JobEntry.Role.BUYER, "a").isEmpty(), "the two roles are apart");
    }

    @Test
    void aSaveFromAnOlderVersionChangesNothing() {
        JobEntry e = fresh("a", JobEntry.Role.BUYER, NOW);
        assertTrue(book.save(e));
        assertFalse(book.save(e), "version 1 exists");
        JobEntry paying = e.moved("paying", NOW + 1);
        assertTrue(book.save(paying));
        assertFalse(book.save(e.moved("failed", NOW + 2)), "a move from version 1 after version 2 was saved");
        assertEquals("paying", book.find(JobEntry.Role.BUYER, "a").get().state());
    }

    @Test
    void statesCountsAndRecentOrder() {
        book.save(fresh("a", JobEntry.Role.BUYER, NOW));
        book.save(fresh("b", JobEntry.Role.BUYER, NOW + 5));
        JobEntry c = fresh("c", JobEntry.Role.BUYER, NOW + 2);
        book.save(c);
        book.save(c.moved("paying", NOW + 3));
        assertEquals(List.of("b", "c", "a"), book.recent(JobEntry.Role.BUYER, 10).stream().map(JobEntry::id).toList());
        assertEquals(List.of("c"), book.inStates(JobEntry.Role.BUYER, List.of("paying", "paid")).stream()
                .map(JobEntry::id).toList());
        assertEquals(Map.of("requested", 2L, "paying", 1L), book.counts(JobEntry.Role.BUYER));
        assertTrue(book.counts(JobEntry.Role.WORKER).isEmpty());
    }
}
