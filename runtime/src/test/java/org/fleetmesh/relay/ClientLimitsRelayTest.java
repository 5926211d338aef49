package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.fleetmesh.relay.limits.ClientLimits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Client limits through the relay's dispatch: refusals are answered and nothing past a budget is stored. */
class ClientLimitsRelayTest {
    static final long NOW = 1_700_000_000L;
    /** Tier 0: 5 events, 3 REQs, 2 subscriptions per 60 s. */
    static final TierPolicy POLICY = new TierPolicy(List.of(new Tier(0, 100_000, 5, 3, 2)), 60, 10);

    final AtomicLong nanos = new AtomicLong(1);
    MemoryStore store;
    Relay relay;

    static final class Client extends RelayTest.Client {
        final String address;

        Client(String id, String address) {
            super(id);
            this.address = address;
        }

        @Override
        public String address() {
            return address;
        }
    }

    @BeforeEach
    void start() {
        store = new MemoryStore();
        relay = new Relay(store, RelayLimits.DEFAULT, RelayPolicy.OPEN, new ClientLimits(POLICY, 1000), nanos::get, 2,
                () -> NOW);
    }

    @AfterEach
    void stop() {
        relay.close();
    }

    Client connect(String id, String address) throws InterruptedException {
        Client c = new Client(id, address);
        relay.opened(c);
        assertTrue(c.next().startsWith("[\"AUTH\""));
        return c;
    }

    @Test
    void aFloodingAddressIsRefusedAndNothingPastItsBudgetIsStoredWhileAnotherIsServed() throws Exception {
        Client flood = connect("f", "192.0.2.1");
        Client honest = connect("h", "192.0.2.2");
        byte[] key = Schnorr.newSecretKey();
        int accepted = 0;
        for (int i = 0; i < 20; i++) {
            Event e = Events.sign(key, NOW, 1, List.of(), "flood " + i);
            relay.handle(flood, "[\"EVENT\"," + e.json() + "]");
            String ok = flood.next();
            if (ok.startsWith("[\"OK\",\"" + e.id().hex() + "\",true,\"\"]")) {
                accepted++;
            } else {
                assertTrue(ok.startsWith("[\"OK\",\"" + e.id().hex() + "\",false,\"rate-limited: this address sent too many"), ok);
            }
        }
        assertEquals(5, accepted);
        assertEquals(5, store.events.size(), "nothing past the budget is stored");
        Event h = Events.sign(Schnorr.newSecretKey(), NOW, 1, List.of(), "honest");
        relay.handle(honest, "[\"EVENT\"," + h.json() + "]");
        assertEquals("[\"OK\",\"" + h.id().hex() + "\",true,\"\"]", honest.next());
    }

    @Test
    void reqsAndSubscriptionsAreHeldToTheTierAndClosedSubscriptionsAreGivenBack() throws Exception {
        Client a = connect("a", "192.0.2.3");
        Client b = connect("b", "192.0.2.3"); // same address, another connection
        relay.handle(a, "[\"REQ\",\"s1\",{\"kinds\":[1]}]");
        assertEquals("[\"EOSE\",\"s1\"]", a.next());
        relay.handle(b, "[\"REQ\",\"s2\",{\"kinds\":[1]}]");
        assertEquals("[\"EOSE\",\"s2\"]", b.next());
        relay.handle(b, "[\"REQ\",\"s3\",{\"kinds\":[1]}]");
        assertEquals("[\"CLOSED\",\"s3\",\"rate-limited: this address holds its 2 concurrent subscriptions (tier 0); close one first\"]",
                b.next());
        relay.closed(a); // its subscription no longer counts
        nanos.addAndGet(60_000_000_000L); // a new window: REQs refilled
        relay.handle(b, "[\"REQ\",\"s3\",{\"kinds\":[1]}]");
        assertEquals("[\"EOSE\",\"s3\"]", b.next());
        relay.handle(b, "[\"COUNT\",\"c1\",{\"kinds\":[1]}]");
        assertEquals("[\"COUNT\",\"c1\",{\"count\":0}]", b.next());
        relay.handle(b, "[\"COUNT\",\"c2\",{\"kinds\":[1]}]");
        assertEquals("[\"COUNT\",\"c2\",{\"count\":0}]", b.next());
        relay.handle(b, "[\"COUNT\",\"c3\",{\"kinds\":[1]}]");
        String closed = b.next();
        assertTrue(closed.startsWith("[\"CLOSED\",\"c3\",\"rate-limited: this address sent too many REQs and COUNTs"), closed);
    }

    @Test
    void aRefusedReqEndsTheSubscriptionItWouldHaveReplaced() throws Exception {
        Client a = connect("a", "192.0.2.6");
        for (int i = 0; i < 3; i++) {
            relay.handle(a, "[\"REQ\",\"same\",{\"kinds\":[1]}]");
            assertEquals("[\"EOSE\",\"same\"]", a.next());
        }
        relay.handle(a, "[\"REQ\",\"same\",{\"kinds\":[1]}]");
        assertTrue(a.next().startsWith("[\"CLOSED\",\"same\",\"rate-limited:"));
        Client w = connect("w", "192.0.2.7");
        relay.handle(w, "[\"REQ\",\"w\",{\"kinds\":[1],\"limit\":0}]");
        assertEquals("[\"EOSE\",\"w\"]", w.next());
        Event e1 = Events.sign(Schnorr.newSecretKey(), NOW, 1, List.of(), "one");
        Event e2 = Events.sign(Schnorr.newSecretKey(), NOW, 1, List.of(), "two");
        relay.handle(w, "[\"EVENT\"," + e1.json() + "]");
        relay.handle(w, "[\"EVENT\"," + e2.json() + "]");
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < 4; i++) {
            seen.add(w.next());
        }
        assertTrue(seen.contains("[\"EVENT\",\"w\"," + e2.json() + "]"), "ordering barrier: e1 has passed the fan-out: " + seen);
        assertEquals(null, a.received.peek(), "the refused subscription no longer delivers: " + a.received);
    }

    /** A NEG-OPEN and each NEG-MSG are paid from the query budget (3 per window here), the next one NEG-ERR'd. */
    @Test
    void negentropyMessagesArePaidFromTheAddresssQueryBudget() throws Exception {
        Client a = connect("a", "192.0.2.6");
        String initiate = org.fleetmesh.nostr.Hex.encode(new org.fleetmesh.negentropy.Negentropy(
                org.fleetmesh.negentropy.SortedVector.builder().seal(), 0).initiate());
        relay.handle(a, "[\"NEG-OPEN\",\"n\",{},\"" + initiate + "\"]");
        String first = a.next();
        assertTrue(first.startsWith("[\"NEG-MSG\",\"n\","), first);
        relay.handle(a, "[\"NEG-MSG\",\"n\",\"" + initiate + "\"]");
        assertTrue(a.next().startsWith("[\"NEG-MSG\",\"n\","));
        relay.handle(a, "[\"NEG-MSG\",\"n\",\"" + initiate + "\"]");
        assertTrue(a.next().startsWith("[\"NEG-MSG\",\"n\","));
        relay.handle(a, "[\"NEG-MSG\",\"n\",\"" + initiate + "\"]");
        String refused = a.next();
        assertTrue(refused.startsWith("[\"NEG-ERR\",\"n\",\"rate-limited: "), refused);
        nanos.addAndGet(61_000_000_000L); // a window later: the session was closed by its NEG-ERR
        relay.handle(a, "[\"NEG-MSG\",\"n\",\"" + initiate + "\"]");
        assertTrue(a.next().startsWith("[\"NEG-ERR\",\"n\",\"closed:"));
    }

    @Test
    void authEventsArePaidFromTheAddresssEventBudget() throws Exception {
        Client a = connect("a", "192.0.2.5");
        byte[] key = Schnorr.newSecretKey();
        for (int i = 0; i < 5; i++) {
            Event bad = Events.sign(key, NOW, 22242, List.of(List.of("relay", "wss://x/"), List.of("challenge", "no")), "" + i);
            relay.handle(a, "[\"AUTH\"," + bad.json() + "]");
            String answer = a.next();
            assertTrue(answer.contains(",false,\"") && !answer.contains("rate-limited"), answer); // a wrong challenge
        }
        Event more = Events.sign(key, NOW, 22242, List.of(List.of("relay", "wss://x/"), List.of("challenge", "no")), "6");
        relay.handle(a, "[\"AUTH\"," + more.json() + "]");
        String ok = a.next();
        assertTrue(ok.startsWith("[\"OK\",\"" + more.id().hex() + "\",false,\"rate-limited: this address sent too many events"), ok);
    }

    @Test
    void aRefusedEventCostsItsAuthorNothing() throws Exception {
        Client a = connect("a", "192.0.2.4");
        byte[] key = Schnorr.newSecretKey();
        Event bad = Events.sign(key, NOW + 100_000, 1, List.of(), "from the future");
        relay.handle(a, "[\"EVENT\"," + bad.json() + "]");
        assertTrue(a.next().contains("false,\"invalid: created_at"));
        for (int i = 0; i < 4; i++) {
            Client other = connect("o" + i, "192.0.2." + (10 + i));
            Event e = Events.sign(key, NOW, 1, List.of(), "ok " + i);
            relay.handle(other, "[\"EVENT\"," + e.json() + "]");
            assertEquals("[\"OK\",\"" + e.id().hex() + "\",true,\"\"]", other.next());
        }
        Client last = connect("last", "192.0.2.20");
        Event fifth = Events.sign(key, NOW, 1, List.of(), "fifth");
        relay.handle(last, "[\"EVENT\"," + fifth.json() + "]");
        assertEquals("[\"OK\",\"" + fifth.id().hex() + "\",true,\"\"]", last.next(), "the refused event was given back");
    }
}
