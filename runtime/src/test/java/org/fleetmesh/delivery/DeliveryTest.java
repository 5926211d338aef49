package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two (or three) Delivery ends wired to each other in memory: forwarding, receipts, cursor, restarts, hops. */
class DeliveryTest {
    static final List<Filter> KIND_1 = List.of(new Filter(null, null, Set.of(1), Map.of(), null, null, null));
    final Mesh mesh = new Mesh();

    @AfterEach
    void close() {
        mesh.close();
    }

    static long leaves(Mesh.Node n, CustodyLedger.Side side, Mesh.Node peer) {
        return n.ledger.head(side, peer.shortDid()).map(CustodyLedger.Receipt::treeSize).orElse(0L);
    }

    static String headId(Mesh.Node n, CustodyLedger.Side side, Mesh.Node peer) {
        return n.ledger.head(side, peer.shortDid()).map(r -> r.receiptId().hex()).orElse(null);
    }

    List<Event> events(int kind, int from, int count) {
        List<Event> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            out.add(mesh.event(kind, i));
        }
        return out;
    }

    @Test
    void forwardsWhatThePeerWantsWithReceiptsAndAdvancesTheCursor() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        List<Event> notes = events(1, 0, 10);
        a.publish(notes.toArray(Event[]::new));
        a.publish(events(7, 100, 3).toArray(Event[]::new));
        mesh.link(a, b);
        mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 10, "A holds receipts for 10 events");
        mesh.quiesce();
        for (Event e : notes) {
            assertTrue(b.store.holds(e.id()), "B holds " + e.id());
        }
        assertEquals(10, b.store.size(), "kind 7 is not wanted");
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(a.store.lastSequence(), a.ledger.outbound(b.shortDid()).orElseThrow().ackedSeq());
        Map<String, Object> status = new LinkedHashMap<>();
        a.delivery.describe(b.shortDid(), status);
        assertEquals(0L, status.get("queue"));
        @SuppressWarnings("unchecked")
        Map<String, Object> custody = (Map<String, Object>) status.get("custody");
        assertNull(custody.get("halted"));
        assertEquals(10L, ((Map<?, ?>) custody.get("sent")).get("size"));
    }

    @Test
    void forwardsLiveAfterTheCommit() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        mesh.link(a, b);
        mesh.quiesce();
        Event e = mesh.event(1, 1);
        a.publish(e);
        mesh.await(() -> b.store.holds(e.id()), "B holds the live event");
        mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 1, "A holds its receipt");
    }

    @SuppressWarnings("unchecked")
    static Object halted(Mesh.Node n, Mesh.Node peer) {
        Map<String, Object> status = new LinkedHashMap<>();
        n.delivery.describe(peer.shortDid(), status);
        return ((Map<String, Object>) status.get("custody")).get("halted");
    }

    /**
     * The sender's own ledger failing for a while (its database restarted under it): forwarding stops, and a moment
     * later this node ends the link (error, "link again"), so that the next link starts from the ledger; on it every
     * event is receipted once. Before, forwarding stayed halted ("error: the custody ledger refused a receipt step")
     * for as long as the link stayed up (found by ChaosIT killing a node's PostgreSQL). A persisted halt or cursor is
     * not overwritten meanwhile by the forwarder that failed.
     */
    @Test
    void aLedgerFailureOfTheSenderEndsTheLinkAndTheNextOneForwards() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        Mesh.Link first = mesh.link(a, b);
        a.publish(events(1, 0, 4).toArray(Event[]::new));
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 4, "A holds 4 receipts");
        a.flaky.writesDown.set(true);
        a.publish(events(1, 4, 4).toArray(Event[]::new));
        Mesh.await(() -> String.valueOf(halted(a, b)).contains("the custody ledger refused a receipt step"),
                "A's forwarding stopped on its ledger's failure");
        Mesh.await(() -> first.ab.errors.stream().anyMatch(e -> e.contains("custody ledger failed; link again")),
                "A ends the link to make it again");
        a.flaky.writesDown.set(false);
        first.cut();
        mesh.link(a, b);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 8 && halted(a, b) == null,
                "on the next link every event is receipted");
        assertEquals(8, leaves(b, CustodyLedger.Side.RECEIVED, a));
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(8, b.store.size(), "nothing stored twice");
    }

    /** A forwarder whose outbound state did not load does not write its initial values over the ledger's. */
    @Test
    void aForwarderWhoseLoadFailedDoesNotOverwriteTheOutboundState() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        Mesh.Link first = mesh.link(a, b);
        a.publish(events(1, 0, 4).toArray(Event[]::new));
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 4, "A holds 4 receipts");
        first.cut();
        CustodyLedger.Outbound before = a.ledger.outbound(b.shortDid()).orElseThrow();
        assertEquals(4, before.ackedSeq());
        a.flaky.down.set(true);
        Mesh.Link second = mesh.link(a, b); // its forwarder's load fails
        Mesh.await(() -> String.valueOf(halted(a, b)).contains("could not load the outbound state"), "the load failed");
        a.flaky.down.set(false);
        // what would save the outbound state: the peer's federate filters, a suspension
        second.ba.send("[\"MESH-FEDERATE\",[{\"kinds\":[1]}]]");
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        CustodyLedger.Outbound after = a.ledger.outbound(b.shortDid()).orElseThrow();
        assertEquals(before.ackedSeq(), after.ackedSeq(), "the cursor kept");
        assertEquals(before.nextFrameSeq(), after.nextFrameSeq());
    }

    /**
     * A scan of the store that failed on the ledger (the events' holders) is tried again by itself: the events committed
     * meanwhile go out without waiting for another commit.
     */
    @Test
    void aScanThatFailedIsTriedAgainWithoutANewCommit() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        mesh.link(a, b);
        a.publish(events(1, 0, 2).toArray(Event[]::new));
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 2, "A holds 2 receipts");
        a.flaky.down.set(true);
        a.publish(events(1, 2, 3).toArray(Event[]::new));
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        a.flaky.down.set(false);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 5, "the 3 events go out with no further commit");
        assertEquals(5, b.store.size());
    }

    /** The same on the receiver: its ledger failing as the link opens, the custody head is read again later. */
    @Test
    void aLedgerFailureOfTheReceiverAtTheLinkIsRetried() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 4).toArray(Event[]::new));
        b.flaky.down.set(true);
        mesh.link(a, b);
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertEquals(0, b.store.size(), "nothing taken while B cannot record custody");
        b.flaky.down.set(false);
        Mesh.await(() -> leaves(b, CustodyLedger.Side.RECEIVED, a) == 4 && leaves(a, CustodyLedger.Side.SENT, b) == 4,
                "B reads its custody head again and takes the frames");
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(null, halted(a, b));
    }

    static int taken(Mesh.Node n) {
        return n.fromPeer.stream().mapToInt(List::size).sum();
    }

    @Test
    void lostReceiptsAreCaughtUpAtRelinkAndNothingIsSentTwice() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 16).toArray(Event[]::new));
        int[] receipts = { 0 };
        Mesh.Link first = mesh.link(a, b, t -> t.startsWith("[\"MESH-RECEIPT\"") && ++receipts[0] > 1 ? null : t);
        Mesh.await(() -> b.store.size() == 16, "B stores all 16 (4 frames in flight)");
        Mesh.await(() -> leaves(b, CustodyLedger.Side.RECEIVED, a) == 16, "B receipted all 16");
        mesh.quiesce();
        assertEquals(4, leaves(a, CustodyLedger.Side.SENT, b), "A saw only the first receipt");
        first.cut();
        Mesh.Link second = mesh.link(a, b);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 16, "A caught up to 16");
        mesh.quiesce();
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(3, second.ba.sent("MESH-RECEIPT").stream().filter(m -> m.contains("\"catch_up\":true")).count());
        assertTrue(second.ab.sent("MESH-EVENTS").isEmpty(), "what the peer receipted is not sent again");
        assertEquals(16, taken(b), "every event crossed once");
        Event later = mesh.event(1, 50);
        a.publish(later);
        Mesh.await(() -> b.store.holds(later.id()), "forwarding goes on after the catch-up");
    }

    @Test
    void aRestartOfBothEndsResendsFromTheCursorAndStoresNothingTwice() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 12).toArray(Event[]::new));
        // B takes the first 2 frames and then the link dies, before any receipt reaches A
        int[] frames = { 0 };
        Mesh.Link first = mesh.new Link(a, b);
        first.ab.tamper = t -> t.startsWith("[\"MESH-EVENTS\"") && ++frames[0] > 2 ? null : t;
        first.ba.tamper = t -> t.startsWith("[\"MESH-RECEIPT\"") ? null : t;
        first.atA = a.delivery.open(first.ab, a.account(b));
        first.atB = b.delivery.open(first.ba, b.account(a));
        first.ba.target = first.atA;
        first.ab.target = first.atB;
        first.ab.release();
        first.ba.release();
        Mesh.await(() -> leaves(b, CustodyLedger.Side.RECEIVED, a) == 8, "B receipted 2 frames");
        mesh.quiesce();
        first.cut();
        assertEquals(0, a.ledger.outbound(b.shortDid()).map(CustodyLedger.Outbound::ackedSeq).orElse(0L));
        a.restart();
        b.restart();
        mesh.link(a, b);
        Mesh.await(() -> b.store.size() == 12 && leaves(a, CustodyLedger.Side.SENT, b) == 12, "all 12 in custody");
        mesh.quiesce();
        assertEquals(12, taken(b), "the 8 B receipted before the restart were not sent again");
        assertEquals(12, leaves(b, CustodyLedger.Side.RECEIVED, a), "no leaf twice");
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(a.store.lastSequence(), a.ledger.outbound(b.shortDid()).orElseThrow().ackedSeq());
    }

    @Test
    void aFrameTakenButNotReceiptedIsResentAndDedupedByTheReceiver() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 4).toArray(Event[]::new));
        // B's ledger is gone (a fresh receiver with the events already stored): A resends, B's store dedupes them
        b.store.save(a.store.events());
        mesh.link(a, b);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 4, "A holds a receipt for 4");
        mesh.quiesce();
        assertEquals(4, b.store.size(), "stored once");
        assertEquals(4, leaves(b, CustodyLedger.Side.RECEIVED, a), "duplicates are in custody too");
    }

    @Test
    void anEventRefusedTransientlyHoldsTheCursorAndIsResent() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        List<Event> notes = events(1, 0, 8);
        b.refuseOnce.add(notes.get(1).id().hex());
        a.publish(notes.toArray(Event[]::new));
        mesh.link(a, b);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 8, "all 8 receipted in the end");
        mesh.quiesce();
        assertEquals(8, b.store.size());
        assertEquals(a.store.lastSequence(), a.ledger.outbound(b.shortDid()).orElseThrow().ackedSeq());
        String first = a.ledger.receipts(CustodyLedger.Side.SENT, b.shortDid(), 0, 1).get(0).json();
        assertTrue(first.contains("[\"rejected\",\"" + notes.get(1).id().hex() + "\",\"rate-limited:"), first);
    }

    @Test
    void multiHopCarriesHopsAndNeverSendsBackWhatAPeerHolds() {
        Mesh.Node a = mesh.node("a", Mesh.settings(KIND_1));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        Mesh.Node c = mesh.node("c", Mesh.settings(KIND_1));
        mesh.link(a, b);
        mesh.link(b, c);
        mesh.quiesce();
        Event e = mesh.event(1, 1);
        a.publish(e);
        Mesh.await(() -> c.store.holds(e.id()), "C gets A's event through B");
        Mesh.await(() -> leaves(c, CustodyLedger.Side.RECEIVED, b) == 1, "C receipted it");
        // B may forward the event (live fan-out after its commit) before its own custody leaf for A is written
        Mesh.await(() -> leaves(b, CustodyLedger.Side.RECEIVED, a) == 1, "B receipted it");
        assertEquals(0, hopsOf(b, a, e), "A published it: hops 0 on the A-B link");
        assertEquals(1, hopsOf(c, b, e), "B forwards it with hops 1");
        // the barrier: an event from C reaches A through B after anything B would have sent back
        Event back = mesh.event(1, 2);
        c.publish(back);
        Mesh.await(() -> a.store.holds(back.id()), "C's event reaches A");
        mesh.quiesce();
        assertTrue(b.ledger.indexOf(CustodyLedger.Side.RECEIVED, c.shortDid(), List.of(e.id())).isEmpty(),
                "C did not send A's event back to B");
        assertTrue(a.ledger.indexOf(CustodyLedger.Side.RECEIVED, b.shortDid(), List.of(e.id())).isEmpty(),
                "B did not send it back to A");
        assertEquals(1, a.fromPeer.stream().mapToLong(l -> l.stream().filter(x -> x.id().equals(back.id())).count())
                .sum());
    }

    static int hopsOf(Mesh.Node n, Mesh.Node from, Event e) {
        return n.ledger.leaves(CustodyLedger.Side.RECEIVED, from.shortDid(), 0, 1000).stream()
                .filter(l -> l.eventId().equals(e.id())).findFirst().orElseThrow().hops();
    }

    @Test
    void theHopLimitStopsAnEventThatTravelledFarEnough() {
        Delivery.Settings d = Mesh.settings(KIND_1);
        Delivery.Settings twoHops = new Delivery.Settings(true, 4, d.frameBytes(), 4, 2, d.maxSkew(), 16, KIND_1,
                Map.of());
        Mesh.Node a = mesh.node("a", twoHops);
        Mesh.Node b = mesh.node("b", twoHops);
        Mesh.Node c = mesh.node("c", twoHops);
        Mesh.Node x = mesh.node("x", twoHops);
        mesh.link(a, b);
        mesh.link(b, c);
        mesh.link(c, x);
        mesh.quiesce();
        Event e = mesh.event(1, 1);
        a.publish(e);
        Mesh.await(() -> c.store.holds(e.id()), "two links: A-B (hops 0), B-C (hops 1)");
        Event late = mesh.event(1, 2);
        c.publish(late);
        Mesh.await(() -> x.store.holds(late.id()), "the barrier: C's own later event reaches X");
        mesh.quiesce();
        assertFalse(x.store.holds(e.id()), "hops 2 reaches the limit of 2: C does not forward it");
    }

    @Test
    void aTriangleStoresEachEventOnceEverywhereAndSettles() {
        Mesh.Node a = mesh.node("a", Mesh.settings(KIND_1));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        Mesh.Node c = mesh.node("c", Mesh.settings(KIND_1));
        mesh.link(a, b);
        mesh.link(b, c);
        mesh.link(c, a);
        mesh.quiesce();
        List<Event> es = events(1, 0, 6);
        a.publish(es.subList(0, 3).toArray(Event[]::new));
        b.publish(es.subList(3, 6).toArray(Event[]::new));
        for (Mesh.Node n : List.of(a, b, c)) {
            Mesh.await(() -> n.store.size() == 6, n.name + " holds all 6");
        }
        mesh.quiesce();
        for (Mesh.Node n : List.of(a, b, c)) {
            assertEquals(6, n.store.size(), "each event once at " + n.name);
            assertTrue(taken(n) <= 6 + 6, "an event reaches a node at most once per neighbour");
        }
    }

    @Test
    void theInFlightWindowBoundsUnreceiptedFrames() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 40).toArray(Event[]::new));
        Mesh.Link l = mesh.new Link(a, b);
        l.atA = a.delivery.open(l.ab, a.account(b));
        l.atB = b.delivery.open(l.ba, b.account(a));
        l.ba.target = l.atA;
        l.ab.target = l.atB;
        l.ab.release();
        // B's answers flow until its first receipt; then they are held
        l.ba.tamper = t -> {
            if (t.startsWith("[\"MESH-RECEIPT\"")) {
                l.ba.hold();
            }
            return t;
        };
        l.ba.release();
        Mesh.await(() -> b.fromPeer.size() == 4, "B takes 4 frames");
        mesh.quiesce();
        assertEquals(4, l.ab.sent("MESH-EVENTS").size(), "no fifth frame before a receipt");
        l.ba.tamper = java.util.function.Function.identity();
        l.ba.release();
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 40, "the rest goes once receipts flow");
    }

    @Test
    void framesCompletedTogetherShareOneLedgerWrite() throws Exception {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        mesh.link(a, b);
        mesh.quiesce();
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        b.ingestGate = gate;
        a.publish(events(1, 0, 12).toArray(Event[]::new));
        Mesh.await(() -> b.fromPeer.size() == 3, "B takes 3 frames, their ingest held");
        // B's io threads are busy while the three commits land: its custody lane then finds all three ready
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            b.io.execute(() -> {
                started.countDown();
                try {
                    busy.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        started.await();
        long before = b.delivery.ledgerAppends();
        gate.complete(null);
        Mesh.await(() -> b.writer.getActiveCount() == 0 && b.writer.getQueue().isEmpty()
                && b.store.size() == 12, "the three commits are done");
        busy.countDown();
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 12, "A holds the three receipts");
        assertEquals(before + 1, b.delivery.ledgerAppends(), "three receipts, one CustodyLedger.append");
        assertEquals(3, b.ledger.receipts(CustodyLedger.Side.RECEIVED, a.shortDid(), 0, 10).size());
    }

    @Test
    void aBacklogBuiltWhileCutOffDrainsWhenTheLinkReturns() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        Mesh.Link first = mesh.link(a, b);
        mesh.quiesce();
        first.cut();
        a.publish(events(1, 0, 30).toArray(Event[]::new));
        Map<String, Object> status = new LinkedHashMap<>();
        a.delivery.describe(b.shortDid(), status);
        assertEquals(30L, status.get("queue"), "the backlog waits, counted");
        mesh.link(a, b);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 30, "the backlog is receipted");
        mesh.quiesce();
        status.clear();
        a.delivery.describe(b.shortDid(), status);
        assertEquals(0L, status.get("queue"), "the queue drains to 0");
        assertEquals(30, b.store.size());
    }

    @Test
    void withoutReceiptsFramesAreAnsweredOkAndTheCursorStillAdvances() {
        Delivery.Settings d = Mesh.settings(KIND_1);
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", new Delivery.Settings(false, 4, d.frameBytes(), 4, 4, d.maxSkew(), 16, KIND_1,
                Map.of()));
        a.publish(events(1, 0, 10).toArray(Event[]::new));
        Mesh.Link l = mesh.link(a, b);
        Mesh.await(() -> b.store.size() == 10, "B stores all 10");
        Mesh.await(() -> a.ledger.outbound(b.shortDid()).map(CustodyLedger.Outbound::ackedSeq).orElse(0L) == 10,
                "A's cursor advances on MESH-EVENTS-OK");
        assertTrue(l.ba.sent("MESH-RECEIPT").isEmpty());
        assertEquals(3, l.ba.sent("MESH-EVENTS-OK").size());
        assertTrue(a.ledger.head(CustodyLedger.Side.SENT, b.shortDid()).isEmpty(), "no custody without receipts");
    }

    @Test
    void aCatchUpLongerThanOnePageComesInPages() {
        Delivery.Settings d = Mesh.settings(KIND_1);
        Delivery.Settings wide = new Delivery.Settings(true, 1, d.frameBytes(), 400, 4, d.maxSkew(), 16, List.of(),
                Map.of());
        Mesh.Node a = mesh.node("a", wide);
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 300).toArray(Event[]::new));
        Mesh.Link first = mesh.link(a, b, t -> t.startsWith("[\"MESH-RECEIPT\"") ? null : t);
        Mesh.await(() -> leaves(b, CustodyLedger.Side.RECEIVED, a) == 300, "B receipted 300 frames, none reached A");
        mesh.quiesce();
        first.cut();
        Mesh.Link second = mesh.link(a, b);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 300, "A caught up");
        List<String> heads = second.ba.sent("MESH-CUSTODY-HEAD");
        assertEquals(2, heads.size());
        assertTrue(heads.get(0).contains("\"more\":true"), heads.get(0));
        assertTrue(heads.get(1).contains("\"more\":false"), heads.get(1));
        assertEquals(300, second.ba.sent("MESH-RECEIPT").size());
    }

    @Test
    void aScanReadsAtMostOnePageOfTheStore() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 600).toArray(Event[]::new));
        mesh.link(a, b);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 600, "all 600 receipted");
        assertEquals(256, a.store.largestPage, "frames of 4: pages of 256 rows");
    }

    @Test
    void provenanceKeepsOnlyTheNewestEntries() {
        Provenance p = new Provenance(3);
        for (int i = 0; i < 10; i++) {
            p.arrived(mesh.event(1, i).id(), "did:peer:x", 0);
        }
        assertEquals(3, p.size());
        assertNull(p.of(mesh.event(1, 0).id()));
        assertEquals("did:peer:x", p.of(mesh.event(1, 9).id()).peer());
    }

    /** A second copy from another peer is remembered too: that peer holds the event, so it is not offered back. */
    @Test
    void provenanceKeepsEverySenderOfAnEvent() {
        Provenance p = new Provenance(10);
        EventId id = mesh.event(1, 1).id();
        p.arrived(id, "did:peer:i", 0);
        p.arrived(id, "did:peer:k", 1);
        assertTrue(p.of(id).from("did:peer:i") && p.of(id).from("did:peer:k"), p.of(id).toString());
        assertEquals(0, p.of(id).hops(), "the fewest hops any copy had");
        p.arrived(mesh.event(1, 2).id(), "did:peer:k", 2);
        p.arrived(mesh.event(1, 2).id(), "did:peer:i", 0);
        assertEquals(0, p.of(mesh.event(1, 2).id()).hops());
        assertEquals(2, p.of(mesh.event(1, 2).id()).peers().size());
    }

    @Test
    void receiptsOfFramesSentBeforeAResumeAndTheirCatchUpCopiesAreNotABreach() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 16).toArray(Event[]::new));
        Mesh.Link l = mesh.link(a, b, t -> t);
        l.ba.tamper = t -> {
            if (t.startsWith("[\"MESH-RECEIPT\"")) {
                l.ba.hold();
            }
            return t;
        };
        Mesh.await(() -> b.fromPeer.size() == 4, "B takes 4 frames");
        Mesh.await(() -> leaves(b, CustodyLedger.Side.RECEIVED, a) == 16, "B receipted them");
        mesh.quiesce();
        l.atA.suspended(); // A halts with 4 frames in flight
        a.delivery.resume(b.shortDid()); // and resumes: a new custody exchange on the same link
        l.ba.tamper = java.util.function.Function.identity();
        l.ba.release(); // the 4 receipts arrive, then their catch-up copies
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 16, "A verified the chain");
        mesh.quiesce();
        assertTrue(a.links.evidence(b.shortDid(), 10).isEmpty(), () -> "no breach: " + a.links.evidence(b.shortDid(), 10));
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(16, taken(b), "nothing sent twice");
        Event later = mesh.event(1, 40);
        a.publish(later);
        Mesh.await(() -> b.store.holds(later.id()), "forwarding goes on");
    }

    @Test
    void aReceiverWithTooManyFramesWaitingRefusesTheNextUntilItCatchesUp() {
        Delivery.Settings d = Mesh.settings(KIND_1);
        Mesh.Node a = mesh.node("a", new Delivery.Settings(true, 1, d.frameBytes(), 80, 4, d.maxSkew(), 16, List.of(),
                Map.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        Mesh.Link l = mesh.link(a, b);
        mesh.quiesce();
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        b.ingestGate = gate;
        a.publish(events(1, 0, 70).toArray(Event[]::new));
        Mesh.await(() -> l.ba.sent("MESH-EVENTS-REFUSED").size() > 0, "B refuses a frame past its queue");
        assertTrue(l.ba.sent("MESH-EVENTS-REFUSED").get(0).contains(
                "rate-limited: 64 frames wait for their receipts; send again later"), l.ba.sent("MESH-EVENTS-REFUSED")
                .get(0));
        assertEquals(Custodian.MAX_PENDING, b.fromPeer.size(), "at most 64 frames held for ingest");
        gate.complete(null);
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 70, "the refused frames are sent again");
        assertTrue(a.links.evidence(b.shortDid(), 10).isEmpty());
    }

    @Test
    void framesPacedByThePeersGrantAllArriveOnceItRefills() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        a.publish(events(1, 0, 40).toArray(Event[]::new));
        // B's grant to A: 12 events per second, so 40 events take three refills of A's pacer
        org.fleetmesh.peering.grant.TierPolicy tiers = new org.fleetmesh.peering.grant.TierPolicy(
                List.of(new org.fleetmesh.peering.grant.Tier(0, 1 << 20, 12, 1, 1)), 1, 2);
        org.fleetmesh.peering.grant.Grant grant = org.fleetmesh.peering.grant.Grant.sign(
                tiers.defaultTerms(0, b.shortDid(), a.shortDid(), Mesh.T0 / 1000 + 3600), b.secrets.nostr().bytes(),
                Mesh.T0 / 1000);
        Mesh.Link l = mesh.new Link(a, b);
        org.fleetmesh.peering.link.PeerAccount account = a.account(b);
        account.received(grant);
        l.atA = a.delivery.open(l.ab, account);
        l.atB = b.delivery.open(l.ba, b.account(a));
        l.ba.target = l.atA;
        l.ab.target = l.atB;
        l.ab.release();
        l.ba.release();
        assertTrue(account.pacer().paced());
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 40, "all 40 go as the grant refills");
        assertEquals(10, l.ab.sent("MESH-EVENTS").size(), "each frame sent once: the pacer holds, never drops");
    }

    // ---- push (shard replication pulls through it) ----

    static List<EventId> ids(List<Event> events) {
        return events.stream().map(Event::id).toList();
    }

    static long acked(Mesh.Node n, Mesh.Node peer) {
        return n.ledger.outbound(peer.shortDid()).map(CustodyLedger.Outbound::ackedSeq).orElse(0L);
    }

    @Test
    void aPushIsReceiptedAndDoesNotMoveTheCursor() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(List.of())); // B federates nothing: only the push moves events
        List<Event> notes = events(1, 0, 10);
        a.publish(notes.toArray(Event[]::new));
        mesh.link(a, b);
        mesh.quiesce();
        assertEquals(10, a.delivery.push(b.shortDid(), ids(notes), Filter.ALL, 100));
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 10, "A holds receipts for the 10 pushed");
        mesh.quiesce();
        for (Event e : notes) {
            assertTrue(b.store.holds(e.id()), "B holds " + e.id());
        }
        assertEquals(headId(b, CustodyLedger.Side.RECEIVED, a), headId(a, CustodyLedger.Side.SENT, b));
        assertEquals(0, acked(a, b), "a push does not advance the cursor");
        assertEquals(0, a.delivery.pushedPending(b.shortDid()));
        Map<String, Object> status = new LinkedHashMap<>();
        a.delivery.describe(b.shortDid(), status);
        assertEquals(10L, status.get("queue"), "the store still waits behind the cursor for B's filters");
    }

    @Test
    void pushedFramesDoNotHoldBackTheCursorOfLiveForwarding() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(KIND_1));
        List<Event> reactions = events(7, 0, 8); // B does not federate kind 7: only pushed
        a.publish(reactions.toArray(Event[]::new));
        List<Event> notes = events(1, 100, 8);
        Mesh.Link l = mesh.link(a, b);
        mesh.quiesce();
        assertEquals(8, a.delivery.push(b.shortDid(), ids(reactions), Filter.ALL, 100));
        a.publish(notes.toArray(Event[]::new));
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 16, "pushed and live events all receipted");
        mesh.quiesce();
        assertEquals(a.store.lastSequence(), acked(a, b), "the cursor reaches the end: pushed frames hold nothing");
        List<String> frames = l.ab.sent("MESH-EVENTS");
        assertEquals(4, frames.size(), "frames of 4: two pushed, two live");
        assertTrue(reactions.stream().allMatch(e -> b.store.holds(e.id())));
    }

    @Test
    void aPushIgnoresWhatThePeerIsKnownToHold() {
        Mesh.Node a = mesh.node("a", Mesh.settings(KIND_1));
        Mesh.Node b = mesh.node("b", Mesh.settings(List.of()));
        List<Event> notes = events(1, 0, 4);
        b.publish(notes.toArray(Event[]::new));
        mesh.link(a, b);
        Mesh.await(() -> leaves(b, CustodyLedger.Side.SENT, a) == 4, "A took B's 4 events");
        mesh.quiesce();
        // B says it lacks them (a restored node): A sends them although B sent them here
        assertEquals(4, a.delivery.push(b.shortDid(), ids(notes), Filter.ALL, 100));
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 4, "B receipted the 4 pushed back");
        mesh.quiesce();
        assertEquals(4, b.store.size(), "stored once");
        assertEquals(0, hopsOf(b, a, notes.get(0)), "pushed with hops 0");
    }

    @Test
    void aPushTakesAtMostMaxPendingIdsUntilTheyAreReceipted() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(List.of()));
        List<Event> notes = events(1, 0, 30);
        a.publish(notes.toArray(Event[]::new));
        Mesh.Link l = mesh.link(a, b);
        mesh.quiesce();
        l.ba.hold(); // B's receipts wait
        assertEquals(10, a.delivery.push(b.shortDid(), ids(notes), Filter.ALL, 10), "10 of 30 taken");
        assertEquals(0, a.delivery.push(b.shortDid(), ids(notes.subList(10, 30)), Filter.ALL, 10), "none while 10 wait");
        Mesh.await(() -> leaves(b, CustodyLedger.Side.RECEIVED, a) == 10, "B receipted 10");
        mesh.quiesce();
        assertEquals(10, a.delivery.pushedPending(b.shortDid()), "10 pending until their receipts arrive");
        l.ba.release();
        Mesh.await(() -> a.delivery.pushedPending(b.shortDid()) == 0, "the receipts free the room");
        assertEquals(10, a.delivery.push(b.shortDid(), ids(notes.subList(10, 30)), Filter.ALL, 10));
        Mesh.await(() -> leaves(a, CustodyLedger.Side.SENT, b) == 20, "the next 10 receipted");
    }

    @Test
    void aPushSendsOnlyWhatMatchesAndMayLeaveTheNode() {
        Mesh.Node a = mesh.node("a", Mesh.settings(List.of()));
        Mesh.Node b = mesh.node("b", Mesh.settings(List.of()));
        Event note = mesh.event(1, 1);
        Event reaction = mesh.event(7, 2);
        Event dm = Events.sign(Mesh.AUTHOR, Mesh.T0 / 1000, 4, List.of(List.of("p", "00".repeat(32))), "secret");
        Event wrap = Events.sign(Mesh.AUTHOR, Mesh.T0 / 1000, 1059, List.of(), "wrapped");
        Event protectedNote = Events.sign(Mesh.AUTHOR, Mesh.T0 / 1000, 1, List.of(List.of("-")), "only here");
        a.publish(note, reaction, dm, wrap, protectedNote);
        Event unknown = mesh.event(1, 99); // never stored at A
        mesh.link(a, b);
        mesh.quiesce();
        Filter notesAndDms = new Filter(null, null, Set.of(1, 4, 1059), Map.of(), null, null, null);
        assertEquals(6, a.delivery.push(b.shortDid(), List.of(note.id(), reaction.id(), dm.id(), wrap.id(),
                protectedNote.id(), unknown.id()), notesAndDms, 100), "all taken: the reading decides");
        Mesh.await(() -> a.delivery.pushedPending(b.shortDid()) == 0, "the push is done");
        mesh.quiesce();
        assertEquals(List.of(note.id()), b.store.events().stream().map(Event::id).toList(),
                "only the public, unprotected event within the filter");
    }
}
