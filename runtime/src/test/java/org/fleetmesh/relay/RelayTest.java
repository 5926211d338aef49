package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The relay core driven without sockets, message by message. */
class RelayTest {
    static final long NOW = 1_700_000_000L;
    final byte[] key = Schnorr.newSecretKey();
    MemoryStore store;
    Relay relay;
    Client client;

    static class Client implements Connection {
        final LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
        final String id;
        volatile boolean refuse;

        String challenge;
        volatile String address;
        volatile String closedWith;

        Client(String id) {
            this.id = id;
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public void close(int code, String reason) {
            closedWith = code + " " + reason;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String host() {
            return "relay.test:7777";
        }

        @Override
        public boolean send(String text) {
            if (refuse) {
                return false;
            }
            received.add(text);
            return true;
        }

        String next() throws InterruptedException {
            String m = received.poll(5, TimeUnit.SECONDS);
            assertNotNull(m, "expected a message from the relay");
            return m;
        }

        /** Nothing queued right now; call it only behind an ordering barrier (a later message that arrived). */
        void assertNothingQueued() {
            assertNull(received.peek(), "nothing may have arrived");
        }
    }

    @BeforeEach
    void start() throws Exception {
        startWith(RelayPolicy.OPEN);
    }

    void startWith(RelayPolicy policy) throws Exception {
        if (relay != null) {
            relay.close();
        }
        store = new MemoryStore();
        RelayLimits l = RelayLimits.DEFAULT;
        // 4 queries in flight per connection, 3 NIP-77 sessions per connection and 5 in all, 60 snapshot items in all,
        // 1000 events queued for fan-out, 5 held back per subscription
        RelayLimits small = new RelayLimits(4096, 3, 4, 100, 50, l.maxEventTags(), 1000, 900, 0, l.sendQueueBytes(),
                l.writeQueueEvents(), 50, 4096, 60).withResourceBounds(4, 3, 5, 60, 1000, 5);
        relay = new Relay(store, small, policy, 2, () -> NOW);
        client = connect("c1");
    }

    @AfterEach
    void stop() {
        relay.close();
    }

    /** Connects and takes the NIP-42 challenge every connection gets first. */
    Client connect(String id) {
        Client c = new Client(id);
        relay.opened(c);
        String auth = c.received.poll();
        assertNotNull(auth);
        assertTrue(auth.matches("\\[\"AUTH\",\"[0-9a-f]{32}\"\\]"), auth);
        c.challenge = auth.substring(9, 41);
        return c;
    }

    /**
     * The node stopping: an event taken before is committed and answered first; then every client is closed with 1001
     * and the reason, an event sent after is refused, and a connection opened later is closed as it opens.
     */
    @Test
    void goingAwayAnswersWhatItTookThenClosesEveryClientWith1001AndRefusesNewOnes() throws Exception {
        Client other = connect("c2");
        Event taken = note(NOW, "taken before the stop");
        relay.handle(client, "[\"EVENT\"," + taken.json() + "]");
        assertEquals(2, relay.goingAway("the relay is shutting down"));
        assertEquals("[\"OK\",\"" + taken.id().hex() + "\",true,\"\"]", client.received.poll(),
                "answered before goingAway returned, so before the close frame");
        assertTrue(store.events.stream().anyMatch(e -> e.id().equals(taken.id())), "committed");
        Event after = note(NOW, "sent after");
        relay.handle(other, "[\"EVENT\"," + after.json() + "]");
        assertEquals("[\"OK\",\"" + after.id().hex() + "\",false,\"error: the relay is shutting down\"]",
                other.next());
        // a peer's (or the node's own) write still goes through until the relay closes
        Event fromPeer = note(NOW, "from a peer while stopping");
        Ingest.Outcome o = relay.ingest().submit(List.of(fromPeer), new Origin.Peer("did:peer:x")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS).get(0);
        assertEquals(Ingest.Status.ACCEPTED, o.status(), o.toString());
        assertEquals("1001 the relay is shutting down", client.closedWith);
        assertEquals("1001 the relay is shutting down", other.closedWith);
        Client late = new Client("c3");
        relay.opened(late);
        assertEquals("1001 the relay is shutting down", late.closedWith);
        assertNull(late.received.peek(), "no challenge for a connection opened while going away");
    }

    /**
     * Past the relay's connection bounds a connection gets one NOTICE and is closed as it opens, never counted: it is
     * not served, and its close gives nothing back that others hold.
     */
    @Test
    void connectionsPastTheBoundsAreToldWhyAndClosedAsTheyOpen() throws Exception {
        relay.close();
        relay = new Relay(store, RelayLimits.DEFAULT, RelayPolicy.OPEN, 2, () -> NOW);
        relay.connectionBounds(3, 2);
        Client a1 = client("a1", "198.51.100.1");
        connectTo(a1);
        Client a2 = client("a2", "198.51.100.1");
        connectTo(a2);
        Client a3 = client("a3", "198.51.100.1");
        relay.opened(a3);
        String why = "rate-limited: this address holds its 2 connections; close one first";
        assertEquals("[\"NOTICE\",\"" + why + "\"]", a3.next());
        assertEquals("1013 " + why, a3.closedWith);
        relay.handle(a3, "[\"REQ\",\"x\",{}]");
        assertNull(a3.received.poll(300, TimeUnit.MILLISECONDS), "a refused connection is not served");
        relay.closed(a3); // its close: nothing to give back
        Client b1 = client("b1", "198.51.100.2");
        connectTo(b1);
        Client b2 = client("b2", "198.51.100.2");
        relay.opened(b2);
        String total = "rate-limited: the relay holds its 3 connections; try again later";
        assertEquals("[\"NOTICE\",\"" + total + "\"]", b2.next(), "a1, a2 and b1 are open");
        assertEquals("1013 " + total, b2.closedWith);
        assertEquals(3, relay.connections()[0]);
        assertEquals(2, relay.connections()[1]);
        relay.closed(a1);
        Client b3 = client("b3", "198.51.100.2");
        connectTo(b3);
        assertNull(b3.closedWith);
        assertNull(a2.closedWith);
        assertNull(b1.closedWith);
    }

    static Client client(String id, String address) {
        Client c = new Client(id);
        c.address = address;
        return c;
    }

    void connectTo(Client c) {
        relay.opened(c);
        String auth = c.received.poll();
        assertNotNull(auth);
        assertTrue(auth.startsWith("[\"AUTH\","), auth);
    }

    Event authEvent(byte[] secret, Client c, String relayUrl, long createdAt) {
        return Events.sign(secret, createdAt, 22242, List.of(List.of("relay", relayUrl), List.of("challenge", c.challenge)), "");
    }

    void authenticate(Client c, byte[] secret) throws InterruptedException {
        Event a = authEvent(secret, c, "wss://relay.test/", NOW);
        relay.handle(c, "[\"AUTH\"," + a.json() + "]");
        assertEquals("[\"OK\",\"" + a.id().hex() + "\",true,\"\"]", c.next());
    }

    Event note(long createdAt, String content, List<List<String>> tags) {
        return Events.sign(key, createdAt, 1, tags, content);
    }

    Event note(long createdAt, String content) {
        return note(createdAt, content, List.of());
    }

    void publish(Client c, Event e) throws InterruptedException {
        relay.handle(c, "[\"EVENT\"," + e.json() + "]");
        assertEquals("[\"OK\",\"" + e.id().hex() + "\",true,\"\"]", c.next());
    }

    @Test
    void aConnectionAuthenticatesAtMostSixteenPubkeys() throws Exception {
        byte[] first = Schnorr.newSecretKey();
        authenticate(client, first);
        for (int i = 1; i < Relay.MAX_AUTHENTICATED; i++) {
            authenticate(client, Schnorr.newSecretKey());
        }
        Event more = authEvent(Schnorr.newSecretKey(), client, "wss://relay.test/", NOW);
        relay.handle(client, "[\"AUTH\"," + more.json() + "]");
        assertEquals("[\"OK\",\"" + more.id().hex() + "\",false,\"blocked: this connection has authenticated 16 pubkeys,"
                + " the most one connection may\"]", client.next());
        Event again = authEvent(first, client, "wss://relay.test/", NOW + 1);
        relay.handle(client, "[\"AUTH\"," + again.json() + "]");
        assertEquals("[\"OK\",\"" + again.id().hex() + "\",true,\"\"]", client.next(), "one already in holds");
    }

    @Test
    void acceptedEventIsAnsweredOkTrueAfterItIsStored() throws Exception {
        Event e = note(NOW, "hello");
        publish(client, e);
        assertTrue(store.events.contains(e));
    }

    @Test
    void secondCopyIsADuplicate() throws Exception {
        Event e = note(NOW, "twice");
        publish(client, e);
        relay.handle(client, "[\"EVENT\"," + e.json() + "]");
        assertTrue(client.next().startsWith("[\"OK\",\"" + e.id().hex() + "\",true,\"duplicate:"));
    }

    @Test
    void tamperedContentIsRefusedAsInvalid() throws Exception {
        Event e = note(NOW, "original");
        String forged = e.json().replace("original", "forged!!");
        relay.handle(client, "[\"EVENT\"," + forged + "]");
        assertEquals("[\"OK\",\"" + e.id().hex() + "\",false,\"invalid: event id does not match the canonical serialization\"]",
                client.next());
        assertTrue(store.events.isEmpty());
    }

    @Test
    void authEventSentAsEventIsNeitherStoredNorBroadcast() throws Exception {
        Client watcher = connect("w");
        relay.handle(watcher, "[\"REQ\",\"all\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"all\"]", watcher.next());
        Event auth = Events.sign(key, NOW, 22242, List.of(List.of("relay", "ws://x"), List.of("challenge", "c")), "");
        relay.handle(client, "[\"EVENT\"," + auth.json() + "]");
        assertTrue(client.next().contains("false,\"invalid: kind 22242"));
        Event later = note(NOW, "later");
        publish(client, later);
        assertEquals(RelayMessages.event("all", later.json()), watcher.next(), "the later event arrives first: the AUTH event never did");
        assertEquals(List.of(later), store.events);
    }

    @Test
    void eventTooFarInTheFutureIsRefused() throws Exception {
        Event e = note(NOW + 901, "future");
        relay.handle(client, "[\"EVENT\"," + e.json() + "]");
        assertTrue(client.next().contains("false,\"invalid: created_at is more than 900 seconds in the future"));
    }

    @Test
    void expiredEventIsRefused() throws Exception {
        Event e = note(NOW - 10, "gone", List.of(List.of("expiration", Long.toString(NOW - 1))));
        relay.handle(client, "[\"EVENT\"," + e.json() + "]");
        assertTrue(client.next().contains("false,\"invalid: event has expired"));
    }

    @Test
    void protectedEventNeedsAuthentication() throws Exception {
        Event e = note(NOW, "mine only", List.of(List.of("-")));
        relay.handle(client, "[\"EVENT\"," + e.json() + "]");
        assertEquals(RelayMessages.auth(client.challenge), client.next(), "the same challenge again, before the first auth-required answer");
        assertTrue(client.next().contains("false,\"auth-required:"));
        assertTrue(store.events.isEmpty());
    }

    @Test
    void protectedEventIsAcceptedFromItsAuthenticatedAuthor() throws Exception {
        authenticate(client, key);
        publish(client, note(NOW, "mine only", List.of(List.of("-"))));
    }

    @Test
    void protectedEventFromSomeoneElseIsRestricted() throws Exception {
        authenticate(client, Schnorr.newSecretKey());
        Event e = note(NOW, "not yours", List.of(List.of("-")));
        relay.handle(client, "[\"EVENT\"," + e.json() + "]");
        assertTrue(client.next().contains("false,\"restricted:"));
    }

    @Test
    void severalPubkeysMayAuthenticateOnOneConnectionAndAllCount() throws Exception {
        byte[] other = Schnorr.newSecretKey();
        authenticate(client, other);
        authenticate(client, key);
        publish(client, note(NOW, "first author", List.of(List.of("-"))));
        publish(client, Events.sign(other, NOW, 1, List.of(List.of("-")), "second author"));
    }

    @Test
    void authWithAnotherConnectionsChallengeIsRefused() throws Exception {
        Client other = connect("c2");
        Event a = authEvent(key, other, "wss://relay.test/", NOW);
        relay.handle(client, "[\"AUTH\"," + a.json() + "]");
        assertTrue(client.next().contains("false,\"invalid: the challenge tag"));
    }

    @Test
    void staleAuthIsRefused() throws Exception {
        Event a = authEvent(key, client, "wss://relay.test/", NOW - 601);
        relay.handle(client, "[\"AUTH\"," + a.json() + "]");
        assertTrue(client.next().contains("false,\"invalid: the AUTH event's created_at"));
    }

    @Test
    void authForAnotherRelayIsRefused() throws Exception {
        Event a = authEvent(key, client, "wss://elsewhere.example/", NOW);
        relay.handle(client, "[\"AUTH\"," + a.json() + "]");
        assertTrue(client.next().contains("false,\"invalid: the AUTH event names another relay"));
    }

    @Test
    void authOfTheWrongKindIsRefused() throws Exception {
        Event a = Events.sign(key, NOW, 1, List.of(List.of("relay", "wss://relay.test/"), List.of("challenge", client.challenge)), "");
        relay.handle(client, "[\"AUTH\"," + a.json() + "]");
        assertTrue(client.next().contains("false,\"invalid: an AUTH event must be kind 22242"));
    }

    @Test
    void authRequiredReadsCloseReqAndCountUntilAuthenticated() throws Exception {
        startWith(new RelayPolicy(true, false, java.util.Optional.empty(), 600));
        relay.handle(client, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals(RelayMessages.auth(client.challenge), client.next(), "the same challenge again, before the first auth-required answer");
        assertTrue(client.next().startsWith("[\"CLOSED\",\"s\",\"auth-required:"));
        relay.handle(client, "[\"COUNT\",\"n\",{}]");
        assertTrue(client.next().startsWith("[\"CLOSED\",\"n\",\"auth-required:"), "once a connection: no second reminder");
        authenticate(client, key);
        relay.handle(client, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", client.next());
    }

    @Test
    void authRequiredWritesRefuseEventsUntilAuthenticated() throws Exception {
        startWith(new RelayPolicy(false, true, java.util.Optional.of(java.net.URI.create("wss://relay.test/")), 600));
        Event e = note(NOW, "hello");
        relay.handle(client, "[\"EVENT\"," + e.json() + "]");
        assertEquals(RelayMessages.auth(client.challenge), client.next(), "the same challenge again, before the first auth-required answer");
        assertTrue(client.next().contains("false,\"auth-required:"));
        authenticate(client, key);
        publish(client, e);
    }

    @Test
    void directMessagesGoOnlyToTheirAuthenticatedRecipient() throws Exception {
        byte[] bob = Schnorr.newSecretKey();
        String bobHex = org.fleetmesh.nostr.Hex.encode(Schnorr.publicKey(bob));
        Event dm = Events.sign(key, NOW - 5, 4, List.of(List.of("p", bobHex)), "ciphertext?iv=x");
        Event wrap = Events.sign(Schnorr.newSecretKey(), NOW - 5, 1059, List.of(List.of("p", bobHex)), "sealed");
        publish(client, dm);
        publish(client, wrap);
        publish(client, note(NOW - 6, "public"));

        Client stranger = connect("s");
        relay.handle(stranger, "[\"REQ\",\"dm\",{\"kinds\":[4,1059]}]");
        assertEquals(RelayMessages.auth(stranger.challenge), stranger.next());
        assertTrue(stranger.next().startsWith("[\"CLOSED\",\"dm\",\"auth-required:"));
        relay.handle(stranger, "[\"REQ\",\"all\",{}]");
        assertTrue(stranger.next().contains("public"));
        assertEquals("[\"EOSE\",\"all\"]", stranger.next());
        relay.handle(stranger, "[\"REQ\",\"none\",{\"kinds\":[]}]");
        assertEquals("[\"EOSE\",\"none\"]", stranger.next(), "an empty kinds list asks for nothing private");

        Client bobClient = connect("b");
        authenticate(bobClient, bob);
        relay.handle(bobClient, "[\"REQ\",\"dm\",{\"kinds\":[4,1059]}]");
        List<String> got = List.of(bobClient.next(), bobClient.next(), bobClient.next());
        assertTrue(got.contains(RelayMessages.event("dm", dm.json())), got.toString());
        assertTrue(got.contains(RelayMessages.event("dm", wrap.json())), got.toString());
        assertEquals("[\"EOSE\",\"dm\"]", got.get(2));

        Event live = Events.sign(key, NOW, 4, List.of(List.of("p", bobHex)), "live dm");
        publish(client, live);
        assertEquals(RelayMessages.event("dm", live.json()), bobClient.next());
        Event later = note(NOW, "public, later");
        publish(client, later);
        assertEquals(RelayMessages.event("all", later.json()), stranger.next(),
                "a live DM must not reach an unauthenticated subscriber: the later public note comes first");
    }

    @Test
    void reqSendsStoredNewestFirstThenEoseThenLive() throws Exception {
        Event old = note(NOW - 100, "old");
        Event recent = note(NOW - 10, "recent");
        publish(client, old);
        publish(client, recent);
        Client reader = connect("r");
        relay.handle(reader, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertEquals(RelayMessages.event("s", recent.json()), reader.next());
        assertEquals(RelayMessages.event("s", old.json()), reader.next());
        assertEquals("[\"EOSE\",\"s\"]", reader.next());
        Event live = note(NOW, "live");
        publish(client, live);
        assertEquals(RelayMessages.event("s", live.json()), reader.next());
    }

    @Test
    void limitZeroMeansLiveOnly() throws Exception {
        publish(client, note(NOW - 5, "stored"));
        relay.handle(client, "[\"REQ\",\"live\",{\"kinds\":[1],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"live\"]", client.next());
        Event live = note(NOW, "now");
        relay.handle(client, "[\"EVENT\"," + live.json() + "]");
        List<String> got = List.of(client.next(), client.next());
        assertTrue(got.contains(RelayMessages.event("live", live.json())), got.toString());
    }

    @Test
    void aReqThatCanMatchNothingStoredIsAnsweredOnTheCallersThreadWithoutAStoreRead() throws Exception {
        publish(client, note(NOW - 5, "stored"));
        int queries = store.queries.get();
        relay.handle(client, "[\"REQ\",\"live\",{\"kinds\":[1],\"limit\":0},{\"since\":10,\"until\":5},{\"ids\":[]}]");
        assertEquals("[\"EOSE\",\"live\"]", client.received.poll(), "EOSE is queued before handle returns: no thread hop");
        assertEquals(queries, store.queries.get(), "no store read");
        relay.handle(client, "[\"COUNT\",\"n\",{\"ids\":[]},{\"since\":10,\"until\":5}]");
        assertEquals("[\"COUNT\",\"n\",{\"count\":0}]", client.received.poll(), "COUNT of nothing: answered at once too");
        assertEquals(0, store.counts.get(), "no store count");
        Event live = note(NOW, "now");
        relay.handle(client, "[\"EVENT\"," + live.json() + "]");
        List<String> got = List.of(client.next(), client.next());
        assertTrue(got.contains(RelayMessages.event("live", live.json())), "the subscription is live: " + got);
        assertTrue(got.contains("[\"OK\",\"" + live.id().hex() + "\",true,\"\"]"), got.toString());
    }

    @Test
    void aCountIgnoresLimitsSoLimitZeroStillCounts() throws Exception {
        publish(client, note(NOW - 5, "stored"));
        relay.handle(client, "[\"COUNT\",\"n\",{\"kinds\":[1],\"limit\":0}]");
        assertEquals("[\"COUNT\",\"n\",{\"count\":1}]", client.next());
    }

    @Test
    void aLiveOnlyReqIsAnsweredWhileTheConnectionsQueriesAreAllInFlight() throws Exception {
        publish(client, note(NOW - 5, "stored"));
        store.hold(f -> f.kinds() != null && f.kinds().contains(1));
        Client reader = connect("r");
        for (int i = 0; i < 4; i++) {
            relay.handle(reader, "[\"COUNT\",\"c" + i + "\",{\"kinds\":[1]}]");
        }
        assertTrue(store.queryStarted.await(5, TimeUnit.SECONDS));
        relay.handle(reader, "[\"REQ\",\"q\",{\"kinds\":[1]}]");
        assertEquals("[\"CLOSED\",\"q\",\"rate-limited: too many queries in flight on this connection (at most 4)\"]",
                reader.next(), "a REQ that reads the store waits its turn");
        relay.handle(reader, "[\"REQ\",\"live\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"live\"]", reader.next(), "one that reads nothing takes no query slot");
        store.releaseQuery.countDown();
        for (int i = 0; i < 4; i++) {
            assertTrue(reader.next().startsWith("[\"COUNT\",\"c"));
        }
    }

    @Test
    void aLiveOnlyReqReplacingOneStillReadingGetsNoneOfTheOldStoredEvents() throws Exception {
        Event stored = note(NOW - 5, "stored");
        publish(client, stored);
        store.hold(f -> true);
        Client reader = connect("r");
        relay.handle(reader, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertTrue(store.queryStarted.await(5, TimeUnit.SECONDS));
        relay.handle(reader, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", reader.next());
        store.releaseQuery.countDown();
        Event live = note(NOW, "live");
        publish(client, live);
        assertEquals(RelayMessages.event("s", live.json()), reader.next(), "the old filter's stored event never came");
    }

    @Test
    void reusedSubscriptionIdReplacesItsFilters() throws Exception {
        relay.handle(client, "[\"REQ\",\"s\",{\"kinds\":[1],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", client.next());
        relay.handle(client, "[\"REQ\",\"s\",{\"kinds\":[7],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", client.next());
        Client writer = connect("w");
        publish(writer, note(NOW, "kind one"));
        Event reaction = Events.sign(key, NOW, 7, List.of(), "+");
        publish(writer, reaction);
        assertEquals(RelayMessages.event("s", reaction.json()), client.next(),
                "the later reaction comes first: the replaced kind-1 filter no longer delivers");
    }

    @Test
    void closeStopsDelivery() throws Exception {
        relay.handle(client, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", client.next());
        relay.handle(client, "[\"CLOSE\",\"s\"]");
        relay.handle(client, "[\"REQ\",\"barrier\",{\"kinds\":[7],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"barrier\"]", client.next());
        Client writer = connect("w");
        publish(writer, note(NOW, "after close"));
        Event reaction = Events.sign(key, NOW, 7, List.of(), "+");
        publish(writer, reaction);
        assertEquals(RelayMessages.event("barrier", reaction.json()), client.next(), "the closed subscription got nothing first");
    }

    @Test
    void tooManySubscriptionsGetClosed() throws Exception {
        for (int i = 0; i < 3; i++) {
            relay.handle(client, "[\"REQ\",\"s" + i + "\",{\"limit\":0}]");
            assertEquals("[\"EOSE\",\"s" + i + "\"]", client.next());
        }
        relay.handle(client, "[\"REQ\",\"s3\",{\"limit\":0}]");
        assertTrue(client.next().startsWith("[\"CLOSED\",\"s3\",\"rate-limited:"));
        relay.handle(client, "[\"REQ\",\"s0\",{\"kinds\":[1],\"limit\":0}]"); // replacing an open one is fine
        assertEquals("[\"EOSE\",\"s0\"]", client.next());
    }

    @Test
    void refusedReqGetsClosedWithItsId() throws Exception {
        relay.handle(client, "[\"REQ\",\"bad\",{\"ids\":[\"XYZ\"]}]");
        assertTrue(client.next().startsWith("[\"CLOSED\",\"bad\",\"invalid:"));
        relay.handle(client, "[\"COUNT\",\"c\",{\"kinds\":\"1\"}]");
        assertTrue(client.next().startsWith("[\"CLOSED\",\"c\",\"invalid:"));
    }

    @Test
    void unreadableMessageGetsANoticeAndTheConnectionGoesOn() throws Exception {
        relay.handle(client, "not json");
        assertTrue(client.next().startsWith("[\"NOTICE\",\"invalid:"));
        relay.handle(client, "[\"HELLO\"]");
        assertTrue(client.next().startsWith("[\"NOTICE\",\"invalid: unknown message type"));
        relay.handle(client, "x".repeat(5000));
        assertTrue(client.next().startsWith("[\"NOTICE\",\"invalid: message too large"));
        publish(client, note(NOW, "still here"));
    }

    /** NIP-01: an EVENT is answered with an OK even when it is too large to read, a REQ with its CLOSED. */
    @Test
    void aMessageTooLargeIsAnsweredAsItsVerbNeeds() throws Exception {
        Event big = note(NOW, "x".repeat(5000));
        relay.handle(client, "[\"EVENT\"," + big.json() + "]");
        assertEquals(RelayMessages.ok(big.id().hex(), false, "invalid: message too large (at most 4096 bytes)"),
                client.next());
        relay.handle(client, "[\"REQ\",\"big\",{\"authors\":[\"" + "ab".repeat(2500) + "\"]}]");
        assertEquals("[\"CLOSED\",\"big\",\"invalid: message too large (at most 4096 bytes)\"]", client.next());
        relay.handle(client, "[\"REQ\",{\"x\":\"" + "y".repeat(5000) + "\"}]");
        assertTrue(client.next().startsWith("[\"NOTICE\",\"invalid: message too large"));
        relay.handle(client, "[\"REQ\",\"q\",{\"ids\":[\"" + big.id().hex() + "\"]}]");
        assertEquals("[\"EOSE\",\"q\"]", client.next(), "nothing of it stored");
    }

    /**
     * NIP-11: {@code max_message_length} is "the maximum number of bytes for incoming JSON", "calculated from [ to ]
     * after UTF-8 serialization (so some unicode characters will cost 2-3 bytes)".
     */
    @Test
    void theMessageLengthIsCountedInUtf8Bytes() throws Exception {
        String shell = "[\"EVENT\"," + filled("").json() + "]";
        int room = 4096 - shell.length(); // bytes the tag value may take
        Event fits = filled("\u00e9".repeat(room / 2) + "x".repeat(room % 2));
        String m = "[\"EVENT\"," + fits.json() + "]";
        assertEquals(4096, m.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        relay.handle(client, m);
        assertEquals(RelayMessages.ok(fits.id().hex(), true, ""), client.next());
        Event over = filled("\u00e9".repeat(room / 2) + "x".repeat(room % 2 + 1)); // 4097 bytes, 2000-odd characters
        relay.handle(client, "[\"EVENT\"," + over.json() + "]");
        assertEquals(RelayMessages.ok(over.id().hex(), false, "invalid: message too large (at most 4096 bytes)"),
                client.next());
        Event emoji = filled("\ud83d\ude00".repeat(room / 4 + 1)); // four bytes, two UTF-16 units each
        relay.handle(client, "[\"EVENT\"," + emoji.json() + "]");
        assertEquals(RelayMessages.ok(emoji.id().hex(), false, "invalid: message too large (at most 4096 bytes)"),
                client.next());
    }

    /** NIP-11 max_content_length (1000 here): "This is a count of unicode characters", not of UTF-16 units. */
    @Test
    void theContentLengthIsCountedInUnicodeCharacters() throws Exception {
        String thousand = "\ud83d\ude00".repeat(501) + "a".repeat(499); // 1000 characters, 1501 UTF-16 units
        Event fits = note(NOW, thousand);
        relay.handle(client, "[\"EVENT\"," + fits.json() + "]");
        assertEquals(RelayMessages.ok(fits.id().hex(), true, ""), client.next());
        Event over = note(NOW, thousand + "x");
        relay.handle(client, "[\"EVENT\"," + over.json() + "]");
        assertEquals(RelayMessages.ok(over.id().hex(), false, "invalid: content longer than 1000 characters"),
                client.next());
    }

    private Event filled(String value) {
        return note(NOW, "", List.of(List.of("t", value)));
    }

    @Test
    void ephemeralEventsAreFannedOutButNotStored() throws Exception {
        relay.handle(client, "[\"REQ\",\"e\",{\"kinds\":[20001],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"e\"]", client.next());
        Event eph = Events.sign(key, NOW, 20001, List.of(), "typing");
        Client writer = connect("w");
        publish(writer, eph);
        assertEquals(RelayMessages.event("e", eph.json()), client.next());
        assertTrue(store.events.isEmpty());
        assertEquals(List.of(eph), store.announced);
    }

    @Test
    void countCountsTheUnionOfFiltersOnce() throws Exception {
        Event a = note(NOW - 1, "a");
        Event b = Events.sign(key, NOW, 7, List.of(), "b");
        publish(client, a);
        publish(client, b);
        relay.handle(client, "[\"COUNT\",\"n\",{\"kinds\":[1]},{\"authors\":[\"" + a.pubkey().hex() + "\"]}]");
        assertEquals("[\"COUNT\",\"n\",{\"count\":2}]", client.next());
    }

    @Test
    void failedQueryGetsClosedWithAnError() throws Exception {
        store.failQueries = true;
        relay.handle(client, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertEquals("[\"CLOSED\",\"s\",\"error: could not read stored events\"]", client.next());
    }

    @Test
    void aQueryPastTheStatementTimeoutIsClosedSayingSo() throws Exception {
        store.timeOutQueries = true;
        relay.handle(client, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertEquals("[\"CLOSED\",\"s\",\"error: the query ran longer than 10000 ms and was cancelled; narrow the filter\"]",
                client.next());
        relay.handle(client, "[\"REQ\",\"s2\",{\"kinds\":[1],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s2\"]", client.next(), "the connection goes on");
    }

    @Test
    void eventsCommittedDuringTheStoredPhaseArriveAfterEoseExactlyOnce() throws Exception {
        Event stored = note(NOW - 50, "stored");
        publish(client, stored);
        store.hold(f -> true);
        Client reader = connect("r");
        relay.handle(reader, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertTrue(store.queryStarted.await(5, TimeUnit.SECONDS));
        Event during = note(NOW, "during the query");
        publish(client, during);
        store.releaseQuery.countDown();
        // the query snapshot (taken before the hold) has only `stored`; `during` comes after EOSE
        assertEquals(RelayMessages.event("s", stored.json()), reader.next());
        assertEquals("[\"EOSE\",\"s\"]", reader.next());
        assertEquals(RelayMessages.event("s", during.json()), reader.next());
        Event after = note(NOW, "after");
        publish(client, after);
        assertEquals(RelayMessages.event("s", after.json()), reader.next(), "`during` came once: the later event is next");
    }

    @Test
    void aSubscriberWhoseSendThrowsCostsNobodyTheirOkOrTheirEvent() throws Exception {
        Client broken = new Client("broken") {
            @Override
            public boolean send(String text) {
                if (text.startsWith("[\"EVENT\"")) {
                    throw new IllegalStateException("simulated send failure");
                }
                return super.send(text);
            }
        };
        relay.opened(broken);
        broken.next();
        relay.handle(broken, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", broken.next());
        Client watcher = connect("w");
        relay.handle(watcher, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", watcher.next());
        Event e = note(NOW, "durable");
        publish(client, e); // exactly OK true ...
        assertEquals(RelayMessages.event("s", e.json()), watcher.next());
        Event barrier = note(NOW, "barrier");
        publish(client, barrier); // ... and no OK false after it: the next answer is the next event's
        assertEquals(RelayMessages.event("s", barrier.json()), watcher.next());
    }

    @Test
    void foreignEventsFromSiblingNodesReachLiveSubscriptions() throws Exception {
        relay.handle(client, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", client.next());
        Event e = note(NOW, "from a sibling");
        store.foreign.accept(List.of(e.json()));
        assertEquals(RelayMessages.event("s", e.json()), client.next());
    }

    @Test
    void closedConnectionReceivesNothingMore() throws Exception {
        relay.handle(client, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", client.next());
        relay.closed(client);
        Client writer = connect("w"), watcher = connect("watcher");
        relay.handle(watcher, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", watcher.next());
        Event first = note(NOW, "after disconnect"), second = note(NOW, "after that");
        publish(writer, first);
        publish(writer, second);
        assertEquals(RelayMessages.event("s", first.json()), watcher.next());
        assertEquals(RelayMessages.event("s", second.json()), watcher.next());
        client.assertNothingQueued(); // the fan-out has finished `first` for everyone: `second` is out
        assertEquals(2, relay.connectionCount(), "writer and watcher");
    }

    // ---- NIP-77

    static org.fleetmesh.negentropy.Negentropy initiatorOver(List<Event> events) {
        var b = org.fleetmesh.negentropy.SortedVector.builder();
        for (Event e : events) {
            b.insert(e.createdAt(), org.fleetmesh.negentropy.Id.of(e.id().toBytes()));
        }
        return new org.fleetmesh.negentropy.Negentropy(b.seal());
    }

    static String hexOf(String negMsg) {
        return negMsg.substring(negMsg.lastIndexOf(",\"") + 2, negMsg.length() - 2);
    }

    @Test
    void aReqByIdsWithoutLimitGetsThemAllNotTheDefaultLimit() throws Exception {
        List<Event> notes = new java.util.ArrayList<>();
        for (int i = 0; i < 55; i++) { // default limit here is 50, max 100
            Event e = note(NOW - 1000 - i, "need " + i);
            notes.add(e);
            publish(client, e);
        }
        String ids = String.join(",", notes.stream().map(e -> "\"" + e.id().hex() + "\"").toList());
        relay.handle(client, "[\"REQ\",\"byids\",{\"ids\":[" + ids + "]}]");
        java.util.Set<String> got = new java.util.HashSet<>();
        String m;
        while ((m = client.next()).startsWith("[\"EVENT\"")) {
            got.add(m);
        }
        assertEquals("[\"EOSE\",\"byids\"]", m);
        assertEquals(55, got.size(), "a need list fetched in one REQ is not cut at the default limit");
        relay.handle(client, "[\"REQ\",\"plain\",{\"kinds\":[1]}]");
        int plain = 0;
        while (client.next().startsWith("[\"EVENT\"")) {
            plain++;
        }
        assertEquals(50, plain, "other filters without limit still get the default");
    }

    /** Runs a whole NIP-77 reconciliation as client {@code c}; returns {need, have} as hex id sets. */
    List<java.util.Set<String>> negSync(Client c, String sub, String filter, List<Event> clientSet) throws Exception {
        var neg = initiatorOver(clientSet);
        relay.handle(c, "[\"NEG-OPEN\",\"" + sub + "\"," + filter + ",\"" + org.fleetmesh.nostr.Hex.encode(neg.initiate()) + "\"]");
        for (int round = 0; round < 50; round++) {
            String reply = c.next();
            assertTrue(reply.startsWith("[\"NEG-MSG\",\"" + sub + "\",\""), reply);
            byte[] next = neg.reconcile(org.fleetmesh.nostr.Hex.decodeLower(hexOf(reply)));
            if (next == null) {
                break;
            }
            relay.handle(c, "[\"NEG-MSG\",\"" + sub + "\",\"" + org.fleetmesh.nostr.Hex.encode(next) + "\"]");
        }
        java.util.Set<String> need = new java.util.TreeSet<>(), have = new java.util.TreeSet<>();
        neg.needIds().forEach(id -> need.add(id.toHex()));
        neg.haveIds().forEach(id -> have.add(id.toHex()));
        relay.handle(c, "[\"NEG-CLOSE\",\"" + sub + "\"]");
        return List.of(need, have);
    }

    static java.util.Set<String> hexIds(List<Event> events) {
        return new java.util.TreeSet<>(events.stream().map(e -> e.id().hex()).toList());
    }

    @Test
    void liveIndexServesWholeStoreSessionsAndFollowsEveryChange() throws Exception {
        List<Event> early = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            early.add(note(NOW - 500 - i, "early " + i));
            publish(client, early.get(i));
        }
        Event dm = Events.sign(key, NOW - 400, 4, List.of(List.of("p", "00".repeat(32))), "sealed");
        publish(client, dm);
        assertTrue(relay.enableLiveIndexes(List.of(org.fleetmesh.nostr.Filter.ALL), List.of("{}"), java.time.Duration.ZERO));
        for (int i = 0; i < 2000 && relay.liveIndexSize(0) < 0; i++) {
            Thread.sleep(10);
        }
        assertEquals(30, relay.liveIndexSize(0), "built from the store, the private DM left out");
        List<Event> later = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            later.add(note(NOW - 100 - i, "later " + i));
            publish(client, later.get(i));
        }
        assertEquals(1, store.delete(List.of(early.get(0).id())));
        assertEquals(49, relay.liveIndexSize(0), "inserts and the removal followed");

        List<Event> expectedOnRelay = new java.util.ArrayList<>(early.subList(1, 30));
        expectedOnRelay.addAll(later);
        List<Event> clientOnly = List.of(note(NOW - 50, "client 1"), note(NOW - 60, "client 2"));
        List<Event> clientSet = new java.util.ArrayList<>(clientOnly);
        clientSet.addAll(later.subList(0, 10));
        var r = negSync(client, "live", "{}", clientSet);
        assertEquals(1, relay.negSessionsFromLiveIndex(), "the {} session was served by the live index");
        java.util.Set<String> expectNeed = hexIds(expectedOnRelay);
        expectNeed.removeAll(hexIds(later.subList(0, 10)));
        assertEquals(expectNeed, r.get(0), "need: what the relay has and the client lacks, never the DM's id");
        assertEquals(hexIds(clientOnly), r.get(1));
        // the same answer from the per-session snapshot path (a filter that is not registered)
        var v = negSync(client, "vec", "{\"kinds\":[1]}", clientSet);
        assertEquals(1, relay.negSessionsFromLiveIndex());
        assertEquals(r, v);
        // an array holding the one registered filter is the same filter
        assertEquals(r, negSync(client, "arr", "[{}]", clientSet));
        assertEquals(2, relay.negSessionsFromLiveIndex(), "an array of the one registered filter is that filter");
        // authenticated, but author or recipient of no private event: the index still serves it
        Client stranger = connect("c2");
        authenticate(stranger, Schnorr.newSecretKey());
        assertEquals(r, negSync(stranger, "auth-none", "{}", clientSet));
        assertEquals(3, relay.negSessionsFromLiveIndex());
        // the DM's author: a per-session snapshot, which includes the DM it may read
        authenticate(client, key);
        var withDm = negSync(client, "auth-dm", "{}", clientSet);
        assertEquals(3, relay.negSessionsFromLiveIndex(), "a client that may read a private event is not served by the index");
        java.util.Set<String> needWithDm = new java.util.TreeSet<>(expectNeed);
        needWithDm.add(dm.id().hex());
        assertEquals(needWithDm, withDm.get(0));
    }

    /** Waits for a run-time index's first build (it runs on the housekeeping thread). */
    static void awaitBuilt(LiveIndex ix) throws InterruptedException {
        for (int i = 0; i < 2000 && ix.size() < 0; i++) {
            Thread.sleep(10);
        }
        assertTrue(ix.size() >= 0, "the index was never built");
    }

    @Test
    void anIndexRegisteredAtRunTimeBuildsFollowsTheStoreAndServesItsFilter() throws Exception {
        List<Event> notes = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            notes.add(note(NOW - 500 - i, "note " + i));
            publish(client, notes.get(i));
        }
        publish(client, Events.sign(key, NOW - 450, 7, List.of(), "+"));
        Event dm = Events.sign(key, NOW - 400, 4, List.of(List.of("p", "00".repeat(32))), "sealed");
        publish(client, dm);
        org.fleetmesh.nostr.Filter kinds14 = new org.fleetmesh.nostr.Filter(null, null, java.util.Set.of(1, 4), java.util.Map.of(),
                null, null, null);
        LiveIndex ix = relay.index(kinds14, "kinds 1 and 4"); // enableLiveIndexes was never called
        awaitBuilt(ix);
        assertEquals(10, ix.size(), "built from the store: the notes, not the reaction, not the private DM");
        for (int i = 0; i < 3; i++) {
            notes.add(note(NOW - 100 - i, "later " + i));
            publish(client, notes.get(notes.size() - 1));
        }
        publish(client, Events.sign(key, NOW - 90, 7, List.of(), "+"));
        assertEquals(1, store.delete(List.of(notes.get(0).id())));
        notes.remove(0);
        assertEquals(12, ix.size(), "inserts and the removal followed, the reaction left out");
        org.fleetmesh.negentropy.SortedVector.Builder expected = org.fleetmesh.negentropy.SortedVector.builder();
        notes.forEach(n -> expected.insert(n.createdAt(), org.fleetmesh.negentropy.Id.of(n.id().toBytes())));
        assertEquals(expected.seal().fingerprint(0, 12), ix.snapshot().orElseThrow().fingerprint(0, 12));

        var r = negSync(client, "shard", "{\"kinds\":[4,1]}", List.of());
        assertEquals(1, relay.negSessionsFromLiveIndex(), "a session on exactly that filter is served by the index");
        assertEquals(hexIds(notes), r.get(0));
        // a second index on another filter, then enabling the configured ones: all live side by side
        LiveIndex all = relay.index(org.fleetmesh.nostr.Filter.ALL, "{}");
        awaitBuilt(all);
        assertEquals(14, all.size(), "12 notes and 2 reactions");
        ix.close();
        assertEquals(r, negSync(client, "closed", "{\"kinds\":[1,4]}", List.of()));
        assertEquals(1, relay.negSessionsFromLiveIndex(), "a closed index serves no more sessions");
        assertEquals(14, all.size());
        all.close();
    }

    @Test
    void enablingConfiguredIndexesAfterARunTimeOneStillWorks() throws Exception {
        publish(client, note(NOW - 10, "one"));
        LiveIndex ix = relay.index(org.fleetmesh.nostr.Filter.ALL, "shard");
        assertTrue(relay.enableLiveIndexes(List.of(org.fleetmesh.nostr.Filter.ALL), List.of("{}"), java.time.Duration.ZERO));
        assertTrue(!relay.enableLiveIndexes(List.of(org.fleetmesh.nostr.Filter.ALL), List.of("{}"), java.time.Duration.ZERO),
                "only once");
        awaitBuilt(ix);
        for (int i = 0; i < 2000 && relay.liveIndexSize(1) < 0; i++) {
            Thread.sleep(10);
        }
        assertEquals(1, ix.size());
        assertEquals(1, relay.liveIndexSize(1));
    }

    @Test
    void negentropyFindsWhatEachSideLacks() throws Exception {
        List<Event> relayOnly = new java.util.ArrayList<>(), both = new java.util.ArrayList<>(), clientOnly = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            relayOnly.add(note(NOW - 100 - i, "relay " + i));
            both.add(note(NOW - 200 - i, "both " + i));
            clientOnly.add(note(NOW - 300 - i, "client " + i));
        }
        for (Event e : relayOnly) {
            publish(client, e);
        }
        for (Event e : both) {
            publish(client, e);
        }
        List<Event> clientSet = new java.util.ArrayList<>(both);
        clientSet.addAll(clientOnly);
        java.util.Set<String> relayOnlyIds = new java.util.TreeSet<>(relayOnly.stream().map(e -> e.id().hex()).toList());
        java.util.Set<String> clientOnlyIds = new java.util.TreeSet<>(clientOnly.stream().map(e -> e.id().hex()).toList());
        // NIP-77's filter object; an array of one filter; an overlapping union (strfry and @nostr-dev-kit/sync send arrays)
        for (String filter : List.of("{\"kinds\":[1]}", "[{\"kinds\":[1]}]",
                "[{\"kinds\":[1],\"until\":" + (NOW - 150) + "},{\"kinds\":[1],\"since\":" + (NOW - 250) + "}]")) {
            var neg = initiatorOver(clientSet);
            relay.handle(client, "[\"NEG-OPEN\",\"n1\"," + filter + ",\"" + org.fleetmesh.nostr.Hex.encode(neg.initiate()) + "\"]");
            for (int round = 0; round < 20; round++) {
                String reply = client.next();
                assertTrue(reply.startsWith("[\"NEG-MSG\",\"n1\",\""), reply);
                byte[] next = neg.reconcile(org.fleetmesh.nostr.Hex.decodeLower(hexOf(reply)));
                if (next == null) {
                    break;
                }
                relay.handle(client, "[\"NEG-MSG\",\"n1\",\"" + org.fleetmesh.nostr.Hex.encode(next) + "\"]");
            }
            java.util.Set<String> need = new java.util.TreeSet<>(), have = new java.util.TreeSet<>();
            neg.needIds().forEach(id -> need.add(id.toHex()));
            neg.haveIds().forEach(id -> have.add(id.toHex()));
            assertEquals(relayOnlyIds, need, filter);
            assertEquals(clientOnlyIds, have, filter);
        }
        relay.handle(client, "[\"NEG-CLOSE\",\"n1\"]");
        relay.handle(client, "[\"NEG-MSG\",\"n1\",\"61\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"n1\",\"closed:"));
    }

    @Test
    void negOpenOverTooManyEventsIsBlocked() throws Exception {
        for (int i = 0; i < 51; i++) {
            publish(client, note(NOW - i, "n" + i));
        }
        var neg = initiatorOver(List.of());
        relay.handle(client, "[\"NEG-OPEN\",\"big\",{},\"" + org.fleetmesh.nostr.Hex.encode(neg.initiate()) + "\"]");
        assertEquals("[\"NEG-ERR\",\"big\",\"blocked: too many query results (at most 50)\"]", client.next());
    }

    @Test
    void malformedNegMessagesGetNegErrAndTheConnectionGoesOn() throws Exception {
        relay.handle(client, "[\"NEG-OPEN\",\"x\",{},\"zz\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"x\",\"invalid:"));
        relay.handle(client, "[\"NEG-OPEN\",\"x\",{},\"6101\"]"); // truncated bound
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"x\",\"invalid:"));
        relay.handle(client, "[\"NEG-MSG\",\"never-opened\",\"61\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"never-opened\",\"closed:"));
        publish(client, note(NOW, "still here"));
    }

    /** NIP-77: "after a NEG-ERR is issued, the subscription is considered to be closed", whatever caused it. */
    @Test
    void aNegErrEndsItsSession() throws Exception {
        publish(client, note(NOW - 1, "one"));
        // a NEG-MSG that does not parse, on an open session: NEG-ERR, and the session is gone
        relay.handle(client, negOpen("a", "{}"));
        assertTrue(client.next().startsWith("[\"NEG-MSG\",\"a\","));
        relay.handle(client, "[\"NEG-MSG\",\"a\",\"zz\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"a\",\"invalid:"));
        relay.handle(client, "[\"NEG-MSG\",\"a\",\"61\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"a\",\"closed:"), "the NEG-ERR closed it");
        // a NEG-OPEN that does not parse, reusing an open session's id: that session is closed first
        relay.handle(client, negOpen("b", "{}"));
        assertTrue(client.next().startsWith("[\"NEG-MSG\",\"b\","));
        relay.handle(client, "[\"NEG-OPEN\",\"b\",{\"foo\":1},\"61\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"b\",\"invalid:"));
        relay.handle(client, "[\"NEG-MSG\",\"b\",\"61\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"b\",\"closed:"), "the old session did not survive");
    }

    @Test
    void aNegMsgBeforeTheAnswerToItsNegOpenEndsTheSessionAndNothingFollows() throws Exception {
        publish(client, note(NOW - 1, "one"));
        store.hold(f -> true); // the NEG-OPEN's read waits
        relay.handle(client, negOpen("p", "{}"));
        relay.handle(client, "[\"NEG-MSG\",\"p\",\"61\"]");
        assertEquals("[\"NEG-ERR\",\"p\",\"invalid: a NEG-MSG came before the answer to this id's NEG-OPEN (NIP-77 "
                + "alternates)\"]", client.next());
        store.releaseQuery.countDown();
        relay.handle(client, "[\"NEG-MSG\",\"p\",\"61\"]");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"p\",\"closed:"), "no NEG-MSG for the closed id");
    }

    @Test
    void unknownNegentropyVersionIsAnsweredWithOurs() throws Exception {
        relay.handle(client, "[\"NEG-OPEN\",\"v\",{},\"62\"]");
        assertEquals("[\"NEG-MSG\",\"v\",\"61\"]", client.next());
    }

    @Test
    void negOpenObeysTheReadGate() throws Exception {
        startWith(new RelayPolicy(true, false, java.util.Optional.empty(), 600));
        relay.handle(client, "[\"NEG-OPEN\",\"g\",{},\"" + org.fleetmesh.nostr.Hex.encode(initiatorOver(List.of()).initiate()) + "\"]");
        assertEquals(RelayMessages.auth(client.challenge), client.next(), "the same challenge again, before the first auth-required answer");
        assertTrue(client.next().startsWith("[\"NEG-ERR\",\"g\",\"auth-required:"));
    }

    // ---- every resource a client can make the relay spend is bounded

    String negOpen(String sub, String filter) {
        return "[\"NEG-OPEN\",\"" + sub + "\"," + filter + ",\"" + org.fleetmesh.nostr.Hex.encode(initiatorOver(List.of()).initiate()) + "\"]";
    }

    @Test
    void aBurstOfNegOpensCannotPassTheSessionCap() throws Exception {
        store.hold(f -> true);
        for (int i = 0; i < 10; i++) {
            relay.handle(client, negOpen("n" + i, "{}"));
        }
        // 3 sessions per connection: the 7 past it are refused at once, while the first 3 are still being opened
        for (int i = 0; i < 7; i++) {
            String m = client.next();
            assertTrue(m.startsWith("[\"NEG-ERR\",\"n") && m.contains("\"blocked: too many open negentropy sessions on this connection"), m);
        }
        store.releaseQuery.countDown();
        java.util.Set<String> opened = new java.util.TreeSet<>();
        for (int i = 0; i < 3; i++) {
            String m = client.next();
            assertTrue(m.startsWith("[\"NEG-MSG\","), m);
            opened.add(m.substring(12, m.indexOf('"', 12)));
        }
        assertEquals(java.util.Set.of("n0", "n1", "n2"), opened);
        assertEquals(3, relay.negSessionStats()[0]);
        relay.handle(client, "[\"NEG-CLOSE\",\"n0\"]");
        relay.handle(client, negOpen("again", "{}"));
        assertTrue(client.next().startsWith("[\"NEG-MSG\",\"again\""), "a closed session gives its slot back");
    }

    @Test
    void negentropySessionsAreCappedOnTheWholeRelay() throws Exception {
        for (int i = 0; i < 3; i++) {
            relay.handle(client, negOpen("a" + i, "{}"));
            assertTrue(client.next().startsWith("[\"NEG-MSG\",\"a" + i + "\""));
        }
        Client other = connect("c2");
        for (int i = 0; i < 2; i++) {
            relay.handle(other, negOpen("b" + i, "{}"));
            assertTrue(other.next().startsWith("[\"NEG-MSG\",\"b" + i + "\""));
        }
        relay.handle(other, negOpen("b2", "{}"));
        assertTrue(other.next().startsWith("[\"NEG-ERR\",\"b2\",\"blocked: too many open negentropy sessions on this relay (at most 5)"));
        relay.closed(client); // a closed connection gives its slots back
        relay.handle(other, negOpen("b2", "{}"));
        assertTrue(other.next().startsWith("[\"NEG-MSG\",\"b2\""));
        assertEquals(3, relay.negSessionStats()[0]);
    }

    @Test
    void perSessionSnapshotsShareOneItemBudget() throws Exception {
        for (int i = 0; i < 40; i++) {
            publish(client, note(NOW - i, "n" + i));
        }
        relay.handle(client, negOpen("big", "{}"));
        assertTrue(client.next().startsWith("[\"NEG-MSG\",\"big\""));
        assertEquals(40, relay.negSessionStats()[1], "the snapshot holds its 40 items");
        Client other = connect("c2");
        relay.handle(other, negOpen("second", "{\"kinds\":[1]}"));
        assertEquals("[\"NEG-ERR\",\"second\",\"blocked: the relay's negentropy sessions hold all the items they may (at most 60); try again later\"]",
                other.next());
        assertEquals(40, relay.negSessionStats()[1], "the refused snapshot gave back what it had taken");
        relay.handle(client, "[\"NEG-CLOSE\",\"big\"]");
        assertEquals(0, relay.negSessionStats()[1]);
        relay.handle(other, negOpen("second", "{\"kinds\":[1]}"));
        assertTrue(other.next().startsWith("[\"NEG-MSG\",\"second\""));
        relay.closed(other);
        assertEquals(0, relay.negSessionStats()[1], "a closed connection gives its items back");
        assertEquals(0, relay.negSessionStats()[0]);
    }

    @Test
    void countOfSeveralFiltersAndOfPrivateKindsIsAnsweredByTheStoreAlone() throws Exception {
        byte[] bob = Schnorr.newSecretKey();
        String bobHex = org.fleetmesh.nostr.Hex.encode(Schnorr.publicKey(bob));
        publish(client, note(NOW - 1, "a"));
        publish(client, Events.sign(key, NOW, 7, List.of(), "b"));
        publish(client, Events.sign(key, NOW, 4, List.of(List.of("p", bobHex)), "dm"));
        int queries = store.queries.get(), enumerations = store.enumerations.get();
        relay.handle(client, "[\"COUNT\",\"n\",{},{}]");
        assertEquals("[\"COUNT\",\"n\",{\"count\":2}]", client.next(), "the union once, the DM hidden from a stranger");
        Client bobClient = connect("b");
        authenticate(bobClient, bob);
        relay.handle(bobClient, "[\"COUNT\",\"n\",{\"kinds\":[4]},{\"kinds\":[1,4]}]");
        assertEquals("[\"COUNT\",\"n\",{\"count\":2}]", bobClient.next());
        assertEquals(queries, store.queries.get(), "no event was read to count");
        assertEquals(enumerations, store.enumerations.get(), "no id was collected to count");
    }

    @Test
    void aFloodingClientCannotStarveAnother() throws Exception {
        publish(client, note(NOW - 1, "stored"));
        store.hold(f -> f.kinds() != null && f.kinds().contains(9999));
        Client flooder = connect("flood");
        for (int i = 0; i < 20; i++) {
            relay.handle(flooder, "[\"COUNT\",\"f" + i + "\",{\"kinds\":[9999]}]");
            if (i == 0) {
                assertTrue(store.queryStarted.await(5, TimeUnit.SECONDS));
            }
        }
        for (int i = 4; i < 20; i++) {
            assertEquals("[\"CLOSED\",\"f" + i + "\",\"rate-limited: too many queries in flight on this connection (at most 4)\"]",
                    flooder.next());
        }
        Client normal = connect("normal");
        relay.handle(normal, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertTrue(normal.next().contains("stored"));
        assertEquals("[\"EOSE\",\"s\"]", normal.next(), "the normal client is answered while the flooder's queries hang");
        store.releaseQuery.countDown();
        java.util.Set<String> answered = new java.util.TreeSet<>();
        for (int i = 0; i < 4; i++) {
            String m = flooder.next();
            assertTrue(m.startsWith("[\"COUNT\",\"f") && m.endsWith(",{\"count\":0}]"), m);
            answered.add(m.substring(10, m.indexOf('"', 10)));
        }
        assertEquals(java.util.Set.of("f0", "f1", "f2", "f3"), answered);
        relay.handle(flooder, "[\"COUNT\",\"later\",{\"kinds\":[9999]}]");
        assertEquals("[\"COUNT\",\"later\",{\"count\":0}]", flooder.next(), "slots come back as queries finish");
    }

    @Test
    void ephemeralEventsNeverWaitForTheStoreOnTheCallersThread() throws Exception {
        relay.handle(client, "[\"REQ\",\"e\",{\"kinds\":[20001],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"e\"]", client.next());
        store.announceStarted = new CountDownLatch(1);
        store.releaseAnnounce = new CountDownLatch(1);
        Event eph = Events.sign(key, NOW, 20001, List.of(), "typing");
        Client writer = connect("w");
        CountDownLatch handled = new CountDownLatch(1);
        Thread eventLoop = new Thread(() -> {
            relay.handle(writer, "[\"EVENT\"," + eph.json() + "]");
            handled.countDown();
        });
        eventLoop.start();
        assertTrue(handled.await(5, TimeUnit.SECONDS), "handle() returned while pg_notify is stuck");
        assertEquals(RelayMessages.event("e", eph.json()), client.next(), "local subscribers have it at once");
        assertTrue(store.announceStarted.await(5, TimeUnit.SECONDS));
        store.releaseAnnounce.countDown();
        assertEquals("[\"OK\",\"" + eph.id().hex() + "\",true,\"\"]", writer.next());
    }

    @Test
    void aStuckSubscriberDoesNotHoldUpCommits() throws Exception {
        CountDownLatch stuck = new CountDownLatch(1), release = new CountDownLatch(1);
        Client slow = new Client("slow") {
            @Override
            public boolean send(String text) {
                if (text.startsWith("[\"EVENT\"")) {
                    stuck.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.send(text);
            }
        };
        relay.opened(slow);
        slow.next();
        relay.handle(slow, "[\"REQ\",\"s\",{\"limit\":0}]");
        assertEquals("[\"EOSE\",\"s\"]", slow.next());
        publish(client, note(NOW, "first"));
        assertTrue(stuck.await(5, TimeUnit.SECONDS));
        for (int i = 0; i < 5; i++) {
            publish(client, note(NOW, "while the subscriber is stuck " + i)); // committed and answered all the same
        }
        release.countDown();
    }

    @Test
    void heldBackEventsAreBoundedAndTheSubscriptionIsClosedPastIt() throws Exception {
        store.hold(f -> f.kinds() != null && f.kinds().contains(1));
        Client reader = connect("r");
        relay.handle(reader, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertTrue(store.queryStarted.await(5, TimeUnit.SECONDS));
        for (int i = 0; i < 6; i++) {
            publish(client, note(NOW, "live " + i)); // 5 may be held back
        }
        assertEquals("[\"CLOSED\",\"s\",\"error: more than 5 new events arrived while the stored ones were being sent; subscribe again\"]",
                reader.next());
        store.releaseQuery.countDown();
        relay.handle(reader, "[\"REQ\",\"again\",{\"kinds\":[1],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"again\"]", reader.next(), "the closed subscription sent neither events nor EOSE");
        Event later = note(NOW, "later");
        publish(client, later);
        assertEquals(RelayMessages.event("again", later.json()), reader.next());
        assertEquals(1, relay.liveSubscriptions(), "only `again` is live");
    }

    @Test
    void anEventReadFromTheStoreAndBroadcastAfterEoseIsSentOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        store.savedStarted = new CountDownLatch(1);
        store.releaseSaved = release;
        Event e = note(NOW, "committed before the query, broadcast after it");
        relay.handle(client, "[\"EVENT\"," + e.json() + "]");
        assertTrue(store.savedStarted.await(5, TimeUnit.SECONDS), "stored; the writer has not yet handed it on");
        store.releaseSaved = null;
        Client reader = connect("r");
        relay.handle(reader, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertEquals(RelayMessages.event("s", e.json()), reader.next());
        assertEquals("[\"EOSE\",\"s\"]", reader.next());
        release.countDown(); // the writer goes on: it hands `e` to the fan-out now, after the stored phase has ended
        assertEquals("[\"OK\",\"" + e.id().hex() + "\",true,\"\"]", client.next());
        Event barrier = note(NOW, "barrier");
        publish(client, barrier);
        assertEquals(RelayMessages.event("s", barrier.json()), reader.next(), "`e` was not sent a second time");
    }
}
