package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;

/** The fan-out queue is bounded and keeps each subscription's order. */
class FanOutTest {
    final byte[] key = Schnorr.newSecretKey();

    Event ephemeral(int i) {
        return Events.sign(key, 1_700_000_000L, 20001, List.of(), "e" + i);
    }

    @Test
    void aFullQueueRefusesEphemeralEventsAndDeliversTheRestInOrder() throws Exception {
        CountDownLatch stuck = new CountDownLatch(1), release = new CountDownLatch(1);
        RelayTest.Client slow = new RelayTest.Client("slow") {
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
        try (FanOut fanOut = new FanOut(2, 10)) {
            Subscription sub = new Subscription("s", List.of(Filter.ALL), new ClientState(slow), 10);
            sub.storedPhaseDone(java.util.Set.of()); // live
            slow.received.clear();
            fanOut.register(sub);
            List<Event> taken = new ArrayList<>();
            Event first = ephemeral(0);
            assertTrue(fanOut.ephemeral(first));
            taken.add(first);
            assertTrue(stuck.await(5, TimeUnit.SECONDS), "the fan-out thread is stuck sending the first event");
            for (int i = 1; i <= 2; i++) {
                Event e = ephemeral(i);
                assertTrue(fanOut.ephemeral(e), "room for 2 waiting events");
                taken.add(e);
            }
            assertFalse(fanOut.ephemeral(ephemeral(3)), "a third waiting event is refused");
            release.countDown();
            for (Event e : taken) {
                assertEquals(RelayMessages.event("s", e.json()), slow.next(), "in the order handed over");
            }
            Event after = ephemeral(4);
            assertTrue(fanOut.ephemeral(after), "room again once delivered");
            assertEquals(RelayMessages.event("s", after.json()), slow.next());
        }
    }

    @Test
    void eventsHandedOverBeforeASubscriptionRegisteredAreNotLiveForIt() throws Exception {
        RelayTest.Client c = new RelayTest.Client("c");
        try (FanOut fanOut = new FanOut(100, 10)) {
            RelayTest.Client early = new RelayTest.Client("early");
            Subscription first = new Subscription("a", List.of(Filter.ALL), new ClientState(early), 10);
            first.storedPhaseDone(java.util.Set.of());
            early.received.clear();
            fanOut.register(first);
            Event before = ephemeral(0);
            fanOut.ephemeral(before);
            Subscription late = new Subscription("b", List.of(Filter.ALL), new ClientState(c), 10);
            late.storedPhaseDone(java.util.Set.of());
            c.received.clear();
            fanOut.register(late);
            Event after = ephemeral(1);
            fanOut.ephemeral(after);
            assertEquals(RelayMessages.event("a", before.json()), early.next());
            assertEquals(RelayMessages.event("a", after.json()), early.next());
            assertEquals(RelayMessages.event("b", after.json()), c.next(), "`before` was not live for the later subscription");
        }
    }
}
