package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ingest seam driven from plain Java, as the CLI and peer links use it. */
class IngestTest {
    static final long NOW = 1_700_000_000L;
    final byte[] key = Schnorr.newSecretKey();
    final PubKey author = new PubKey(Schnorr.publicKey(key));
    final MemoryStore store = new MemoryStore();
    final List<Event> fannedOut = new CopyOnWriteArrayList<>();
    Ingest ingest;

    @AfterEach
    void stop() {
        if (ingest != null) {
            ingest.close();
        }
    }

    Ingest open(Ingest.FanOutSink sink) {
        ingest = new Ingest(store, RelayLimits.DEFAULT, RelayPolicy.OPEN, () -> NOW, sink);
        return ingest;
    }

    Ingest.FanOutSink recording() {
        return new Ingest.FanOutSink() {
            @Override
            public void committed(List<Event> events) {
                fannedOut.addAll(events);
            }

            @Override
            public boolean ephemeral(Event event) {
                fannedOut.add(event);
                return true;
            }
        };
    }

    Event note(String content, List<List<String>> tags) {
        return Events.sign(key, NOW, 1, tags, content);
    }

    static List<Ingest.Outcome> await(java.util.concurrent.CompletionStage<List<Ingest.Outcome>> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void everyEventOfABatchGetsOneOutcomeInOrder() throws Exception {
        open(recording());
        Event good = note("good", List.of());
        Event forged = new org.fleetmesh.nostr.MessageParser(new org.fleetmesh.nostr.MessageParser.Limits(16, 5000, 2500, 1000))
                .parseEvent(note("original", List.of()).json().replace("original", "forged!!"));
        Event auth = Events.sign(key, NOW, 22242, List.of(List.of("challenge", "x")), "");
        Event eph = Events.sign(key, NOW, 20001, List.of(), "typing");
        List<Ingest.Outcome> out = await(ingest.submit(List.of(good, forged, good, auth, eph), new Origin.Peer("did:key:z6Mk")));
        assertEquals(5, out.size());
        assertEquals(new Ingest.Outcome(good.id(), Ingest.Status.ACCEPTED, ""), out.get(0));
        assertEquals(Ingest.Status.REFUSED, out.get(1).status());
        assertEquals("invalid: event id does not match the canonical serialization", out.get(1).reason());
        assertEquals(Ingest.Status.DUPLICATE, out.get(2).status(), "the second copy in one batch");
        assertTrue(out.get(2).accepted());
        assertTrue(out.get(2).okMessage().startsWith("[\"OK\",\"" + good.id().hex() + "\",true,\"duplicate:"), out.get(2).okMessage());
        assertTrue(out.get(3).reason().startsWith("invalid: kind 22242"), out.get(3).reason());
        assertEquals(Ingest.Status.ACCEPTED, out.get(4).status());
        assertEquals(List.of(good), store.events, "the ephemeral event and kind 22242 are never stored");
        assertTrue(fannedOut.contains(good) && fannedOut.contains(eph) && !fannedOut.contains(auth), fannedOut.toString());
        assertEquals(List.of(eph), store.announced);
    }

    @Test
    void aFailingStoreAnswersEveryEventOnceAsRefused() throws Exception {
        open(recording());
        store.failSaves = true;
        List<Event> batch = List.of(note("a", List.of()), note("b", List.of()));
        List<Ingest.Outcome> out = await(ingest.submit(batch, new Origin.Import()));
        assertEquals(2, out.size());
        for (Ingest.Outcome o : out) {
            assertEquals(Ingest.Status.REFUSED, o.status());
            assertEquals("error: could not store the event", o.reason());
        }
        assertTrue(fannedOut.isEmpty());
    }

    @Test
    void aFanOutThatThrowsDoesNotTurnCommittedEventsIntoFailures() throws Exception {
        open(new Ingest.FanOutSink() {
            @Override
            public void committed(List<Event> events) {
                throw new IllegalStateException("simulated fan-out failure");
            }

            @Override
            public boolean ephemeral(Event event) {
                return true;
            }
        });
        List<Event> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(note("n" + i, List.of()));
        }
        List<Ingest.Outcome> out = await(ingest.submit(batch, new Origin.Sync("wss://other.example/")));
        for (Ingest.Outcome o : out) {
            assertEquals(Ingest.Status.ACCEPTED, o.status(), o.toString());
        }
        assertEquals(20, store.events.size());
        // the writer survives and goes on
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(note("after", List.of())), new Origin.Import())).get(0).status());
    }

    @Test
    void onlyClientsAreHeldToTheWriteGates() throws Exception {
        ingest = new Ingest(store, RelayLimits.DEFAULT, new RelayPolicy(false, true, java.util.Optional.empty(), 600), () -> NOW,
                Ingest.FanOutSink.NONE);
        Event plain = note("plain", List.of());
        Event prot = note("protected", List.of(List.of("-")));
        Ingest.Outcome anon = await(ingest.submit(List.of(plain), new Origin.Client("c1", Set.of()))).get(0);
        assertTrue(anon.reason().startsWith("auth-required:"), anon.reason());
        PubKey other = new PubKey(Schnorr.publicKey(Schnorr.newSecretKey()));
        Ingest.Outcome notAuthor = await(ingest.submit(List.of(prot), new Origin.Client("c1", Set.of(other)))).get(0);
        assertTrue(notAuthor.reason().startsWith("restricted:"), notAuthor.reason());
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(prot), new Origin.Client("c1", Set.of(author)))).get(0).status());
        // a peer or the operator stands in for the author: NIP-70 is the client gate
        Event prot2 = note("protected 2", List.of(List.of("-")));
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(prot2), new Origin.Peer("did:key:z6Mk"))).get(0).status());
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(plain), new Origin.Import())).get(0).status());
    }

    /** NIP-70: a repost (kind 6 or 16) that embeds a protected event is refused; one that only points at it is not. */
    @Test
    void aRepostEmbeddingAProtectedEventIsRefused() throws Exception {
        open(Ingest.FanOutSink.NONE);
        Event prot = note("protected", List.of(List.of("-")));
        Event plain = note("plain", List.of());
        byte[] reposter = Schnorr.newSecretKey();
        List<List<String>> pointing = List.of(List.of("e", prot.id().hex()), List.of("p", author.hex()));
        Origin.Client client = new Origin.Client("c1", Set.of());
        for (int kind : new int[] {6, 16}) {
            Event embeds = Events.sign(reposter, NOW, kind, pointing, prot.json());
            Ingest.Outcome o = await(ingest.submit(List.of(embeds), client)).get(0);
            assertEquals("blocked: a repost of a protected event (NIP-70) must not embed it", o.reason(), "kind " + kind);
            Event points = Events.sign(reposter, NOW + 1, kind, pointing, "");
            assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(points), client)).get(0).status());
            Event embedsPlain = Events.sign(reposter, NOW + 2, kind, pointing, plain.json());
            assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(embedsPlain), client)).get(0).status());
        }
        Event noteQuoting = Events.sign(reposter, NOW + 3, 1, List.of(), prot.json());
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(noteQuoting), client)).get(0).status(),
                "only reposts are held to it");
    }

    @Test
    void belowTheDiskFloorOnlyDeletionsAndEphemeralEventsAreTaken() throws Exception {
        open(recording());
        long[] free = {100L << 20};
        long[] clock = {0};
        ingest.diskFloor(new org.fleetmesh.relay.capacity.DiskFloor(64L << 20, () -> free[0], 1_000_000_000L,
                () -> clock[0]));
        Origin.Client client = new Origin.Client("c1", Set.of());
        Event first = note("room", List.of());
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(first), client)).get(0).status());
        free[0] = 10L << 20;
        Event second = note("no room", List.of());
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(second), client)).get(0).status(),
                "read at most once a second");
        clock[0] += 1_000_000_000L;
        for (Origin o : List.<Origin>of(client, new Origin.Import())) {
            Ingest.Outcome refused = await(ingest.submit(List.of(note("full " + o, List.of())), o)).get(0);
            assertEquals(Ingest.Status.REFUSED, refused.status(), o.toString());
            assertEquals("error: the relay's disk is nearly full (10 MiB free, it keeps 64 MiB); it takes no new events "
                    + "now, only deletions", refused.reason());
        }
        Event deletion = Events.sign(key, NOW, 5, List.of(List.of("e", first.id().hex())), "");
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(deletion), client)).get(0).status());
        Event eph = Events.sign(key, NOW, 20001, List.of(), "typing");
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(eph), client)).get(0).status());
        assertEquals(2, ingest.diskFloor().refused());
        free[0] = 65L << 20;
        clock[0] += 1_000_000_000L;
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(note("room again", List.of())), client)).get(0)
                .status());
    }

    @Test
    void importAndSyncRefuseEphemeralEvents() throws Exception {
        open(recording());
        Event eph = Events.sign(key, NOW, 20001, List.of(), "typing");
        for (Origin bulk : List.of(new Origin.Import(), new Origin.Sync("ws://127.0.0.1:1/"))) {
            Ingest.Outcome o = await(ingest.submit(List.of(eph), bulk)).get(0);
            assertEquals("invalid: ephemeral events are not stored (NIP-01)", o.reason(), "from " + bulk);
        }
        assertTrue(fannedOut.isEmpty());
    }

    /**
     * NIP-40: "An expiration timestamp does not affect storage of ephemeral events"; NIP-01: ephemeral events "are not
     * expected to be stored by relays". By default none is stored, however near its expiration.
     */
    @Test
    void byDefaultAnEphemeralEventIsNotStoredWhateverItsExpiration() throws Exception {
        open(recording());
        Event near = Events.sign(key, NOW, 24133, List.of(List.of("expiration", Long.toString(NOW + 60))), "in a minute");
        Origin.Client client = new Origin.Client("c1", Set.of());
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(near), client)).get(0).status());
        assertTrue(store.events.isEmpty(), "nothing stored");
        assertEquals(List.of(near), store.announced, "only routed live (and to siblings)");
        assertTrue(fannedOut.contains(near));
        assertEquals("invalid: ephemeral events are not stored (NIP-01)",
                await(ingest.submit(List.of(near), new Origin.Import())).get(0).reason());
    }

    @Test
    void anEphemeralEventWithANearExpirationIsStoredUntilThenAndTheRestOnlyGoLive() throws Exception {
        // beyond the NIPs, when the operator sets fleetmesh.relay.ephemeral-persist-seconds (here: 3600 s ahead at most)
        RelayLimits l = RelayLimits.DEFAULT;
        RelayLimits hour = new RelayLimits(l.maxMessageLength(), l.maxSubscriptions(), l.maxFilters(), l.maxLimit(),
                l.defaultLimit(), l.maxEventTags(), l.maxContentLength(), l.createdAtUpperSkew(), l.createdAtLowerSkew(),
                l.sendQueueBytes(), l.writeQueueEvents(), l.negMaxItems(), l.negFrameSizeLimit(), l.negIdleSeconds(),
                l.maxInflightQueries(), l.negMaxSessions(), l.negMaxSessionsTotal(), l.negMaxItemsTotal(),
                l.fanOutQueueEvents(), l.maxHeldBackEvents(), 3600);
        ingest = new Ingest(store, hour, RelayPolicy.OPEN, () -> NOW, recording());
        Event near = Events.sign(key, NOW, 24133, List.of(List.of("expiration", Long.toString(NOW + 60))), "in a minute");
        Event edge = Events.sign(key, NOW, 20001, List.of(List.of("expiration", Long.toString(NOW + 3600))), "an hour");
        Event far = Events.sign(key, NOW, 20001, List.of(List.of("expiration", Long.toString(NOW + 3601))), "too far");
        Event none = Events.sign(key, NOW, 20001, List.of(), "no expiration");
        Event junk = Events.sign(key, NOW, 20001, List.of(List.of("expiration", "soon")), "not a number");
        Origin.Client client = new Origin.Client("c1", Set.of());
        List<Ingest.Outcome> out = await(ingest.submit(List.of(near, edge, far, none, junk), client));
        for (Ingest.Outcome o : out) {
            assertEquals(Ingest.Status.ACCEPTED, o.status(), o.toString());
        }
        assertEquals(List.of(near, edge), store.events, "stored: the two expiring within the hour");
        assertEquals(List.of(far, none, junk), store.announced, "the rest only routed live (and to siblings)");
        assertTrue(fannedOut.containsAll(List.of(near, edge, far, none, junk)), "every one reaches live subscribers");
        assertEquals(Ingest.Status.DUPLICATE, await(ingest.submit(List.of(near), client)).get(0).status(),
                "a stored one sent again is a duplicate");
        // import and sync take the stored kind too
        Event later = Events.sign(key, NOW, 20002, List.of(List.of("expiration", Long.toString(NOW + 10))), "x");
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(later), new Origin.Import())).get(0).status());
        assertTrue(store.events.contains(later));
    }

    @Test
    void noEphemeralEventIsStoredWhenPersistenceIsOff() throws Exception {
        RelayLimits l = RelayLimits.DEFAULT;
        RelayLimits off = new RelayLimits(l.maxMessageLength(), l.maxSubscriptions(), l.maxFilters(), l.maxLimit(),
                l.defaultLimit(), l.maxEventTags(), l.maxContentLength(), l.createdAtUpperSkew(), l.createdAtLowerSkew(),
                l.sendQueueBytes(), l.writeQueueEvents(), l.negMaxItems(), l.negFrameSizeLimit(), l.negIdleSeconds(),
                l.maxInflightQueries(), l.negMaxSessions(), l.negMaxSessionsTotal(), l.negMaxItemsTotal(),
                l.fanOutQueueEvents(), l.maxHeldBackEvents(), 0);
        ingest = new Ingest(store, off, RelayPolicy.OPEN, () -> NOW, recording());
        Origin.Client client = new Origin.Client("c1", Set.of());
        Event near = Events.sign(key, NOW, 24133, List.of(List.of("expiration", Long.toString(NOW + 60))), "in a minute");
        assertEquals(Ingest.Status.ACCEPTED, await(ingest.submit(List.of(near), client)).get(0).status());
        assertTrue(store.events.isEmpty());
        assertEquals(List.of(near), store.announced);
    }

    @Test
    void listenersLearnEachBatchWithItsOriginAndOutcomes() throws Exception {
        open(recording());
        List<Object[]> seen = new CopyOnWriteArrayList<>();
        ingest.addListener((origin, batch, outcomes) -> seen.add(new Object[] { origin, batch, outcomes }));
        Event a = note("a", List.of());
        Origin peer = new Origin.Peer("did:key:z6MkPeer");
        List<Ingest.Outcome> out = await(ingest.submit(List.of(a, a), peer));
        assertEquals(1, seen.size());
        assertEquals(peer, seen.get(0)[0]);
        assertEquals(List.of(a, a), seen.get(0)[1]);
        assertEquals(out, seen.get(0)[2]);
        assertEquals(List.of(), await(ingest.submit(List.of(), peer)));
    }

    @Test
    void aFullWriteQueueRefusesWithRateLimited() throws Exception {
        RelayLimits l = RelayLimits.DEFAULT;
        RelayLimits tiny = new RelayLimits(l.maxMessageLength(), l.maxSubscriptions(), l.maxFilters(), l.maxLimit(),
                l.defaultLimit(), l.maxEventTags(), l.maxContentLength(), l.createdAtUpperSkew(), l.createdAtLowerSkew(),
                l.sendQueueBytes(), 2, l.negMaxItems(), l.negFrameSizeLimit(), l.negIdleSeconds());
        ingest = new Ingest(store, tiny, RelayPolicy.OPEN, () -> NOW, Ingest.FanOutSink.NONE);
        store.saveStarted = new java.util.concurrent.CountDownLatch(1);
        store.releaseSave = new java.util.concurrent.CountDownLatch(1);
        Event first = note("first", List.of());
        var firstDone = ingest.submit(List.of(first), new Origin.Import());
        assertTrue(store.saveStarted.await(10, TimeUnit.SECONDS), "the writer holds the first event");
        List<Event> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(note("n" + i, List.of()));
        }
        var rest = ingest.submit(batch, new Origin.Import());
        store.releaseSave.countDown();
        store.releaseSave = null;
        assertEquals(Ingest.Status.ACCEPTED, await(firstDone).get(0).status());
        List<Ingest.Outcome> out = await(rest);
        assertEquals(List.of(Ingest.Status.ACCEPTED, Ingest.Status.ACCEPTED, Ingest.Status.REFUSED, Ingest.Status.REFUSED,
                Ingest.Status.REFUSED), out.stream().map(Ingest.Outcome::status).toList(), "two fit the queue of 2");
        assertTrue(out.get(4).reason().startsWith("rate-limited:"), out.get(4).reason());
        assertEquals(3, store.events.size());
    }
}
