package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PostgresStoreTest extends PgFixture {
    static final SaveOutcome STORED = SaveOutcome.STORED;
    static final SaveOutcome DUPLICATE = SaveOutcome.DUPLICATE;
    static final SaveOutcome SUPERSEDED = SaveOutcome.SUPERSEDED;
    static final SaveOutcome DELETED = SaveOutcome.DELETED;

    @BeforeEach
    void clean() throws Exception {
        truncate();
    }

    @AfterEach
    void noOrphanTagRows() throws Exception {
        assertEquals(0, orphanTags(), "tag rows of deleted/replaced/purged events are gone too");
    }

    static Filter authors(PubKey... a) {
        return new Filter(null, Set.of(a), null, Map.of(), null, null, null);
    }

    static Filter byIds(Event... es) {
        return new Filter(Stream.of(es).map(Event::id).collect(Collectors.toSet()), null, null, Map.of(), null, null, null);
    }

    static List<EventId> idsOf(Event... es) {
        return Stream.of(es).map(Event::id).toList();
    }

    static Filter tags(String name, String... values) {
        return new Filter(null, null, null, Map.of(name, Set.of(values)), null, null, null);
    }

    /**
     * A limit that cuts through events of equal created_at keeps the lowest ids (NIP-01), whichever index the filter
     * is read from: the ordering indexes end in created_at (V11), so ties are ordered by the query, not the index.
     */
    @Test
    void aLimitCutsTiesAtTheLowestIds() {
        PubKey a = Ev.author();
        PubKey b = Ev.author();
        List<Event> all = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            PubKey who = i % 2 == 0 ? a : b;
            all.add(ev(who, NOW - 100, 1, "tie " + i, tag("t", "tied"), tag("e", "ef".repeat(32))));
        }
        all.add(ev(a, NOW - 50, 1, "newer", tag("t", "tied"), tag("e", "ef".repeat(32))));
        all.add(ev(a, NOW - 150, 1, "older", tag("t", "tied"), tag("e", "ef".repeat(32))));
        store.save(all);
        for (Filter f : List.of(new Filter(null, null, Set.of(1), Map.of(), null, null, 5),
                new Filter(null, Set.of(a, b), null, Map.of(), null, null, 5),
                new Filter(null, null, null, Map.of(), NOW - 200, NOW, 5),
                new Filter(null, null, null, Map.of("t", Set.of("tied")), null, null, 5),
                new Filter(null, null, Set.of(1), Map.of("e", Set.of("ef".repeat(32))), null, null, 5),
                new Filter(null, null, null, Map.of("t", Set.of("tied"), "e", Set.of("ef".repeat(32))), null, null, 5))) {
            List<EventId> expected = all.stream()
                    .sorted(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id))
                    .limit(5).map(Event::id).toList();
            assertEquals(expected, PgFixture.ids(f), f.toString());
        }
        // the one author with six tied events: the lowest three after the newer one
        List<EventId> aOnly = all.stream().filter(e -> e.pubkey().equals(a))
                .sorted(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id))
                .limit(4).map(Event::id).toList();
        assertEquals(aOnly, PgFixture.ids(new Filter(null, Set.of(a), null, Map.of(), null, null, 4)));
    }

    /**
     * A filter naming its events by id answers them newest first whatever path its size takes: up to 256 ids in one
     * round trip (under the relay's default limit of 500 too), more through the cursor; unknown ids add nothing, and a
     * limit below the ids still cuts at the newest.
     */
    @Test
    void idsAnswerTheSameInOneRoundTripAndStreamed() {
        PubKey a = Ev.author();
        List<Event> all = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            all.add(ev(a, NOW - 1000 + (i * 7) % 300, 1, "ids " + i));
        }
        store.save(all);
        Comparator<Event> nip01 = Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id);
        for (int n : new int[] {1, 10, 256, 257, 300}) {
            List<Event> some = all.subList(300 - n, 300);
            Set<EventId> ids = new java.util.HashSet<>(some.stream().map(Event::id).toList());
            ids.add(new EventId(new byte[32])); // not stored
            for (Integer limit : new Integer[] {null, 500, 5}) {
                List<EventId> expected = some.stream().sorted(nip01).limit(limit == null ? n : Math.min(limit, n))
                        .map(Event::id).toList();
                assertEquals(expected, PgFixture.ids(new Filter(ids, null, null, Map.of(), null, null, limit)),
                        n + " ids, limit " + limit);
            }
        }
    }

    @Test
    void insertAndDuplicate() {
        PubKey a = Ev.author();
        Event e1 = ev(a, NOW - 10, 1, "hello");
        Event e2 = ev(a, NOW - 5, 1, "world");
        assertEquals(List.of(STORED, STORED, DUPLICATE), store.save(List.of(e1, e2, e1)));
        assertEquals(List.of(DUPLICATE, DUPLICATE), store.save(List.of(e2, e1)));
        List<String> json = new ArrayList<>();
        store.query(authors(a), NOW, (id, j) -> json.add(j));
        assertEquals(List.of(e2.json(), e1.json()), json, "served verbatim, newest first");
        assertEquals(2, store.count(authors(a), NOW));
        assertEquals(List.of(), store.save(List.of()));
    }

    @Test
    void operatorDeleteRemovesEventsAndTheirTagsWithoutATombstone() {
        PubKey a = Ev.author();
        Event keep = ev(a, NOW - 10, 1, "keep", tag("t", "x"));
        Event drop = ev(a, NOW - 5, 1, "drop", tag("t", "x"));
        store.save(List.of(keep, drop));
        assertEquals(1, store.delete(List.of(drop.id())));
        assertEquals(idsOf(keep), ids(authors(a)));
        assertEquals(idsOf(keep), ids(tags("t", "x")), "the deleted event's tag rows are gone too");
        assertEquals(0, store.delete(List.of(drop.id())));
        assertEquals(List.of(STORED), store.save(List.of(drop)), "no tombstone: it may come back");
    }

    @Test
    void ephemeralIsRejected() {
        Event eph = ev(Ev.author(), NOW, 20001, "x");
        assertThrows(IllegalArgumentException.class, () -> store.save(List.of(eph)));
    }

    @Test
    void anEphemeralEventWithAnExpirationIsStoredUntilThen() {
        // NIP-40: the relay decides which ephemeral events to persist (RelayLimits.storesEphemeral); stored, one is read
        // and expires as any event with an expiration
        PubKey a = Ev.author();
        Event eph = ev(a, NOW, 24133, "bunker", tag("expiration", Long.toString(NOW + 60)), tag("p", a.hex()));
        assertEquals(List.of(STORED), store.save(List.of(eph)));
        assertEquals(idsOf(eph), ids(authors(a)));
        assertEquals(idsOf(eph), ids(tags("p", a.hex())));
        assertEquals(0, store.count(authors(a), NOW + 60), "expired at its timestamp");
        assertEquals(1, store.purgeExpired(NOW + 60));
        assertEquals(List.of(), ids(authors(a)));
    }

    @Test
    void replaceableKeepsNewest() {
        PubKey a = Ev.author();
        Event v1 = ev(a, NOW - 100, 0, "{\"name\":\"v1\"}");
        Event v2 = ev(a, NOW - 50, 0, "{\"name\":\"v2\"}");
        Event v0 = ev(a, NOW - 200, 0, "{\"name\":\"v0\"}");
        assertEquals(List.of(STORED), store.save(List.of(v1)));
        assertEquals(List.of(STORED), store.save(List.of(v2)));
        assertEquals(List.of(SUPERSEDED), store.save(List.of(v0)));
        assertEquals(List.of(DUPLICATE), store.save(List.of(v2)));
        assertEquals(idsOf(v2), ids(authors(a)));
        // other kinds and other authors are separate addresses
        Event contacts = ev(a, NOW - 300, 3, "", tag("p", Ev.author().hex()));
        Event other = ev(Ev.author(), NOW - 300, 0, "{}");
        assertEquals(List.of(STORED, STORED), store.save(List.of(contacts, other)));
        assertEquals(idsOf(v2, contacts), ids(authors(a)));
        // the replaced version's tag rows are gone with it
        Event c2 = ev(a, NOW - 10, 3, "", tag("p", "ab"));
        assertEquals(List.of(STORED), store.save(List.of(c2)));
        assertEquals(List.of(), ids(tags("p", contacts.tags().get(0).get(1))));
        assertEquals(idsOf(c2), ids(tags("p", "ab")));
    }

    @Test
    void equalTimestampKeepsLowestId() {
        PubKey a = Ev.author();
        Event[] t = Ev.tie(a, NOW - 10, 10002);
        // higher id first, then lower id replaces it
        assertEquals(List.of(STORED), store.save(List.of(t[1])));
        assertEquals(List.of(STORED), store.save(List.of(t[0])));
        assertEquals(idsOf(t[0]), ids(authors(a)));
        // and a higher id at the same time never replaces the lower
        assertEquals(List.of(SUPERSEDED), store.save(List.of(t[1])));
        assertEquals(idsOf(t[0]), ids(authors(a)));
    }

    @Test
    void sameBatchVersions() {
        PubKey a = Ev.author();
        Event old = ev(a, NOW - 100, 30023, "old", tag("d", "post"));
        Event mid = ev(a, NOW - 50, 30023, "mid", tag("d", "post"));
        Event neu = ev(a, NOW - 10, 30023, "new", tag("d", "post"));
        Event other = ev(a, NOW - 500, 30023, "other", tag("d", "other"));
        Event[] t = Ev.tie(a, NOW - 5, 0);
        Event[] u = Ev.tie(a, NOW - 5, 3);
        // mid, then new replaces it within the batch, old is superseded; a tie both ways
        assertEquals(List.of(STORED, STORED, SUPERSEDED, STORED, STORED, STORED, STORED, SUPERSEDED),
                store.save(List.of(mid, neu, old, other, t[1], t[0], u[0], u[1])));
        assertEquals(Set.of(neu.id(), other.id(), t[0].id(), u[0].id()), Set.copyOf(ids(authors(a))));
        // the next batch: the version replaced within the batch is refused now, an older one too
        assertEquals(List.of(SUPERSEDED, SUPERSEDED, DUPLICATE), store.save(List.of(mid, t[1], neu)));
        // d tag values are exact: "post" and "Post" are different addresses; no d tag is ""
        Event post2 = ev(a, NOW - 1000, 30023, "P", tag("d", "Post"));
        Event noD = ev(a, NOW - 1000, 30023, "no d");
        Event emptyD = ev(a, NOW - 900, 30023, "empty d", tag("d", ""));
        assertEquals(List.of(STORED, STORED, STORED), store.save(List.of(post2, noD, emptyD)));
        assertEquals(Set.of(neu.id(), other.id(), t[0].id(), u[0].id(), post2.id(), emptyD.id()),
                Set.copyOf(ids(authors(a))));
    }

    @Test
    void longAndOddTagValuesStayExact() {
        PubKey a = Ev.author();
        String longD = "d".repeat(5000);
        String longD2 = "d".repeat(4999) + "e";
        Event x1 = ev(a, NOW - 20, 30000, "1", tag("d", longD), tag("t", "x\u0000y"));
        Event x2 = ev(a, NOW - 10, 30000, "2", tag("d", longD));
        Event y = ev(a, NOW - 10, 30000, "3", tag("d", longD2));
        Event nul = ev(a, NOW - 10, 1, "4", tag("t", "a\u0000b"), tag("t", "\u0001" + "z".repeat(64)));
        assertEquals(List.of(STORED, STORED, STORED, STORED), store.save(List.of(x1, x2, y, nul)));
        assertEquals(Set.of(x2.id(), y.id(), nul.id()), Set.copyOf(ids(authors(a))));
        assertEquals(idsOf(y), ids(tags("d", longD2)));
        assertEquals(idsOf(nul), ids(tags("t", "a\u0000b")));
        assertEquals(idsOf(nul), ids(tags("t", "\u0001" + "z".repeat(64))));
        assertEquals(List.of(), ids(tags("t", "ab")));
        // multi-letter tags are not indexed
        Event multi = ev(a, NOW, 1, "m", tag("emoji", "x"));
        store.save(List.of(multi));
        assertEquals(List.of(), ids(tags("emoji", "x")));
    }

    @Test
    void deletionByETag() {
        PubKey a = Ev.author();
        PubKey b = Ev.author();
        Event mine = ev(a, NOW - 100, 1, "mine", tag("t", "x"));
        Event theirs = ev(b, NOW - 100, 1, "theirs");
        Event later = ev(a, NOW - 90, 1, "deleted before it arrived");
        Event otherDeletion = ev(b, NOW - 95, 5, "", tag("e", mine.id().hex()));
        assertEquals(List.of(STORED, STORED, STORED), store.save(List.of(mine, theirs, otherDeletion)));
        assertEquals(idsOf(mine), ids(authors(a)), "another author's deletion has no effect");

        Event del = ev(a, NOW - 80, 5, "", tag("e", mine.id().hex()), tag("e", theirs.id().hex()),
                tag("e", later.id().hex()), tag("e", "not hex"));
        assertEquals(List.of(STORED), store.save(List.of(del)));
        assertEquals(idsOf(del), ids(authors(a)), "own event gone, the deletion stays visible");
        assertEquals(idsOf(otherDeletion, theirs), ids(authors(b)), "only own events are deleted");
        assertEquals(List.of(), ids(tags("t", "x")), "tag rows cascade");

        // tombstones: neither the deleted event nor one deleted in advance is accepted
        assertEquals(List.of(DELETED, DELETED, DUPLICATE), store.save(List.of(mine, later, del)));
        // a deletion is not deletable: kind 5 targets are ignored
        Event delDel = ev(a, NOW - 70, 5, "", tag("e", del.id().hex()));
        assertEquals(List.of(STORED), store.save(List.of(delDel)));
        assertEquals(Set.of(del.id(), delDel.id()), Set.copyOf(ids(authors(a))));
        // a replaceable event deleted by id is refused when it comes back, a newer version is not
        Event profile = ev(a, NOW - 60, 0, "{}");
        assertEquals(List.of(STORED), store.save(List.of(profile)));
        assertEquals(List.of(STORED), store.save(List.of(ev(a, NOW - 59, 5, "", tag("e", profile.id().hex())))));
        Event profile2 = ev(a, NOW - 58, 0, "{\"v\":2}");
        assertEquals(List.of(DELETED, STORED), store.save(List.of(profile, profile2)));
        // a deletion by someone else, even before the event arrives, does not block the author
        Event future = ev(a, NOW - 40, 1, "not b's to delete");
        assertEquals(List.of(STORED), store.save(List.of(ev(b, NOW - 45, 5, "", tag("e", future.id().hex())))));
        assertEquals(List.of(STORED), store.save(List.of(future)));
    }

    /**
     * NIP-59: "Since signing keys are random, relays SHOULD delete kind:1059 events whose p-tag matches the signer of
     * NIP-09 deletions"; deleted, a gift wrap stays refused. Nobody else's deletion removes one, nor the recipient's any
     * other kind.
     */
    @Test
    void aGiftWrapIsDeletedByItsRecipient() {
        PubKey wrapper = Ev.author();
        PubKey recipient = Ev.author();
        PubKey stranger = Ev.author();
        Event wrap = ev(wrapper, NOW - 100, 1059, "sealed", tag("p", recipient.hex()));
        Event wrap2 = ev(wrapper, NOW - 100, 1059, "sealed 2", tag("p", recipient.hex()));
        Event note = ev(wrapper, NOW - 100, 1, "a note", tag("p", recipient.hex()));
        assertEquals(List.of(STORED, STORED, STORED), store.save(List.of(wrap, wrap2, note)));
        Event strangers = ev(stranger, NOW - 90, 5, "", tag("e", wrap2.id().hex()));
        Event recipients = ev(recipient, NOW - 90, 5, "", tag("e", wrap.id().hex()), tag("e", note.id().hex()),
                tag("k", "1059"));
        assertEquals(List.of(STORED, STORED), store.save(List.of(strangers, recipients)));
        assertEquals(Set.of(wrap2.id(), note.id()), Set.copyOf(ids(authors(wrapper))));
        Event later = ev(wrapper, NOW - 80, 1059, "deleted before it arrived", tag("p", recipient.hex()));
        assertEquals(List.of(STORED), store.save(List.of(ev(recipient, NOW - 85, 5, "", tag("e", later.id().hex())))));
        assertEquals(List.of(DELETED, DELETED, DUPLICATE), store.save(List.of(wrap, later, wrap2)));
    }

    @Test
    void deletionWithinOneBatchAppliesInOrder() {
        PubKey a = Ev.author();
        Event x = ev(a, NOW - 100, 1, "x");
        Event y = ev(a, NOW - 100, 1, "y");
        Event del = ev(a, NOW - 50, 5, "", tag("e", x.id().hex()), tag("e", y.id().hex()));
        Event z = ev(a, NOW - 40, 1, "z");
        // x stored then deleted; y arrives after the deletion: refused
        assertEquals(List.of(STORED, STORED, DELETED, STORED), store.save(List.of(x, del, y, z)));
        assertEquals(idsOf(z, del), ids(authors(a)));
    }

    @Test
    void deletionByATag() {
        PubKey a = Ev.author();
        PubKey b = Ev.author();
        Event art = ev(a, NOW - 100, 30023, "v1", tag("d", "art"));
        Event keep = ev(a, NOW - 100, 30023, "other d", tag("d", "keep"));
        Event prof = ev(a, NOW - 100, 0, "{}");
        Event bArt = ev(b, NOW - 100, 30023, "b's", tag("d", "art"));
        assertEquals(List.of(STORED, STORED, STORED, STORED), store.save(List.of(art, keep, prof, bArt)));
        Event del = ev(a, NOW - 50, 5, "",
                tag("a", "30023:" + a.hex() + ":art"),
                tag("a", "0:" + a.hex() + ":"),
                tag("a", "30023:" + b.hex() + ":art"));
        assertEquals(List.of(STORED), store.save(List.of(del)));
        assertEquals(Set.of(keep.id(), del.id()), Set.copyOf(ids(authors(a))));
        assertEquals(idsOf(bArt), ids(authors(b)), "another author's address is untouched");
        // versions up to the deletion time are refused, newer ones are welcome
        Event artOld = ev(a, NOW - 60, 30023, "v0", tag("d", "art"));
        Event artSame = ev(a, NOW - 50, 30023, "same second", tag("d", "art"));
        Event profOld = ev(a, NOW - 70, 0, "{\"old\":1}");
        assertEquals(List.of(DELETED, DELETED, DELETED), store.save(List.of(artOld, artSame, profOld)));
        Event artNew = ev(a, NOW - 40, 30023, "v2", tag("d", "art"));
        Event profNew = ev(a, NOW - 40, 0, "{\"new\":1}");
        assertEquals(List.of(STORED, STORED), store.save(List.of(artNew, profNew)));
        assertEquals(Set.of(keep.id(), del.id(), artNew.id(), profNew.id()), Set.copyOf(ids(authors(a))));
        // an older deletion does not lower the bar
        Event delOld = ev(a, NOW - 90, 5, "", tag("a", "30023:" + a.hex() + ":art"));
        assertEquals(List.of(STORED), store.save(List.of(delOld)));
        assertEquals(List.of(DELETED), store.save(List.of(ev(a, NOW - 55, 30023, "v-", tag("d", "art")))));
    }

    @Test
    void expiration() {
        PubKey a = Ev.author();
        Event gone = ev(a, NOW - 100, 1, "gone", tag("expiration", Long.toString(NOW - 1)), tag("t", "exp"));
        Event edge = ev(a, NOW - 100, 1, "expires now", tag("expiration", Long.toString(NOW)), tag("t", "exp"));
        Event soon = ev(a, NOW - 100, 1, "soon", tag("expiration", Long.toString(NOW + 100)), tag("t", "exp"));
        Event never = ev(a, NOW - 100, 1, "never", tag("expiration", "junk"), tag("t", "exp"));
        assertEquals(List.of(STORED, STORED, STORED, STORED), store.save(List.of(gone, edge, soon, never)));
        assertEquals(Set.of(soon.id(), never.id()), Set.copyOf(ids(authors(a))));
        assertEquals(Set.of(soon.id(), never.id()), Set.copyOf(ids(tags("t", "exp"))));
        assertEquals(2, store.count(authors(a), NOW));
        assertEquals(4, store.count(authors(a), NOW - 10));
        List<EventId> enumerated = new ArrayList<>();
        store.enumerate(authors(a), NOW, (t, id) -> enumerated.add(id));
        assertEquals(2, enumerated.size());
        assertEquals(2, store.purgeExpired(NOW));
        assertEquals(2, store.count(authors(a), NOW - 10), "purged rows are gone for good");
        assertEquals(1, store.purgeExpired(NOW + 100));
        assertEquals(idsOf(never), ids(authors(a)));
    }

    @Test
    void everyFilterField() {
        PubKey a = Ev.author();
        PubKey b = Ev.author();
        PubKey c = Ev.author();
        String pHex = Ev.author().hex();
        Event a1 = ev(a, 1000, 1, "a1", tag("t", "nostr"), tag("p", pHex));
        Event a2 = ev(a, 2000, 7, "a2", tag("e", a1.id().hex()), tag("p", pHex));
        Event a3 = ev(a, 3000, 1, "a3", tag("t", "java"), tag("t", "nostr"));
        Event b1 = ev(b, 1500, 1, "b1", tag("e", a1.id().hex()), tag("t", "nostr"));
        Event b2 = ev(b, 2500, 30023, "b2", tag("d", "x"), tag("t", "java"), tag("p", pHex));
        Event c1 = ev(c, 2000, 1, "c1");
        store.save(List.of(a1, a2, a3, b1, b2, c1));

        Filter all = Filter.ALL;
        assertEquals(idsOf(a3, b2, a2, c1, b1, a1).stream().sorted(Comparator.naturalOrder()).toList(),
                ids(all).stream().sorted().toList());
        // ordering: newest first; a2 and c1 share created_at 2000: lowest id first
        List<EventId> got = ids(all);
        assertEquals(a3.id(), got.get(0));
        EventId lo = a2.id().compareTo(c1.id()) < 0 ? a2.id() : c1.id();
        EventId hi = lo.equals(a2.id()) ? c1.id() : a2.id();
        assertEquals(List.of(a3.id(), b2.id(), lo, hi, b1.id(), a1.id()), got);

        assertEquals(idsOf(a3, a1), ids(byIds(a1, a3)));
        assertEquals(idsOf(a3, a2, a1), ids(authors(a)));
        assertEquals(idsOf(a3, b2, a2, b1, a1), ids(authors(a, b)));
        assertEquals(idsOf(a3, a1), ids(new Filter(null, Set.of(a), Set.of(1), Map.of(), null, null, null)));
        assertEquals(idsOf(b2), ids(new Filter(null, null, Set.of(30023), Map.of(), null, null, null)));
        assertEquals(idsOf(a2, b1), ids(tags("e", a1.id().hex())));
        assertEquals(idsOf(b2, a2, a1), ids(tags("p", pHex)));
        assertEquals(idsOf(a3, b2, b1, a1), ids(tags("t", "nostr", "java")));
        // several letters are AND-ed, values OR-ed
        assertEquals(idsOf(b2, a1), ids(new Filter(null, null, null,
                Map.of("t", Set.of("nostr", "java"), "p", Set.of(pHex)), null, null, null)));
        assertEquals(idsOf(a3), ids(new Filter(null, Set.of(a), null, Map.of("t", Set.of("java")), null, null, null)));
        // since/until inclusive
        assertEquals(idsOf(b2, a2, c1, b1).stream().sorted().toList(),
                ids(new Filter(null, null, null, Map.of(), 1500L, 2500L, null)).stream().sorted().toList());
        assertEquals(idsOf(a2), ids(new Filter(null, Set.of(a), null, Map.of(), 2000L, 2000L, null)));
        assertEquals(idsOf(a2, a1), ids(new Filter(null, null, null, Map.of("p", Set.of(pHex)), null, 2000L, null)));
        // limit: newest first, tie at 2000 resolved by lowest id
        assertEquals(List.of(a3.id(), b2.id(), lo), ids(all.withLimit(3)));
        assertEquals(idsOf(a3, a2), ids(authors(a).withLimit(2)));
        assertEquals(idsOf(a3, b2), ids(authors(a, b).withLimit(2)));
        assertEquals(idsOf(a3, b1), ids(new Filter(null, Set.of(a, b), Set.of(1), Map.of(), null, null, 2)));
        assertEquals(idsOf(b2, a2), ids(tags("p", pHex).withLimit(2)));
        assertEquals(idsOf(a3), ids(new Filter(null, null, Set.of(1, 7), Map.of(), null, null, 1)));
        Filter two = new Filter(null, null, null,
                Map.of("t", Set.of("nostr", "java"), "e", Set.of(a1.id().hex(), "ff")), null, null, null);
        assertEquals(idsOf(b1), ids(two));
        assertEquals(idsOf(b1), ids(two.withLimit(5)));
        assertEquals(1, store.count(two, NOW));
        // empty sets, inverted ranges and limit 0 match nothing
        assertEquals(List.of(), ids(new Filter(Set.of(), null, null, Map.of(), null, null, null)));
        assertEquals(List.of(), ids(new Filter(null, null, null, Map.of(), 3000L, 1000L, null)));
        assertEquals(List.of(), ids(all.withLimit(0)));
        assertEquals(6, store.count(all.withLimit(0), NOW));
        // the sink can stop the stream
        List<EventId> firstTwo = new ArrayList<>();
        store.query(all, NOW, (id, j) -> firstTwo.add(id) && firstTwo.size() < 2);
        assertEquals(2, firstTwo.size());
    }

    @Test
    void countAndEnumerate() {
        PubKey a = Ev.author();
        List<Event> es = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            es.add(ev(a, 1000 + (i % 7), 1, "n" + i, tag("t", i % 2 == 0 ? "even" : "odd")));
        }
        store.save(es);
        assertEquals(30, store.count(authors(a), NOW));
        assertEquals(30, store.count(authors(a).withLimit(3), NOW), "count ignores the limit");
        assertEquals(15, store.count(tags("t", "even"), NOW));
        assertEquals(8, store.count(new Filter(null, Set.of(a), null, Map.of(), 1005L, null, null), NOW));

        List<long[]> times = new ArrayList<>();
        List<EventId> order = new ArrayList<>();
        store.enumerate(authors(a), NOW, (t, id) -> {
            times.add(new long[] { t });
            order.add(id);
        });
        List<Event> expected = es.stream()
                .sorted(Comparator.comparingLong(Event::createdAt).thenComparing(Event::id)).toList();
        assertEquals(expected.stream().map(Event::id).toList(), order, "ascending created_at, then unsigned id");
        assertEquals(1000, times.get(0)[0]);
        // with a limit: the newest ones, still ascending
        List<EventId> limited = new ArrayList<>();
        store.enumerate(tags("t", "even").withLimit(4), NOW, (t, id) -> limited.add(id));
        List<EventId> newestEven = es.stream().filter(e -> e.tags().get(0).get(1).equals("even"))
                .sorted(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id))
                .limit(4).sorted(Comparator.comparingLong(Event::createdAt).thenComparing(Event::id))
                .map(Event::id).toList();
        assertEquals(newestEven, limited);
    }

    @Test
    void aFailingBatchCommitsNothing() throws Exception {
        sql("create or replace function boom() returns trigger language plpgsql as $$"
                + " begin if new.body like '%BOOM%' then raise exception 'boom'; end if; return new; end $$",
                "create trigger boom before insert on event for each row execute function boom()");
        try {
            PubKey a = Ev.author();
            Event ok1 = ev(a, NOW - 3, 1, "fine");
            Event bad = ev(a, NOW - 2, 1, "BOOM");
            Event ok2 = ev(a, NOW - 1, 0, "{}");
            List<SaveOutcome> out = store.save(List.of(ok1, bad, ok2));
            assertEquals(List.of(SaveOutcome.FAILED, SaveOutcome.FAILED, SaveOutcome.FAILED), out);
            assertEquals(0, store.count(authors(a), NOW));
            assertEquals(List.of(STORED, STORED), store.save(List.of(ok1, ok2)), "the store still works");
        } finally {
            sql("drop trigger boom on event", "drop function boom()");
        }
    }

    @Test
    void durableSettingsAndHealth() throws Exception {
        assertTrue(store.isHealthy());
        try (var c = store.dataSource().getConnection(); var st = c.createStatement()) {
            for (String setting : List.of("fsync", "synchronous_commit", "full_page_writes")) {
                try (var rs = st.executeQuery("show " + setting)) {
                    rs.next();
                    assertEquals("on", rs.getString(1), setting);
                }
            }
            try (var rs = st.executeQuery("select datcollate, pg_encoding_to_char(encoding) from pg_database"
                    + " where datname = current_database()")) {
                rs.next();
                assertEquals("C", rs.getString(1));
                assertEquals("UTF8", rs.getString(2));
            }
        }
    }
}
