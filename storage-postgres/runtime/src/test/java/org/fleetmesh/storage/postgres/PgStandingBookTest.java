package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.fleetmesh.spi.standing.FindingRecord;
import org.fleetmesh.spi.standing.StandingBook;
import org.fleetmesh.storage.postgres.standing.PgStandingBook;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Recorded findings in PostgreSQL (V8__findings.sql): each event once, newest first, trimmed in keep order. */
class PgStandingBookTest extends PgFixture {
    StandingBook book;

    @BeforeEach
    void clean() throws Exception {
        sql("truncate mesh_finding restart identity");
        book = new PgStandingBook(store.dataSource());
    }

    static FindingRecord rec(String eventId, String subject, String verdict, boolean self, long createdAt) {
        return new FindingRecord(0, eventId, "{\"id\":\"" + eventId + "\",\"kind\":1804}", "did:peer:4zQmObserver",
                subject, "ab".repeat(32), "S2", "transit", "custody-fork", "cd".repeat(32), verdict,
                verdict.equals("VERIFIED") ? "" : "evidence does not verify", self, createdAt, createdAt * 1000 + 7);
    }

    static List<String> ids(List<FindingRecord> rs) {
        return rs.stream().map(FindingRecord::eventId).toList();
    }

    @Test
    void aRecordIsStoredOnceAndReadBackWholeUnderTheStoresId() {
        FindingRecord a = rec("a", "did:peer:4zQmX", "FALSE", false, NOW);
        assertTrue(book.add(a));
        assertFalse(book.add(rec("a", "did:peer:4zQmY", "VERIFIED", true, NOW + 1)), "a known event id");
        List<FindingRecord> all = book.all(10);
        assertEquals(1, all.size());
        assertTrue(all.get(0).id() > 0);
        assertEquals(a.withId(all.get(0).id()), all.get(0));
        assertEquals(1, book.count());
    }

    @Test
    void summariesAreTheRecordsWithoutTheirEvents() {
        book.add(rec("a", "did:x", "VERIFIED", false, NOW));
        book.add(rec("b", "did:y", "FALSE", false, NOW));
        assertEquals(book.all(10).stream().map(FindingRecord::withoutEvent).toList(), book.summaries(10));
        assertEquals("", book.summaries(1).get(0).event());
        assertEquals(List.of("b"), ids(book.summaries(1)));
    }

    @Test
    void anUnknownSubjectKeyAndAnEmptyReasonSurvive() {
        FindingRecord r = new FindingRecord(0, "n", "{}", "pubkey:" + "ef".repeat(32), "did:key:z6Mk", null, "S9",
                "elsewhere", "", "00".repeat(32), "MALFORMED", null, false, 0, 0);
        book.add(r);
        FindingRecord back = book.all(1).get(0);
        assertNull(back.subjectPubkey());
        assertEquals("", back.reason());
        assertEquals(r.withId(back.id()), back, "malformed severity and scope are kept as tagged");
    }

    @Test
    void newestFirstForAllAndPerSubject() {
        book.add(rec("a", "did:x", "VERIFIED", false, NOW));
        book.add(rec("b", "did:y", "VERIFIED", false, NOW - 100));
        book.add(rec("c", "did:x", "ATTESTED", true, NOW - 200));
        assertEquals(List.of("c", "b", "a"), ids(book.all(10)), "by when recorded, not by created_at");
        assertEquals(List.of("c", "b"), ids(book.all(2)));
        assertEquals(List.of("c", "a"), ids(book.about("did:x", 10)));
        assertEquals(List.of("c"), ids(book.about("did:x", 1)));
        assertEquals(List.of(), book.about("did:z", 10));
    }

    @Test
    void trimDropsWhatCountsForNothingFirstAndThisNodesOwnLast() {
        book.add(rec("own", "did:x", "VERIFIED", true, 1));
        book.add(rec("verified", "did:x", "VERIFIED", false, 2));
        book.add(rec("attested", "did:x", "ATTESTED", false, 3));
        book.add(rec("false", "did:x", "FALSE", false, 4));
        book.add(rec("malformed", "did:x", "MALFORMED", false, 5));
        book.add(rec("unverifiable", "did:x", "UNVERIFIABLE", false, 6));
        assertEquals(0, book.trim(6));
        assertEquals(3, book.trim(3), "the three that weigh nothing go, though they are the newest");
        assertEquals(List.of("attested", "verified", "own"), ids(book.all(10)));
        assertEquals(1, book.trim(2));
        assertEquals(List.of("verified", "own"), ids(book.all(10)));
        assertEquals(1, book.trim(1));
        assertEquals(List.of("own"), ids(book.all(10)));
        assertEquals(1, book.trim(0));
        assertEquals(0, book.count());
    }

    @Test
    void trimBoundsTheBookWhateverTheVerdicts() {
        for (int i = 0; i < 1000; i++) {
            book.add(rec("e" + i, "did:x", "VERIFIED", false, i));
        }
        assertEquals(900, book.trim(100));
        assertEquals(100, book.count());
        assertEquals("e999", book.all(1).get(0).eventId());
        assertEquals("e900", book.all(100).get(99).eventId(), "the oldest went first");
        assertTrue(book.add(rec("e1", "did:x", "VERIFIED", false, 1)), "a dropped event can be recorded again");
    }

    @Test
    void concurrentAddsOfOneEventStoreItOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> adds = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                adds.add(pool.submit(() -> book.add(rec("same", "did:x", "VERIFIED", false, NOW))));
            }
            int added = 0;
            for (Future<Boolean> f : adds) {
                added += f.get() ? 1 : 0;
            }
            assertEquals(1, added);
            assertEquals(1, book.count());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSchemaRefusesAnUnknownVerdict() {
        assertThrows(IllegalStateException.class, () -> book.add(rec("a", "did:x", "PLAUSIBLE", false, NOW)));
        assertEquals(0, book.count());
    }

    @Test
    void aNewBookOnTheSameDatabaseReadsTheSameFindings() {
        book.add(rec("a", "did:x", "VERIFIED", true, NOW));
        book.add(rec("b", "did:y", "FALSE", false, NOW));
        assertEquals(book.all(10), new PgStandingBook(store.dataSource()).all(10));
    }
}
