package org.fleetmesh.nostr;

import static org.fleetmesh.nostr.TestEvents.ALICE;
import static org.fleetmesh.nostr.TestEvents.BOB;
import static org.fleetmesh.nostr.TestEvents.event;
import static org.fleetmesh.nostr.TestEvents.id;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** NIP-01 filter semantics: AND across fields, OR within a list, inclusive since/until. */
class FilterTest {
    private static final String E1 = id(0xe1).hex();
    private static final String E2 = id(0xe2).hex();
    private static final String P1 = TestEvents.pubkey(0xc1).hex();

    private static Filter ids(Set<EventId> ids) {
        return new Filter(ids, null, null, null, null, null, null);
    }

    private static Filter authors(Set<PubKey> authors) {
        return new Filter(null, authors, null, null, null, null, null);
    }

    private static Filter kinds(Set<Integer> kinds) {
        return new Filter(null, null, kinds, null, null, null, null);
    }

    private static Filter tags(Map<String, Set<String>> tags) {
        return new Filter(null, null, null, tags, null, null, null);
    }

    private static Filter range(Long since, Long until) {
        return new Filter(null, null, null, null, since, until, null);
    }

    private static final Event NOTE = event(id(0x10), ALICE, 1000L, 1,
            List.of(List.of("e", E1, "wss://relay.example"), List.of("e", E2), List.of("p", P1), List.of("t", "nostr")),
            "hello");

    // --- matches ---------------------------------------------------------------------------

    @Test
    void allMatchesAnyEvent() {
        assertTrue(Filter.ALL.matches(NOTE));
        assertTrue(Filter.ALL.matches(event(0L, 65535, List.of())));
    }

    @Test
    void nullTagsMapMeansNoTagCondition() {
        Filter f = new Filter(null, null, null, null, null, null, null);
        assertNotNull(f.tags());
        assertTrue(f.tags().isEmpty());
        assertTrue(f.matches(NOTE));
    }

    @Test
    void idsMatchesWhenTheEventIdIsListed() {
        assertTrue(ids(Set.of(id(0x99), id(0x10))).matches(NOTE));
    }

    @Test
    void idsRejectsAnUnlistedEventId() {
        assertFalse(ids(Set.of(id(0x99))).matches(NOTE));
    }

    @Test
    void authorsMatchesWhenThePubkeyIsListed() {
        assertTrue(authors(Set.of(BOB, ALICE)).matches(NOTE));
    }

    @Test
    void authorsRejectsAnUnlistedPubkey() {
        assertFalse(authors(Set.of(BOB)).matches(NOTE));
    }

    @Test
    void authorsComparesByValueNotIdentity() {
        assertTrue(authors(Set.of(PubKey.ofHex(ALICE.hex()))).matches(NOTE));
    }

    @Test
    void kindsMatchesWhenTheKindIsListed() {
        assertTrue(kinds(Set.of(0, 1)).matches(NOTE));
    }

    @Test
    void kindsRejectsAnUnlistedKind() {
        assertFalse(kinds(Set.of(0, 7)).matches(NOTE));
    }

    @Test
    void sinceIsInclusive() {
        assertTrue(range(1000L, null).matches(NOTE));
    }

    @Test
    void sinceRejectsOlderEvents() {
        assertFalse(range(1001L, null).matches(NOTE));
    }

    @Test
    void untilIsInclusive() {
        assertTrue(range(null, 1000L).matches(NOTE));
    }

    @Test
    void untilRejectsNewerEvents() {
        assertFalse(range(null, 999L).matches(NOTE));
    }

    @Test
    void sinceEqualToUntilMatchesExactlyThatSecond() {
        assertTrue(range(1000L, 1000L).matches(NOTE));
        assertFalse(range(1000L, 1000L).matches(event(1001L, 1, List.of())));
        assertFalse(range(1000L, 1000L).matches(event(999L, 1, List.of())));
    }

    @Test
    void tagFilterMatchesTheValueOfAnyTagWithThatName() {
        assertTrue(tags(Map.of("e", Set.of(E2))).matches(NOTE));
    }

    @Test
    void tagFilterIsOrWithinItsValues() {
        assertTrue(tags(Map.of("e", Set.of("not-there", E1))).matches(NOTE));
    }

    @Test
    void tagFilterRejectsWhenNoValueMatches() {
        assertFalse(tags(Map.of("e", Set.of("not-there"))).matches(NOTE));
    }

    @Test
    void tagFiltersAreAndAcrossLetters() {
        assertTrue(tags(Map.of("e", Set.of(E1), "p", Set.of(P1))).matches(NOTE));
        assertFalse(tags(Map.of("e", Set.of(E1), "p", Set.of("someone-else"))).matches(NOTE));
    }

    @Test
    void tagFilterOnALetterTheEventLacksRejects() {
        assertFalse(tags(Map.of("e", Set.of(E1), "q", Set.of(E1))).matches(NOTE));
    }

    @Test
    void tagFilterComparesOnlyTheSecondElement() {
        // "wss://relay.example" is the third element of the first e tag, not its value
        assertFalse(tags(Map.of("e", Set.of("wss://relay.example"))).matches(NOTE));
    }

    @Test
    void tagFilterDoesNotMatchAValueUnderAnotherName() {
        assertFalse(tags(Map.of("p", Set.of(E1))).matches(NOTE));
    }

    @Test
    void tagFilterNameIsCaseSensitive() {
        assertFalse(tags(Map.of("E", Set.of(E1))).matches(NOTE));
        Event upper = event(5L, 1, List.of(List.of("E", E1)));
        assertTrue(tags(Map.of("E", Set.of(E1))).matches(upper));
        assertFalse(tags(Map.of("e", Set.of(E1))).matches(upper));
    }

    @Test
    void tagWithoutValueDoesNotMatchATagFilter() {
        Event bare = event(5L, 1, List.of(List.of("t")));
        assertFalse(tags(Map.of("t", Set.of(""))).matches(bare));
    }

    @Test
    void allConditionsMustHold() {
        Filter f = new Filter(Set.of(id(0x10)), Set.of(ALICE), Set.of(1), Map.of("t", Set.of("nostr")), 1000L, 1000L,
                10);
        assertTrue(f.matches(NOTE));
        assertFalse(new Filter(Set.of(id(0x10)), Set.of(ALICE), Set.of(2), Map.of("t", Set.of("nostr")), 1000L,
                1000L, 10).matches(NOTE));
        assertFalse(new Filter(Set.of(id(0x10)), Set.of(BOB), Set.of(1), Map.of("t", Set.of("nostr")), 1000L, 1000L,
                10).matches(NOTE));
    }

    @Test
    void limitDoesNotAffectMatching() {
        assertTrue(new Filter(null, null, null, null, null, null, 0).matches(NOTE));
    }

    @Test
    void emptyIdsMatchesNothing() {
        assertFalse(ids(Set.of()).matches(NOTE));
    }

    @Test
    void emptyAuthorsMatchesNothing() {
        assertFalse(authors(Set.of()).matches(NOTE));
    }

    @Test
    void emptyKindsMatchesNothing() {
        assertFalse(kinds(Set.of()).matches(NOTE));
    }

    @Test
    void emptyTagValuesMatchesNothing() {
        assertFalse(tags(Map.of("e", Set.of())).matches(NOTE));
    }

    // --- matchesNothingStored --------------------------------------------------------------

    @Test
    void unconstrainedFilterCanMatchStoredEvents() {
        assertFalse(Filter.ALL.matchesNothingStored());
    }

    @Test
    void emptyIdsMatchesNothingStored() {
        assertTrue(ids(Set.of()).matchesNothingStored());
    }

    @Test
    void emptyAuthorsMatchesNothingStored() {
        assertTrue(authors(Set.of()).matchesNothingStored());
    }

    @Test
    void emptyKindsMatchesNothingStored() {
        assertTrue(kinds(Set.of()).matchesNothingStored());
    }

    @Test
    void emptyTagValuesMatchNothingStored() {
        assertTrue(tags(Map.of("e", Set.of(E1), "p", Set.of())).matchesNothingStored());
    }

    @Test
    void invertedRangeMatchesNothingStored() {
        assertTrue(range(1001L, 1000L).matchesNothingStored());
    }

    @Test
    void singleSecondRangeCanMatchStoredEvents() {
        assertFalse(range(1000L, 1000L).matchesNothingStored());
    }

    @Test
    void limitZeroMatchesNothingStored() {
        assertTrue(new Filter(null, null, null, null, null, null, 0).matchesNothingStored());
    }

    @Test
    void limitOneCanMatchStoredEvents() {
        assertFalse(new Filter(null, null, null, null, null, null, 1).matchesNothingStored());
    }

    @Test
    void nonEmptySetsCanMatchStoredEvents() {
        assertFalse(new Filter(Set.of(id(1)), Set.of(ALICE), Set.of(1), Map.of("e", Set.of(E1)), 1L, 2L, 5)
                .matchesNothingStored());
    }

    @Test
    void withLimitReplacesOnlyTheLimit() {
        Filter f = new Filter(Set.of(id(1)), Set.of(ALICE), Set.of(1), Map.of("e", Set.of(E1)), 1L, 2L, 5);
        Filter g = f.withLimit(7);
        assertEquals(new Filter(Set.of(id(1)), Set.of(ALICE), Set.of(1), Map.of("e", Set.of(E1)), 1L, 2L, 7), g);
        assertEquals(5, f.limit());
    }
}
