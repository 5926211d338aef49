package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.relay.capacity.CapacityPolicy;
import org.fleetmesh.relay.capacity.Priority;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shedding by priority through the relay core, under real pressure: the store's commit is held,
 * so events pile up in the write queue (10 places; the queue's fill is the signal, read at every
 * check, and a tier comes back at once when the pressure has fallen).
 */
class RelayCapacityTest {
    static final long NOW = 1_700_000_000L;
    static final CapacityPolicy QUEUE_ONLY = new CapacityPolicy(true, 1.0, Duration.ofHours(1), 1.0, 0.0, 1.0, 0.5, 0.7, 0.85, 1.0,
            0.75, Duration.ZERO, Duration.ZERO);
    final byte[] key = Schnorr.newSecretKey();
    MemoryStore store;
    Relay relay;
    int serial;

    /** A connection whose messages can be taken out of order (OKs come from the writer, the rest from other threads). */
    static final class Client implements Connection {
        final String id;
        private final LinkedList<String> inbox = new LinkedList<>();

        Client(String id) {
            this.id = id;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public synchronized boolean send(String text) {
            inbox.add(text);
            notifyAll();
            return true;
        }

        synchronized String take(Predicate<String> p, String what) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                for (Iterator<String> it = inbox.iterator(); it.hasNext();) {
                    String m = it.next();
                    if (p.test(m)) {
                        it.remove();
                        return m;
                    }
                }
                long left = deadline - System.nanoTime();
                assertTrue(left > 0, "no " + what + " among " + inbox);
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }

        String forSub(String verb, String sub) throws InterruptedException {
            String prefix = "[\"" + verb + "\",\"" + sub + "\"";
            return take(m -> m.startsWith(prefix), verb + " " + sub);
        }

        String ok(Event e) throws InterruptedException {
            String prefix = "[\"OK\",\"" + e.id().hex() + "\"";
            return take(m -> m.startsWith(prefix), "OK for " + e.id().hex());
        }
    }

    @BeforeEach
    void start() {
        store = new MemoryStore();
        RelayLimits l = RelayLimits.DEFAULT;
        RelayLimits tenQueued = new RelayLimits(l.maxMessageLength(), l.maxSubscriptions(), l.maxFilters(), l.maxLimit(),
                l.defaultLimit(), l.maxEventTags(), l.maxContentLength(), l.createdAtUpperSkew(), l.createdAtLowerSkew(),
                l.sendQueueBytes(), 10, l.negMaxItems(), l.negFrameSizeLimit(), l.negIdleSeconds());
        relay = new Relay(store, tenQueued, RelayPolicy.OPEN, 2, () -> NOW);
        relay.capacity().apply(QUEUE_ONLY);
    }

    @AfterEach
    void stop() {
        CountDownLatch release = store.releaseSave;
        if (release != null) {
            release.countDown();
        }
        relay.close();
    }

    Client connect(String id) throws InterruptedException {
        Client c = new Client(id);
        relay.opened(c);
        c.take(m -> m.startsWith("[\"AUTH\""), "AUTH challenge");
        return c;
    }

    Event note() {
        return Events.sign(key, NOW, 1, List.of(), "note " + serial++);
    }

    Event ephemeral() {
        return Events.sign(key, NOW, 20001, List.of(), "live " + serial++);
    }

    static String event(Event e) {
        return "[\"EVENT\"," + e.json() + "]";
    }

    static String negOpen(String sub) {
        return "[\"NEG-OPEN\",\"" + sub + "\",{},\"" + Hex.encode(RelayTest.initiatorOver(List.of()).initiate()) + "\"]";
    }

    /** Holds the commit of the next batch and waits until the writer is in it. */
    void stallCommits() throws InterruptedException {
        store.saveStarted = new CountDownLatch(1);
        store.releaseSave = new CountDownLatch(1);
    }

    @Test
    void backfillIsShedFirstWhileQueriesAndLiveRoutingGoOnAndServiceReturns() throws Exception {
        Client writer = connect("writer");
        Client reader = connect("reader");
        Client listener = connect("listener");
        relay.handle(listener, "[\"REQ\",\"live\",{\"kinds\":[20001],\"limit\":0}]");
        listener.forSub("EOSE", "live");

        stallCommits();
        List<Event> written = new ArrayList<>();
        Event first = note();
        written.add(first);
        relay.handle(writer, event(first));
        assertTrue(store.saveStarted.await(10, TimeUnit.SECONDS), "the writer is in the held commit");
        for (int i = 0; i < 6; i++) { // 6 of 10 queued: pressure 0.6, backfill only
            Event e = note();
            written.add(e);
            relay.handle(writer, event(e));
        }

        relay.handle(reader, negOpen("neg"));
        String negErr = reader.forSub("NEG-ERR", "neg");
        assertEquals("[\"NEG-ERR\",\"neg\",\"rate-limited: the relay is under load (write queue 60% full); "
                + "negentropy sync and backfill paused; try again in a few seconds\"]", negErr);
        relay.handle(reader, "[\"REQ\",\"q\",{\"kinds\":[1],\"limit\":5}]");
        reader.forSub("EOSE", "q"); // client queries still served
        Event live = ephemeral();
        relay.handle(writer, event(live));
        assertEquals(RelayMessages.ok(live.id().hex(), true, ""), writer.ok(live));
        assertTrue(listener.forSub("EVENT", "live").contains(live.id().hex()), "live routing keeps flowing");

        for (int i = 0; i < 3; i++) { // 9 of 10: pressure 0.9, client queries shed too
            Event e = note();
            written.add(e);
            relay.handle(writer, event(e));
        }
        relay.handle(reader, "[\"REQ\",\"q2\",{\"kinds\":[1]}]");
        assertTrue(reader.forSub("CLOSED", "q2").contains("\"rate-limited: the relay is under load (write queue 90% full); "
                + "client queries paused"));
        relay.handle(reader, "[\"COUNT\",\"c\",{\"kinds\":[1]}]");
        assertTrue(reader.forSub("CLOSED", "c").contains("rate-limited: the relay is under load"));
        relay.handle(reader, "[\"REQ\",\"liveonly\",{\"kinds\":[20001],\"limit\":0}]");
        reader.forSub("EOSE", "liveonly"); // a REQ that reads nothing stored is live routing
        Event tenth = note();
        written.add(tenth);
        relay.handle(writer, event(tenth)); // the 10th place
        Event refused = note();
        relay.handle(writer, event(refused));
        assertTrue(writer.ok(refused).startsWith("[\"OK\",\"" + refused.id().hex()
                + "\",false,\"rate-limited: the relay is under load (write queue 100% full); client events paused"));
        Event live2 = ephemeral();
        relay.handle(writer, event(live2));
        assertTrue(listener.forSub("EVENT", "live").contains(live2.id().hex()), "live routing flows at full pressure");
        assertTrue(reader.forSub("EVENT", "liveonly").contains(live2.id().hex()));

        store.releaseSave.countDown();
        for (Event e : written) {
            assertEquals(RelayMessages.ok(e.id().hex(), true, ""), writer.ok(e), "every queued event is stored");
        }
        assertEquals(written.size(), store.events.size());
        relay.handle(reader, negOpen("neg2"));
        assertTrue(reader.forSub("NEG-MSG", "neg2").startsWith("[\"NEG-MSG\",\"neg2\",\"61"), "backfill is back");
        relay.handle(reader, "[\"REQ\",\"q3\",{\"kinds\":[1],\"limit\":100}]");
        for (int i = 0; i < written.size(); i++) {
            reader.forSub("EVENT", "q3");
        }
        reader.forSub("EOSE", "q3");
        assertTrue(relay.capacity().refused(Priority.BACKFILL) >= 1);
        assertEquals(2, relay.capacity().refused(Priority.CLIENT_REQ));
        assertEquals(1, relay.capacity().refused(Priority.CLIENT_EVENT));
    }

    @Test
    void aShedReqEndsTheSubscriptionItWouldReplace() throws Exception {
        Client reader = connect("reader");
        relay.handle(reader, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        reader.forSub("EOSE", "s");
        stallCommits();
        Client writer = connect("writer");
        relay.handle(writer, event(note()));
        assertTrue(store.saveStarted.await(10, TimeUnit.SECONDS));
        for (int i = 0; i < 9; i++) {
            relay.handle(writer, event(note()));
        }
        relay.handle(reader, "[\"REQ\",\"s\",{\"kinds\":[1]}]");
        assertNotNull(reader.forSub("CLOSED", "s"));
        assertEquals(0, relay.liveSubscriptions(), "the old subscription with this id is gone too");
    }

    @Test
    void peerEventsAreShedBeforeClientEvents() throws Exception {
        stallCommits();
        Client writer = connect("writer");
        relay.handle(writer, event(note()));
        assertTrue(store.saveStarted.await(10, TimeUnit.SECONDS));
        for (int i = 0; i < 7; i++) { // 0.7: peer sync shed, client events not
            relay.handle(writer, event(note()));
        }
        Event fromPeer = note();
        List<Ingest.Outcome> peer = relay.ingest().submit(List.of(fromPeer), new Origin.Peer("did:key:z6Mkpeer"))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(Ingest.Status.REFUSED, peer.get(0).status());
        assertTrue(peer.get(0).message().startsWith("rate-limited: the relay is under load (write queue 70% full); peer sync paused"),
                peer.get(0).message());
        assertEquals(Priority.PEER_SYNC, Ingest.priority(fromPeer, new Origin.Peer("x")));
        Event fromClient = note();
        relay.handle(writer, event(fromClient));
        store.releaseSave.countDown();
        assertEquals(RelayMessages.ok(fromClient.id().hex(), true, ""), writer.ok(fromClient));
    }
}
