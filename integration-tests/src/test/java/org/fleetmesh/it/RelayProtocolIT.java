package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.fleetmesh.it.Keys.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.NostrJson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * NIP-01, 09, 11, 40, 45 and 70 end to end against one packaged node, over a real WebSocket.
 * Every test signs with fresh keys so that tests sharing the node cannot see each other's events.
 */
class RelayProtocolIT {
    private static final Duration QUIET = Duration.ofMillis(800);
    private static final String OPERATOR_PUBKEY = Keys.fresh().pubkey();
    private static final String RELAY_NAME = "fleetmesh protocol IT";
    private static final String SOFTWARE = "https://git.example.org/fleetmesh";

    static MeshnodeProcess node;

    @BeforeAll
    static void startNode() {
        node = MeshnodeProcess.start("protocol", Map.of(
                "FLEETMESH_RELAY_NAME", RELAY_NAME,
                "FLEETMESH_RELAY_PUBKEY", OPERATOR_PUBKEY,
                "FLEETMESH_RELAY_SOFTWARE", SOFTWARE));
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    private static NostrClient client() {
        return NostrClient.connect(node);
    }

    private static void publishAll(NostrClient c, Event... events) {
        for (Event e : events) {
            c.publishAndWait(e).assertAccepted();
        }
    }

    private static void assertSameEvent(Event expected, JsonNode actual) {
        assertEquals(NostrClient.tree(expected.json()), actual, "the relay must serve the event exactly as signed");
    }

    private static void assertIdsInOrder(List<JsonNode> actual, Event... expected) {
        assertEquals(Arrays.stream(expected).map(e -> e.id().hex()).toList(), NostrClient.ids(actual));
    }

    private static void assertIdSet(List<JsonNode> actual, Event... expected) {
        List<String> ids = NostrClient.ids(actual);
        assertEquals(ids.size(), new HashSet<>(ids).size(), "an event was sent twice: " + ids);
        assertEquals(Arrays.stream(expected).map(e -> e.id().hex()).collect(Collectors.toSet()), new HashSet<>(ids));
    }

    /** The NIP-01 order of stored events: newest first, equal created_at by lowest id. */
    private static List<Event> nip01Order(Event... events) {
        List<Event> l = new ArrayList<>(Arrays.asList(events));
        l.sort(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(e -> e.id().hex()));
        return l;
    }

    // ---------------------------------------------------------------- EVENT / OK

    @Test
    void eventIsAcceptedAndServedExactlyAsSigned() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "hello fleetmesh", tag("t", "it"), tag("client", "it", "x"));
        try (NostrClient c = client()) {
            NostrClient.Ok ok = c.publishAndWait(e);
            ok.assertAccepted();
            assertEquals("", ok.message(), "a stored event is answered OK true \"\"");
            List<JsonNode> got = c.query("one", FilterSpec.of().ids(e));
            assertEquals(1, got.size());
            assertSameEvent(e, got.get(0));
        }
    }

    @Test
    void unicodeAndEscapesRoundTrip() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "h\u00e9llo \u2713 \ud83d\ude00 \"quoted\" back\\slash\nnew line\ttab \u0001 </script>",
                tag("t", "\u00fcml\u00e4ut"), tag("alt", "line\nbreak \"q\""));
        try (NostrClient c = client()) {
            c.publishAndWait(e).assertAccepted();
            List<JsonNode> got = c.query("utf", FilterSpec.of().ids(e));
            assertEquals(1, got.size());
            assertSameEvent(e, got.get(0));
            assertIdsInOrder(c.query("utf-tag", FilterSpec.of().authors(k).tag('t', "\u00fcml\u00e4ut")), e);
        }
    }

    /**
     * The message itself, not only its parse: a stored event goes out as its UTF-8 bytes read from the store (no
     * decode and re-encode), a live one from its string; both must be {@code ["EVENT",<id>,<event>]} with the event's
     * JSON as signed, character for character, and the subscription id quoted as JSON.
     */
    @Test
    void storedAndLiveEventMessagesAreExactText() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "caf\u00e9 \u2713 \ud83d\ude00 \"q\" \\ \n \u0001 \u00ff\u0100",
                tag("t", "\u00fcml\u00e4ut"), tag("alt", "line\nbreak"));
        String live = "live \"\u00e9\" \u2713";
        String stored = "stored \\ \"\u00e9\"";
        try (NostrClient sub = client(); NostrClient c = client()) {
            sub.query(live, FilterSpec.of().authors(k));
            c.publishAndWait(e).assertAccepted();
            sub.expectEvent(live);
            assertEquals(1, c.query(stored, FilterSpec.of().authors(k)).size());
            String liveText = "[\"EVENT\"," + NostrJson.quote(live) + "," + e.json() + "]";
            String storedText = "[\"EVENT\"," + NostrJson.quote(stored) + "," + e.json() + "]";
            assertTrue(sub.rawMessages().contains(liveText), "live: " + sub.rawMessages());
            assertTrue(c.rawMessages().contains(storedText), "stored: " + c.rawMessages());
        }
    }

    @Test
    void largeEventRoundTripsInFragments() {
        Keys k = Keys.fresh();
        // large enough that the relay's answer reaches the client in several parts
        Event e = k.note(now(), "0123456789abcdef".repeat(12_500));
        try (NostrClient sub = client(); NostrClient c = client()) {
            sub.query("big-live", FilterSpec.of().authors(k));
            c.publishAndWait(e).assertAccepted();
            assertSameEvent(e, sub.expectEvent("big-live"));
            List<JsonNode> got = c.query("big", FilterSpec.of().ids(e));
            assertEquals(1, got.size());
            assertSameEvent(e, got.get(0));
            // between small ones in one stored read: its continuation frames stay together and in order
            Event before = k.note(now() - 10, "before");
            Event after = k.note(now() + 10, "after");
            c.publishAndWait(before).assertAccepted();
            c.publishAndWait(after).assertAccepted();
            assertIdsInOrder(c.query("big-mixed", FilterSpec.of().authors(k)), after, e, before);
            assertEquals("[\"EVENT\",\"big-mixed\"," + e.json() + "]", c.rawMessages().stream()
                    .filter(m -> m.startsWith("[\"EVENT\",\"big-mixed\"") && m.length() > 100_000).findFirst()
                    .orElseThrow(), "the long message is the event's exact text");
        }
    }

    @Test
    void duplicateIsAcceptedWithDuplicatePrefix() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "twice");
        try (NostrClient c = client()) {
            c.publishAndWait(e).assertAccepted();
            NostrClient.Ok again = c.publishAndWait(e);
            assertTrue(again.accepted(), "a duplicate is OK true: " + again);
            assertTrue(again.message().startsWith("duplicate:"), "a duplicate says duplicate: " + again);
            assertEquals(1, c.query("dup", FilterSpec.of().authors(k)).size());
        }
    }

    @Test
    void badSignatureAndWrongIdAreRefusedAsInvalid() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "signed");
        Event other = k.note(now(), "other content");
        try (NostrClient c = client()) {
            c.send("[\"EVENT\"," + Keys.withBrokenSignature(e) + "]");
            c.expectOk(e.id().hex()).assertRefused("invalid:");

            // the id of one event on the content of another: the id check must catch it
            String wrongId = other.json().replace(other.id().hex(), e.id().hex()).replace(other.sig().hex(), e.sig().hex());
            c.send("[\"EVENT\"," + wrongId + "]");
            c.expectOk(e.id().hex()).assertRefused("invalid:");

            assertEquals(List.of(), c.query("none", FilterSpec.of().authors(k)));
        }
    }

    // ---------------------------------------------------------------- REQ filters

    @Test
    void filterByIds() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event a = k.note(t, "a"), b = k.note(t + 1, "b"), c3 = k.note(t + 2, "c");
        try (NostrClient c = client()) {
            publishAll(c, a, b, c3);
            assertIdSet(c.query("ids", FilterSpec.of().ids(a, c3)), a, c3);
            assertIdSet(c.query("ids1", FilterSpec.of().ids(b)), b);
        }
    }

    @Test
    void filterByAuthors() {
        Keys k1 = Keys.fresh(), k2 = Keys.fresh(), k3 = Keys.fresh();
        long t = now() - 100;
        Event a = k1.note(t, "k1"), b = k2.note(t, "k2"), d = k3.note(t, "k3");
        try (NostrClient c = client()) {
            publishAll(c, a, b, d);
            assertIdSet(c.query("au1", FilterSpec.of().authors(k1)), a);
            assertIdSet(c.query("au2", FilterSpec.of().authors(k1, k3)), a, d);
        }
    }

    @Test
    void filterByKinds() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event n1 = k.note(t, "note 1"), n2 = k.note(t + 1, "note 2");
        Event reaction = k.sign(7, t + 2, "+", tag("e", n1.id().hex()), tag("p", k.pubkey()));
        Event article = k.sign(30023, t + 3, "article", tag("d", "kinds"));
        try (NostrClient c = client()) {
            publishAll(c, n1, n2, reaction, article);
            assertIdSet(c.query("k1", FilterSpec.of().authors(k).kinds(1)), n1, n2);
            assertIdSet(c.query("k2", FilterSpec.of().authors(k).kinds(1, 7)), n1, n2, reaction);
            assertIdSet(c.query("k3", FilterSpec.of().authors(k).kinds(30023)), article);
            assertIdSet(c.query("k9", FilterSpec.of().authors(k).kinds(9)));
        }
    }

    @Test
    void filterByTagsEPandT() {
        Keys k = Keys.fresh();
        String referenced = Keys.fresh().note(now(), "elsewhere").id().hex();
        String mentioned = Keys.fresh().pubkey();
        String topic = "fm" + Long.toHexString(System.nanoTime());
        long t = now() - 100;
        Event withE = k.note(t, "reply", tag("e", referenced, "", "root"));
        Event withP = k.note(t + 1, "mention", tag("p", mentioned));
        Event withT = k.note(t + 2, "topic", tag("t", topic));
        Event withOtherT = k.note(t + 3, "other topic", tag("t", topic + "-other"));
        // the tag's name is only the first element: a value at position 2 must not match
        Event decoy = k.note(t + 4, "decoy", tag("x", "e", referenced), tag("r", topic));
        try (NostrClient c = client()) {
            publishAll(c, withE, withP, withT, withOtherT, decoy);
            // tag filters alone, across all authors: the values are unique to this test
            assertIdSet(c.query("te", FilterSpec.of().tag('e', referenced)), withE);
            assertIdSet(c.query("tp", FilterSpec.of().tag('p', mentioned)), withP);
            assertIdSet(c.query("tt", FilterSpec.of().tag('t', topic)), withT);
            assertIdSet(c.query("tt2", FilterSpec.of().tag('t', topic, topic + "-other")), withT, withOtherT);
            // two tag conditions in one filter must both hold
            assertIdSet(c.query("tand", FilterSpec.of().tag('t', topic).tag('p', mentioned)));
            assertIdSet(c.query("tk", FilterSpec.of().authors(k).kinds(1).tag('e', referenced)), withE);
        }
    }

    @Test
    void tagLettersAreCaseSensitive() {
        Keys k = Keys.fresh();
        String value = "v" + Long.toHexString(System.nanoTime());
        Event lower = k.note(now() - 2, "lower", tag("e", value + "-0"), tag("t", value));
        Event upper = k.note(now() - 1, "upper", tag("T", value));
        try (NostrClient c = client()) {
            publishAll(c, lower, upper);
            assertIdSet(c.query("up", FilterSpec.of().tag('T', value)), upper);
            assertIdSet(c.query("low", FilterSpec.of().tag('t', value)), lower);
        }
    }

    @Test
    void sinceAndUntilAreInclusive() {
        Keys k = Keys.fresh();
        long t = now() - 1000;
        Event e0 = k.note(t, "0"), e1 = k.note(t + 1, "1"), e2 = k.note(t + 2, "2"), e3 = k.note(t + 3, "3"),
                e4 = k.note(t + 4, "4");
        try (NostrClient c = client()) {
            publishAll(c, e0, e1, e2, e3, e4);
            assertIdsInOrder(c.query("range", FilterSpec.of().authors(k).since(t + 1).until(t + 3)), e3, e2, e1);
            assertIdsInOrder(c.query("since", FilterSpec.of().authors(k).since(t + 4)), e4);
            assertIdsInOrder(c.query("until", FilterSpec.of().authors(k).until(t)), e0);
            assertIdsInOrder(c.query("point", FilterSpec.of().authors(k).since(t + 2).until(t + 2)), e2);
            assertIdsInOrder(c.query("empty", FilterSpec.of().authors(k).since(t + 3).until(t + 2)));

            // the same bounds hold for live events
            long live = now();
            c.query("livepoint", FilterSpec.of().authors(k).since(live).until(live));
            Event tooEarly = k.note(live - 1, "too early"), tooLate = k.note(live + 1, "too late"),
                    exact = k.note(live, "exact");
            publishAll(c, tooEarly, tooLate, exact);
            assertSameEvent(exact, c.expectEvent("livepoint"));
            c.expectNoEvent("livepoint", QUIET);
        }
    }

    @Test
    void limitReturnsNewestFirstAndEqualTimesLowestIdFirst() {
        Keys k = Keys.fresh();
        long t = now() - 500;
        Event old = k.note(t, "old");
        Event tie1 = k.note(t + 1, "tie one"), tie2 = k.note(t + 1, "tie two"), tie3 = k.note(t + 1, "tie three");
        Event newest = k.note(t + 2, "newest");
        List<Event> order = nip01Order(old, tie1, tie2, tie3, newest);
        try (NostrClient c = client()) {
            // published in an order that is neither time nor id order
            publishAll(c, tie2, old, newest, tie3, tie1);
            assertIdsInOrder(c.query("all", FilterSpec.of().authors(k)), order.toArray(Event[]::new));
            assertIdsInOrder(c.query("l1", FilterSpec.of().authors(k).limit(1)), newest);
            // the cut falls inside the tie: the lowest ids win
            assertIdsInOrder(c.query("l2", FilterSpec.of().authors(k).limit(2)), order.get(0), order.get(1));
            assertIdsInOrder(c.query("l3", FilterSpec.of().authors(k).limit(3)), order.get(0), order.get(1),
                    order.get(2));
            assertIdsInOrder(c.query("l9", FilterSpec.of().authors(k).limit(9)), order.toArray(Event[]::new));
        }
    }

    @Test
    void severalFiltersAreOredWithoutDuplicates() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event n1 = k.note(t, "n1"), n2 = k.note(t + 1, "n2");
        Event r = k.sign(7, t + 2, "+", tag("e", n1.id().hex()));
        Event meta = k.sign(0, t + 3, "{\"name\":\"or\"}");
        try (NostrClient c = client()) {
            publishAll(c, n1, n2, r, meta);
            assertIdSet(c.query("or", FilterSpec.of().ids(n1), FilterSpec.of().authors(k).kinds(7)), n1, r);
            // overlapping filters: each event once
            assertIdSet(c.query("overlap", FilterSpec.of().authors(k), FilterSpec.of().authors(k).kinds(1),
                    FilterSpec.of().ids(n2)), n1, n2, r, meta);
            // each filter keeps its own limit
            assertIdSet(c.query("lim", FilterSpec.of().authors(k).kinds(1).limit(1), FilterSpec.of().authors(k).kinds(0)),
                    n2, meta);
        }
    }

    // ---------------------------------------------------------------- live subscriptions

    @Test
    void eoseThenLiveEvents() {
        Keys k = Keys.fresh();
        Event stored = k.note(now() - 10, "stored");
        try (NostrClient sub = client(); NostrClient pub = client()) {
            pub.publishAndWait(stored).assertAccepted();
            List<JsonNode> before = sub.query("live", FilterSpec.of().authors(k).kinds(1));
            assertIdsInOrder(before, stored);

            Event ignored = k.sign(7, now(), "+");
            Event live = k.note(now(), "live");
            pub.publishAndWait(ignored).assertAccepted();
            pub.publishAndWait(live).assertAccepted();
            assertSameEvent(live, sub.expectEvent("live"));
            sub.expectNoEvent("live", QUIET); // neither the kind 7 nor a second copy
        }
    }

    @Test
    void eventsCommittedDuringTheStoredPhaseArriveExactlyOnce() {
        Keys k = Keys.fresh();
        long t = now() - 5000;
        List<Event> stored = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            stored.add(k.note(t + i, "stored " + i));
        }
        List<Event> racing = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            racing.add(k.note(now() - 60 + i, "racing " + i));
        }
        try (NostrClient sub = client(); NostrClient pub = client()) {
            stored.forEach(pub::publish);
            for (Event e : stored) {
                pub.expectOk(e.id().hex()).assertAccepted();
            }
            sub.req("race", FilterSpec.of().authors(k).kinds(1));
            racing.forEach(pub::publish); // while the stored part is on its way
            for (Event e : racing) {
                pub.expectOk(e.id().hex()).assertAccepted();
            }
            List<String> seen = new ArrayList<>(NostrClient.ids(sub.collectUntilEose("race")));
            Set<String> want = new HashSet<>();
            stored.forEach(e -> want.add(e.id().hex()));
            racing.forEach(e -> want.add(e.id().hex()));
            while (!new HashSet<>(seen).containsAll(want)) {
                seen.add(sub.expectEvent("race").get("id").asText());
            }
            sub.expectNoEvent("race", QUIET);
            assertEquals(seen.size(), new HashSet<>(seen).size(), "an event arrived twice");
            assertEquals(want, new HashSet<>(seen));
        }
    }

    @Test
    void limitZeroIsLiveOnly() {
        Keys k = Keys.fresh();
        try (NostrClient sub = client(); NostrClient pub = client()) {
            publishAll(pub, k.note(now() - 20, "stored 1"), k.note(now() - 10, "stored 2"));
            assertEquals(List.of(), sub.query("zero", FilterSpec.of().authors(k).limit(0)),
                    "limit 0 must send EOSE at once, without stored events");
            Event live = k.note(now(), "live");
            pub.publishAndWait(live).assertAccepted();
            assertSameEvent(live, sub.expectEvent("zero"));
        }
    }

    @Test
    void closeStopsDelivery() {
        Keys k = Keys.fresh();
        try (NostrClient sub = client(); NostrClient pub = client()) {
            sub.query("keep", FilterSpec.of().authors(k));
            sub.query("gone", FilterSpec.of().authors(k));
            sub.closeSub("gone");
            // a REQ after the CLOSE on the same connection: once it is answered, the CLOSE was handled
            sub.query("fence", FilterSpec.of().ids(Keys.fresh().note(0, "x").id().hex()));

            Event e = k.note(now(), "after close");
            pub.publishAndWait(e).assertAccepted();
            assertSameEvent(e, sub.expectEvent("keep"));
            sub.expectNoEvent("gone", QUIET);
        }
    }

    @Test
    void reusedSubscriptionIdReplacesTheOldFilters() {
        Keys k = Keys.fresh();
        Event storedNote = k.note(now() - 30, "stored note");
        Event storedReaction = k.sign(7, now() - 20, "+");
        try (NostrClient sub = client(); NostrClient pub = client()) {
            publishAll(pub, storedNote, storedReaction);
            assertIdsInOrder(sub.query("same", FilterSpec.of().authors(k).kinds(1)), storedNote);
            assertIdsInOrder(sub.query("same", FilterSpec.of().authors(k).kinds(7)), storedReaction);

            Event note = k.note(now(), "new note");
            Event reaction = k.sign(7, now(), "++");
            pub.publishAndWait(note).assertAccepted();
            pub.publishAndWait(reaction).assertAccepted();
            assertSameEvent(reaction, sub.expectEvent("same"));
            sub.expectNoEvent("same", QUIET); // the old kind-1 filter is gone
        }
    }

    @Test
    void replacingASubscriptionDuringItsStoredPhaseSendsNothingOfTheOldOne() {
        Keys k = Keys.fresh();
        long t = now() - 5000;
        List<Event> notes = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            notes.add(k.note(t + i, "bulk " + i));
        }
        Event reaction = k.sign(7, t, "+");
        try (NostrClient c = client()) {
            notes.forEach(c::publish); // pipelined
            c.publish(reaction);
            for (Event e : notes) {
                c.expectOk(e.id().hex()).assertAccepted();
            }
            c.expectOk(reaction.id().hex()).assertAccepted();

            c.req("swap", FilterSpec.of().authors(k).kinds(1).limit(400));
            c.req("swap", FilterSpec.of().authors(k).kinds(7));
            // legal: all or part of the old answer first (with or without its EOSE), then the new
            // answer; illegal: anything of the old filter once the new answer has begun
            boolean newStarted = false;
            int eoses = 0;
            while (true) {
                JsonNode m = c.take(n -> NostrClient.isFor(n, "swap", "EVENT", "EOSE", "CLOSED"), "swap");
                String verb = m.get(0).asText();
                assertFalse(verb.equals("CLOSED"), m.toString());
                if (verb.equals("EOSE")) {
                    eoses++;
                    if (newStarted || eoses == 2) {
                        break;
                    }
                    continue;
                }
                int kind = m.get(2).get("kind").asInt();
                if (kind == 7) {
                    newStarted = true;
                } else {
                    assertFalse(newStarted, "an event of the replaced filter arrived after the new answer began");
                }
            }
            assertTrue(newStarted, "the new filter's stored event never came");
            c.expectNone(n -> NostrClient.isFor(n, "swap", "EVENT", "EOSE"), QUIET, "more for the replaced subscription");
        }
    }

    @Test
    void supersededAndDuplicateEventsAreNotBroadcastAgain() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event newer = k.sign(0, t + 10, "{\"name\":\"newer\"}");
        Event older = k.sign(0, t, "{\"name\":\"older\"}");
        Event note = k.note(t, "once");
        try (NostrClient sub = client(); NostrClient pub = client()) {
            sub.query("once", FilterSpec.of().authors(k));
            pub.publishAndWait(newer).assertAccepted();
            pub.publishAndWait(note).assertAccepted();
            assertSameEvent(newer, sub.expectEvent("once"));
            assertSameEvent(note, sub.expectEvent("once"));
            pub.publishAndWait(older);
            pub.publishAndWait(note);
            sub.expectNoEvent("once", QUIET);
        }
    }

    @Test
    void eventsTooFarInTheFutureAreRefused() {
        long upper = info().path("limitation").path("created_at_upper_limit").asLong();
        assertTrue(upper > 0, "NIP-11 advertises created_at_upper_limit");
        Keys k = Keys.fresh();
        Event future = k.note(now() + upper + 120, "from the future");
        Event nearFuture = k.note(now() + Math.min(60, upper / 2), "slightly ahead");
        try (NostrClient c = client()) {
            NostrClient.Ok ok = c.publishAndWait(future);
            assertFalse(ok.accepted(), "created_at beyond the advertised upper limit: " + ok);
            c.publishAndWait(nearFuture).assertAccepted();
            assertIdSet(c.query("fut", FilterSpec.of().authors(k)), nearFuture);
        }
    }

    /** The "nothing more arrives" checks above are only worth something if they can fail. */
    @Test
    void quietChecksCatchAStrayEvent() {
        Keys k = Keys.fresh();
        try (NostrClient sub = client(); NostrClient pub = client()) {
            sub.query("stray", FilterSpec.of().authors(k));
            pub.publishAndWait(k.note(now(), "stray")).assertAccepted();
            AssertionError caught = null;
            try {
                sub.expectNoEvent("stray", Duration.ofSeconds(5));
            } catch (AssertionError e) {
                caught = e;
            }
            assertNotNull(caught, "expectNoEvent missed an event that was delivered");
        }
    }

    // ---------------------------------------------------------------- COUNT (NIP-45)

    @Test
    void countAnswersWithTheNumberOfMatchingEvents() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        try (NostrClient c = client()) {
            publishAll(c, k.note(t, "1"), k.note(t + 1, "2"), k.note(t + 2, "3"), k.sign(7, t + 3, "+"));
            assertEquals(3, c.countNow("c1", FilterSpec.of().authors(k).kinds(1)));
            assertEquals(4, c.countNow("c2", FilterSpec.of().authors(k)));
            // the union of overlapping filters, each event counted once; limit is ignored
            assertEquals(4, c.countNow("c3", FilterSpec.of().authors(k), FilterSpec.of().authors(k).kinds(1)));
            assertEquals(3, c.countNow("c4", FilterSpec.of().authors(k).kinds(1).limit(1)));
            assertEquals(0, c.countNow("c5", FilterSpec.of().authors(k).kinds(9)));
        }
    }

    // ---------------------------------------------------------------- event classes

    @Test
    void ephemeralEventsAreFannedOutButNotStored() {
        Keys k = Keys.fresh();
        Event eph = k.sign(20001, now(), "ephemeral");
        try (NostrClient sub = client(); NostrClient pub = client()) {
            sub.query("eph", FilterSpec.of().authors(k));
            pub.publishAndWait(eph).assertAccepted();
            assertSameEvent(eph, sub.expectEvent("eph"));
            assertEquals(List.of(), pub.query("stored", FilterSpec.of().ids(eph)));
            assertEquals(0, pub.countNow("cnt", FilterSpec.of().authors(k)));
        }
    }

    @Test
    void anEphemeralEventWithAnExpirationIsNotStored() {
        // NIP-40: "An expiration timestamp does not affect storage of ephemeral events" (storing near-expiring ones is
        // an operator's opt-in, fleetmesh.relay.ephemeral-persist-seconds, 0 by default)
        Keys k = Keys.fresh();
        Event eph = k.sign(24133, now(), "for a signer that reconnects", tag("expiration", Long.toString(now() + 120)));
        Event far = k.sign(20001, now(), "a day ahead", tag("expiration", Long.toString(now() + 86_400)));
        try (NostrClient sub = client(); NostrClient pub = client()) {
            sub.query("eph", FilterSpec.of().authors(k));
            pub.publishAndWait(eph).assertAccepted();
            pub.publishAndWait(far).assertAccepted();
            assertSameEvent(eph, sub.expectEvent("eph"));
            assertSameEvent(far, sub.expectEvent("eph"));
            sub.expectNoEvent("eph", QUIET); // each once
            assertEquals(List.of(), pub.query("stored", FilterSpec.of().authors(k)));
            assertEquals(0, pub.countNow("cnt", FilterSpec.of().authors(k)));
            NostrClient.Ok again = pub.publishAndWait(eph);
            assertTrue(again.accepted() && !again.message().startsWith("duplicate:"), again.toString());
        }
    }

    @Test
    void authKindSentAsEventIsRefusedAndNeverBroadcast() {
        Keys k = Keys.fresh();
        Event auth = k.sign(22242, now(), "", tag("relay", node.wsUri().toString()), tag("challenge", "abc"));
        try (NostrClient sub = client(); NostrClient pub = client()) {
            sub.query("auth", FilterSpec.of().authors(k));
            sub.query("authkind", FilterSpec.of().kinds(22242));
            NostrClient.Ok ok = pub.publishAndWait(auth);
            assertFalse(ok.accepted(), "kind 22242 as EVENT must be refused: " + ok);
            sub.expectNoEvent("auth", QUIET);
            sub.expectNoEvent("authkind", Duration.ZERO);
            assertEquals(List.of(), pub.query("stored", FilterSpec.of().ids(auth)));
        }
    }

    @Test
    void replaceableKindsKeepOnlyTheNewest() {
        for (int kind : new int[] { 0, 10002 }) {
            Keys k = Keys.fresh();
            long t = now() - 100;
            Event v1 = k.sign(kind, t, "v1"), v2 = k.sign(kind, t + 10, "v2"), older = k.sign(kind, t - 10, "older");
            try (NostrClient c = client()) {
                publishAll(c, v1, v2);
                assertIdsInOrder(c.query("r" + kind, FilterSpec.of().authors(k).kinds(kind)), v2);
                NostrClient.Ok ok = c.publishAndWait(older);
                assertTrue(ok.accepted() && ok.message().startsWith("duplicate:"),
                        "an older version is answered OK true \"duplicate: ...\" and not stored: " + ok);
                assertIdsInOrder(c.query("r" + kind + "b", FilterSpec.of().authors(k).kinds(kind)), v2);
                assertEquals(1, c.countNow("rc" + kind, FilterSpec.of().authors(k).kinds(kind)));
            }
        }
    }

    @Test
    void replaceableEqualTimestampKeepsTheLowestId() {
        for (int kind : new int[] { 0, 10002 }) {
            for (boolean lowFirst : new boolean[] { true, false }) {
                Keys k = Keys.fresh();
                long t = now() - 50;
                Event a = k.sign(kind, t, "one"), b = k.sign(kind, t, "two");
                Event low = a.id().hex().compareTo(b.id().hex()) < 0 ? a : b;
                Event high = low == a ? b : a;
                try (NostrClient c = client()) {
                    publishAll(c, lowFirst ? low : high);
                    c.publishAndWait(lowFirst ? high : low);
                    assertIdsInOrder(c.query("eq", FilterSpec.of().authors(k).kinds(kind)), low);
                }
            }
        }
    }

    @Test
    void addressableKindsReplacePerDTag() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event a1 = k.sign(30023, t, "a v1", tag("d", "a")), a2 = k.sign(30023, t + 10, "a v2", tag("d", "a"));
        Event b1 = k.sign(30023, t, "b v1", tag("d", "b"));
        Event otherKind = k.sign(30024, t, "draft a", tag("d", "a"));
        Event aOld = k.sign(30023, t - 5, "a old", tag("d", "a"));
        try (NostrClient c = client()) {
            publishAll(c, a1, b1, a2, otherKind);
            assertIdSet(c.query("ad", FilterSpec.of().authors(k).kinds(30023)), a2, b1);
            assertIdSet(c.query("ad2", FilterSpec.of().authors(k).kinds(30023).tag('d', "a")), a2);
            assertIdSet(c.query("ad3", FilterSpec.of().authors(k).kinds(30024)), otherKind);
            NostrClient.Ok ok = c.publishAndWait(aOld);
            assertTrue(ok.accepted() && ok.message().startsWith("duplicate:"), "older version: " + ok);
            assertIdSet(c.query("ad4", FilterSpec.of().authors(k).kinds(30023).tag('d', "a")), a2);

            // equal created_at: the lowest id stays, whichever arrives first
            for (boolean lowFirst : new boolean[] { true, false }) {
                String d = lowFirst ? "tie-low-first" : "tie-high-first";
                Event x = k.sign(30023, t, "x", tag("d", d)), y = k.sign(30023, t, "y", tag("d", d));
                Event low = x.id().hex().compareTo(y.id().hex()) < 0 ? x : y;
                Event high = low == x ? y : x;
                publishAll(c, lowFirst ? low : high);
                c.publishAndWait(lowFirst ? high : low);
                assertIdsInOrder(c.query("tie", FilterSpec.of().authors(k).kinds(30023).tag('d', d)), low);
            }
        }
    }

    // ---------------------------------------------------------------- a full disk

    /** Below fleetmesh.relay.min-free-disk-bytes the relay takes no new event but deletions, and still serves reads. */
    @Test
    void belowItsDiskFloorTheRelayTakesOnlyDeletions() {
        // a floor above any disk's free space: the node is "full" from the start
        try (MeshnodeProcess full = MeshnodeProcess.start("disk-floor", Map.of("FLEETMESH_RELAY_MIN_FREE_DISK_BYTES",
                Long.toString(Long.MAX_VALUE / 2)))) {
            Keys k = Keys.fresh();
            long t = now() - 100;
            Event note = k.note(t, "no room for this");
            try (NostrClient c = NostrClient.connect(full)) {
                NostrClient.Ok ok = c.publishAndWait(note).assertRefused("error: the relay's disk is nearly full (");
                assertTrue(ok.message().endsWith("it takes no new events now, only deletions"), ok.message());
                c.publishAndWait(k.sign(5, t + 1, "", tag("e", note.id().hex()))).assertAccepted();
                c.publishAndWait(k.sign(20001, t + 2, "typing")).assertAccepted();
                assertEquals(List.of(), c.query("none", FilterSpec.of().ids(note)), "reads are served");
                assertEquals(1, c.query("del", FilterSpec.of().authors(k).kinds(5)).size());
            }
            Metrics m = Metrics.scrape(full);
            // the client's note, and whatever the node itself tried to store (its own announcements)
            assertTrue(m.value("fleetmesh_relay_disk_refused_total") >= 1.0, m.text());
            assertTrue(m.value("fleetmesh_relay_disk_free_bytes") > 0, m.text());
        }
    }

    // ---------------------------------------------------------------- NIP-09 deletion

    @Test
    void deletionByETagRemovesOwnEventsAndStaysVisible() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event a = k.note(t, "regret"), b = k.note(t + 1, "keep");
        Event deletion = k.sign(5, t + 2, "oops", tag("e", a.id().hex()), tag("k", "1"));
        try (NostrClient c = client()) {
            publishAll(c, a, b);
            c.publishAndWait(deletion).assertAccepted();
            assertEquals(List.of(), c.query("gone", FilterSpec.of().ids(a)));
            assertIdSet(c.query("all", FilterSpec.of().authors(k)), b, deletion);
            assertIdSet(c.query("del", FilterSpec.of().authors(k).kinds(5)), deletion);
            assertEquals(0, c.countNow("cnt", FilterSpec.of().ids(a)));

            c.publishAndWait(a).assertRefused("blocked:");
            assertEquals(List.of(), c.query("still-gone", FilterSpec.of().ids(a)));
        }
    }

    @Test
    void deletionByATagRemovesAddressableVersionsUpToItsTime() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event v1 = k.sign(30023, t, "v1", tag("d", "doc"));
        Event other = k.sign(30023, t, "other", tag("d", "other-doc"));
        Event deletion = k.sign(5, t + 10, "", tag("a", "30023:" + k.pubkey() + ":doc"), tag("k", "30023"));
        Event beforeDeletion = k.sign(30023, t + 5, "v2, older than the deletion", tag("d", "doc"));
        Event afterDeletion = k.sign(30023, t + 20, "v3, newer than the deletion", tag("d", "doc"));
        try (NostrClient c = client()) {
            publishAll(c, v1, other);
            c.publishAndWait(deletion).assertAccepted();
            assertEquals(List.of(), c.query("gone", FilterSpec.of().authors(k).kinds(30023).tag('d', "doc")));
            assertIdSet(c.query("other", FilterSpec.of().authors(k).kinds(30023)), other);
            assertIdSet(c.query("del", FilterSpec.of().authors(k).kinds(5)), deletion);

            c.publishAndWait(v1).assertRefused("blocked:");
            c.publishAndWait(beforeDeletion).assertRefused("blocked:");
            assertEquals(List.of(), c.query("gone2", FilterSpec.of().authors(k).kinds(30023).tag('d', "doc")));

            c.publishAndWait(afterDeletion).assertAccepted();
            assertIdSet(c.query("newer", FilterSpec.of().authors(k).kinds(30023).tag('d', "doc")), afterDeletion);
        }
    }

    @Test
    void deletionByATagCoversReplaceableKindsWithAnEmptyD() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event relays = k.sign(10002, t, "", tag("r", "wss://relay.example"));
        Event deletion = k.sign(5, t + 10, "", tag("a", "10002:" + k.pubkey() + ":"));
        Event newer = k.sign(10002, t + 20, "", tag("r", "wss://other.example"));
        try (NostrClient c = client()) {
            publishAll(c, relays);
            c.publishAndWait(deletion).assertAccepted();
            assertEquals(List.of(), c.query("rl", FilterSpec.of().authors(k).kinds(10002)));
            c.publishAndWait(newer).assertAccepted();
            assertIdSet(c.query("rl2", FilterSpec.of().authors(k).kinds(10002)), newer);
        }
    }

    @Test
    void someoneElsesDeletionDoesNothing() {
        Keys owner = Keys.fresh(), stranger = Keys.fresh();
        long t = now() - 100;
        Event note = owner.note(t, "mine");
        Event doc = owner.sign(30023, t, "my doc", tag("d", "doc"));
        Event deletion = stranger.sign(5, t + 10, "", tag("e", note.id().hex()),
                tag("a", "30023:" + owner.pubkey() + ":doc"));
        try (NostrClient c = client()) {
            publishAll(c, note, doc);
            c.publishAndWait(deletion); // may be stored or refused; it must not delete anything
            assertIdSet(c.query("still", FilterSpec.of().authors(owner)), note, doc);
            NostrClient.Ok again = c.publishAndWait(note);
            assertTrue(again.accepted(), "the owner's event was not deleted, so it is a plain duplicate: " + again);
        }
    }

    @Test
    void deletionThatArrivesFirstBlocksOnlyTheAuthorsEvent() {
        Keys owner = Keys.fresh(), stranger = Keys.fresh();
        long t = now() - 100;
        Event mine = owner.note(t, "deleted before it arrived");
        Event theirs = owner.note(t + 1, "a stranger tried to delete this in advance");
        Event ownDeletion = owner.sign(5, t + 5, "", tag("e", mine.id().hex()));
        Event strangerDeletion = stranger.sign(5, t + 5, "", tag("e", theirs.id().hex()));
        try (NostrClient c = client()) {
            publishAll(c, ownDeletion);
            c.publishAndWait(strangerDeletion);
            c.publishAndWait(mine).assertRefused("blocked:");
            c.publishAndWait(theirs).assertAccepted();
            assertIdSet(c.query("pre", FilterSpec.of().authors(owner)), ownDeletion, theirs);
        }
    }

    @Test
    void deletingADeletionHasNoEffect() {
        Keys k = Keys.fresh();
        long t = now() - 100;
        Event note = k.note(t, "deleted");
        Event deletion = k.sign(5, t + 1, "", tag("e", note.id().hex()));
        Event undo = k.sign(5, t + 2, "undo", tag("e", deletion.id().hex()));
        try (NostrClient c = client()) {
            publishAll(c, note, deletion);
            c.publishAndWait(undo);
            assertIdSet(c.query("dd", FilterSpec.of().ids(deletion)), deletion);
            assertEquals(List.of(), c.query("dn", FilterSpec.of().ids(note)));
            c.publishAndWait(note).assertRefused("blocked:");
        }
    }

    // ---------------------------------------------------------------- NIP-40 expiration

    @Test
    void alreadyExpiredEventIsRefused() {
        Keys k = Keys.fresh();
        Event e = k.note(now() - 20, "expired", tag("expiration", Long.toString(now() - 10)));
        try (NostrClient c = client()) {
            NostrClient.Ok ok = c.publishAndWait(e);
            assertFalse(ok.accepted(), "an expired event must be refused: " + ok);
            assertEquals(List.of(), c.query("exp", FilterSpec.of().ids(e)));
        }
    }

    @Test
    void expiringEventIsServedUntilItExpires() {
        Keys k = Keys.fresh();
        // far enough ahead that a cold or loaded node still stores and serves it before it expires
        long expiration = now() + 10;
        Event e = k.note(now(), "short-lived", tag("expiration", Long.toString(expiration)));
        try (NostrClient c = client()) {
            c.publishAndWait(e).assertAccepted();
            assertIdsInOrder(c.query("before", FilterSpec.of().ids(e)), e);
            while (now() <= expiration) {
                MeshnodeProcess.sleep(200);
            }
            assertEquals(List.of(), c.query("after", FilterSpec.of().ids(e)), "an expired event must not be served");
            assertEquals(0, c.countNow("afterc", FilterSpec.of().ids(e)));
        }
    }

    // ---------------------------------------------------------------- NIP-70 protected events

    @Test
    void protectedEventIsRefusedWithoutAuth() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "protected", tag("-"));
        try (NostrClient c = client()) {
            c.publishAndWait(e).assertRefused("auth-required:");
            assertEquals(List.of(), c.query("prot", FilterSpec.of().ids(e)));
        }
    }

    // ---------------------------------------------------------------- refusals

    @Test
    void refusedReqAndCountGetClosedWithTheSubscriptionId() {
        try (NostrClient c = client()) {
            c.sendMessage("REQ", "badkinds", NostrClient.filter("{\"kinds\":\"1\"}"));
            assertTrue(c.expectClosed("badkinds").startsWith("invalid:"));

            c.sendMessage("REQ", "badfield", NostrClient.filter("{\"colour\":[\"red\"]}"));
            assertTrue(c.expectClosed("badfield").startsWith("invalid:"));

            c.sendMessage("REQ", "badids", NostrClient.filter("{\"ids\":[\"not-hex\"]}"));
            assertTrue(c.expectClosed("badids").startsWith("invalid:"));

            int max = info().path("limitation").path("max_filters").asInt(16);
            FilterSpec[] tooMany = new FilterSpec[max + 1];
            for (int i = 0; i < tooMany.length; i++) {
                tooMany[i] = FilterSpec.of().kinds(i);
            }
            c.req("toomany", tooMany);
            assertTrue(c.expectClosed("toomany").startsWith("invalid:"));

            c.sendMessage("COUNT", "badcount", NostrClient.filter("{\"since\":-1}"));
            assertTrue(c.expectClosed("badcount").startsWith("invalid:"));

            // the connection still works
            assertEquals(List.of(), c.query("ok", FilterSpec.of().authors(Keys.fresh())));
        }
    }

    @Test
    void tooManySubscriptionsGetClosed() {
        int max = info().path("limitation").path("max_subscriptions").asInt();
        assertTrue(max > 0);
        Keys k = Keys.fresh();
        try (NostrClient c = client()) {
            for (int i = 0; i < max; i++) {
                c.query("s" + i, FilterSpec.of().authors(k));
            }
            c.req("one-too-many", FilterSpec.of().authors(k));
            String reason = c.expectClosed("one-too-many");
            assertTrue(reason.startsWith("rate-limited:"), reason);
            // reusing an open id is still allowed at the limit
            c.query("s0", FilterSpec.of().authors(k).kinds(1));
        }
    }

    // ---------------------------------------------------------------- NIP-11

    private static HttpResponse<String> nip11() {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(node.httpUri())
                    .header("Accept", "application/nostr+json").timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError("NIP-11 request failed", e);
        }
    }

    private static JsonNode info() {
        return NostrClient.tree(nip11().body());
    }

    @Test
    void nip11DocumentDescribesTheRelay() {
        HttpResponse<String> r = nip11();
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/nostr+json"),
                "content type: " + r.headers().firstValue("Content-Type"));
        JsonNode doc = NostrClient.tree(r.body());
        assertEquals(RELAY_NAME, doc.path("name").asText());
        assertFalse(doc.path("description").asText().isEmpty());
        assertEquals(OPERATOR_PUBKEY, doc.path("pubkey").asText(), "pubkey is the operator's contact");
        Set<Integer> nips = new HashSet<>();
        doc.path("supported_nips").forEach(n -> nips.add(n.asInt()));
        for (int nip : new int[] { 1, 9, 11, 40, 42, 45, 66, 70 }) {
            assertTrue(nips.contains(nip), "supported_nips lacks " + nip + ": " + nips);
        }
        assertEquals(SOFTWARE, doc.path("software").asText(), "software is the configured URL");
        assertTrue(doc.path("version").isTextual());
        JsonNode lim = doc.path("limitation");
        assertEquals(524288, lim.path("max_message_length").asInt());
        assertEquals(64, lim.path("max_subid_length").asInt());
        assertTrue(lim.path("max_filters").asInt() >= 1);
        assertTrue(lim.path("max_limit").asInt() >= 1);
        assertFalse(lim.path("auth_required").asBoolean(true));
        assertFalse(lim.path("payment_required").asBoolean(true));
    }

    @Test
    void nip11HasTheThreeCorsHeaders() throws Exception {
        HttpResponse<String> get = nip11();
        assertCors(get);
        HttpResponse<String> preflight = HttpClient.newHttpClient().send(HttpRequest.newBuilder(node.httpUri())
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://client.example")
                .header("Access-Control-Request-Method", "GET")
                .header("Access-Control-Request-Headers", "accept")
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(204, preflight.statusCode(), "preflight status");
        assertCors(preflight);
    }

    private static void assertCors(HttpResponse<?> r) {
        for (String h : new String[] { "Access-Control-Allow-Origin", "Access-Control-Allow-Headers",
                "Access-Control-Allow-Methods" }) {
            assertTrue(r.headers().firstValue(h).filter(v -> !v.isBlank()).isPresent(),
                    "missing " + h + " on " + r.request().method() + ": " + r.headers().map());
        }
        assertEquals("*", r.headers().firstValue("Access-Control-Allow-Origin").orElseThrow());
        assertTrue(r.headers().firstValue("Access-Control-Allow-Methods").orElseThrow().contains("GET"));
    }

    @Test
    void nip11SelfIsTheNodesOwnPubkey() {
        JsonNode doc = info();
        JsonNode self = doc.get("self");
        assertNotNull(self, "NIP-11 `self` (the node's own nostr pubkey) is missing: " + doc);
        assertTrue(self.asText().matches("[0-9a-f]{64}"), "self: " + self);
        assertFalse(self.asText().equals(OPERATOR_PUBKEY), "`self` is the node's key, `pubkey` the operator's");
    }
}
