package org.fleetmesh.standing;

import static org.fleetmesh.standing.Records.rec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.spi.standing.FindingRecord;
import org.junit.jupiter.api.Test;

/** The in-memory book behaves as PgStandingBookTest asks of the PostgreSQL one. */
class MemoryStandingBookTest {
    final MemoryStandingBook book = new MemoryStandingBook();

    static List<String> ids(List<FindingRecord> rs) {
        return rs.stream().map(FindingRecord::eventId).toList();
    }

    @Test
    void addKeepsEachEventOnceAndListsNewestFirst() {
        assertTrue(book.add(rec("a", "did:o", "did:x", "S2", "transit", "d1", "VERIFIED", false, 10)));
        assertTrue(book.add(rec("b", "did:o", "did:y", "S1", "compute", "d2", "FALSE", false, 5)));
        assertFalse(book.add(rec("a", "did:other", "did:z", "S3", "transit", "d3", "MALFORMED", false, 1)),
                "a known event id");
        assertEquals(2, book.count());
        assertEquals(List.of("b", "a"), ids(book.all(10)));
        assertEquals(List.of("b"), ids(book.all(1)));
        FindingRecord a = book.all(10).get(1);
        assertEquals("did:x", a.subject(), "the first record of an event stays");
        assertEquals(1, a.id());
    }

    @Test
    void aboutListsOneSubjectNewestFirst() {
        book.add(rec("a", "did:o", "did:x", "S2", "transit", "d1", "VERIFIED", false, 10));
        book.add(rec("b", "did:o", "did:y", "S2", "transit", "d2", "VERIFIED", false, 10));
        book.add(rec("c", "did:o", "did:x", "S1", "transit", "d3", "VERIFIED", false, 10));
        assertEquals(List.of("c", "a"), ids(book.about("did:x", 10)));
        assertEquals(List.of("c"), ids(book.about("did:x", 1)));
        assertEquals(List.of(), book.about("did:none", 10));
    }

    @Test
    void trimDropsWhatCountsForNothingFirstAndThisNodesOwnLast() {
        book.add(rec("own", "did:me", "did:x", "S2", "transit", "d0", "VERIFIED", true, 1));
        book.add(rec("verified", "did:o", "did:x", "S2", "transit", "d1", "VERIFIED", false, 2));
        book.add(rec("attested", "did:o", "did:x", "S3", "transit", "d2", "ATTESTED", false, 3));
        book.add(rec("false", "did:o", "did:x", "S2", "transit", "d3", "FALSE", false, 4));
        book.add(rec("malformed", "did:o", "did:x", "S1", "transit", "d4", "MALFORMED", false, 5));
        book.add(rec("unverifiable", "did:o", "did:x", "S2", "compute", "d5", "UNVERIFIABLE", false, 6));
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
            book.add(rec("e" + i, "did:o" + i, "did:x", "S2", "transit", "d" + i, "VERIFIED", false, i));
        }
        assertEquals(900, book.trim(100));
        assertEquals(100, book.count());
        assertEquals("e999", book.all(1).get(0).eventId());
        assertEquals("e900", book.all(100).get(99).eventId(), "the oldest went first");
        assertTrue(book.add(rec("e1", "did:o", "did:x", "S2", "transit", "d", "VERIFIED", false, 1)),
                "a dropped event can be recorded again");
    }
}
