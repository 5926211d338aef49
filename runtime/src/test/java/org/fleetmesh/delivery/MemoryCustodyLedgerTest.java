package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.delivery.CustodyLedger.Append;
import org.fleetmesh.spi.delivery.CustodyLedger.Leaf;
import org.fleetmesh.spi.delivery.CustodyLedger.Outbound;
import org.fleetmesh.spi.delivery.CustodyLedger.Receipt;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;
import org.junit.jupiter.api.Test;

class MemoryCustodyLedgerTest {
    static final String A = "did:peer:4zA";
    static final String B = "did:peer:4zB";

    final CustodyLedger ledger = new MemoryCustodyLedger();

    static EventId id(String s) {
        try {
            return new EventId(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Receipt receipt(long position, long treeSize, long seq) {
        EventId rid = id("receipt " + position + "/" + treeSize + "/" + seq);
        return new Receipt(position, treeSize, seq, rid, "{\"id\":\"" + rid.hex() + "\"}", treeSize * 100, treeSize,
                List.of(new byte[32]), List.of(id("range " + treeSize).toBytes()));
    }

    static List<Leaf> leaves(long from, String... names) {
        List<Leaf> out = new ArrayList<>();
        for (String n : names) {
            out.add(new Leaf(from++, id(n), 100, 1));
        }
        return out;
    }

    static Append step(Side side, String peer, List<Leaf> leaves, Receipt r) {
        return new Append(side, peer, leaves, r, Optional.empty());
    }

    @Test
    void anAppendGrowsTheTreeAndTheChain() {
        assertTrue(ledger.head(Side.RECEIVED, A).isEmpty());
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1", "e2"), receipt(0, 2, 1))));
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(2, "e3"), receipt(1, 3, 2))));
        Receipt head = ledger.head(Side.RECEIVED, A).orElseThrow();
        assertEquals(1, head.position());
        assertEquals(3, head.treeSize());
        assertEquals(2, head.seq());
        assertArrayEquals(id("range 3").toBytes(), head.compactRange().get(0));
        assertEquals(List.of(id("e2"), id("e3")),
                ledger.leaves(Side.RECEIVED, A, 1, 3).stream().map(Leaf::eventId).toList());
        assertEquals(List.of(0L, 1L), ledger.receipts(Side.RECEIVED, A, 0, 10).stream().map(Receipt::position).toList());
        assertEquals(List.of(1L), ledger.receipts(Side.RECEIVED, A, 1, 10).stream().map(Receipt::position).toList());
        assertEquals(1, ledger.receipts(Side.RECEIVED, A, 0, 1).size());
        assertEquals(Map.of(id("e3"), 2L, id("e1"), 0L), ledger.indexOf(Side.RECEIVED, A, List.of(id("e3"), id("x"), id("e1"))));
        // sides and peers are separate trees
        assertTrue(ledger.head(Side.SENT, A).isEmpty());
        assertTrue(ledger.indexOf(Side.RECEIVED, B, List.of(id("e1"))).isEmpty());
        assertEquals(List.of(A), ledger.peers(Side.RECEIVED));
        assertEquals(List.of(), ledger.peers(Side.SENT));
    }

    @Test
    void aReceiptWithNoLeavesStillExtendsTheChain() {
        ledger.append(List.of(step(Side.RECEIVED, A, List.of(), receipt(0, 0, 1))));
        ledger.append(List.of(step(Side.RECEIVED, A, List.of(), receipt(1, 0, 2))));
        assertEquals(2, ledger.head(Side.RECEIVED, A).orElseThrow().seq());
        assertEquals(List.of(A), ledger.peers(Side.RECEIVED));
    }

    @Test
    void aLeafIndexThatDoesNotContinueTheTreeIsRefusedAndNothingIsWritten() {
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1"), receipt(0, 1, 1))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(2, "e2"), receipt(1, 3, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e2"), receipt(1, 1, 2)))));
        assertEquals(1, ledger.head(Side.RECEIVED, A).orElseThrow().treeSize());
        assertEquals(1, ledger.leaves(Side.RECEIVED, A, 0, 10).size());
    }

    @Test
    void anIdAlreadyALeafIsRefusedAlsoWithinOneStepAndOneBatch() {
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1"), receipt(0, 1, 1))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(1, "e1"), receipt(1, 2, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(1, "e2", "e2"), receipt(1, 3, 2)))));
        assertThrows(IllegalStateException.class, () -> ledger.append(List.of(
                step(Side.RECEIVED, A, leaves(1, "e2"), receipt(1, 2, 2)),
                step(Side.RECEIVED, A, leaves(2, "e2"), receipt(2, 3, 3)))));
        assertEquals(0, ledger.head(Side.RECEIVED, A).orElseThrow().position());
        assertTrue(ledger.indexOf(Side.RECEIVED, A, List.of(id("e2"))).isEmpty());
        // the same id in another peer's tree, or on the other side, is no conflict
        ledger.append(List.of(step(Side.RECEIVED, B, leaves(0, "e1"), receipt(0, 1, 1)),
                step(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 1))));
    }

    @Test
    void aReceiptPositionThatDoesNotContinueTheChainIsRefused() {
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1"), receipt(0, 1, 1))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(1, "e2"), receipt(2, 2, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(1, "e2"), receipt(0, 2, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.SENT, B, List.of(), receipt(1, 0, 1)))));
        assertEquals(1, ledger.receipts(Side.RECEIVED, A, 0, 10).size());
        assertTrue(ledger.head(Side.SENT, B).isEmpty());
    }

    @Test
    void aReceiptNamingAnotherTreeSizeThanItsLeavesMakeIsRefused() {
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1", "e2"), receipt(0, 3, 1)))));
        assertTrue(ledger.peers(Side.RECEIVED).isEmpty());
    }

    @Test
    void aBatchIsWrittenWholeOrNotAtAll() {
        Outbound o = new Outbound(A, 7, 3, "[]", "");
        assertThrows(IllegalStateException.class, () -> ledger.append(List.of(
                new Append(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 1), Optional.of(o)),
                step(Side.RECEIVED, B, leaves(5, "e9"), receipt(0, 6, 1)))));
        assertTrue(ledger.head(Side.SENT, A).isEmpty());
        assertTrue(ledger.outbound(A).isEmpty());
        ledger.append(List.of(
                new Append(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 1), Optional.of(o)),
                step(Side.SENT, A, leaves(1, "e2"), receipt(1, 2, 2)),
                step(Side.RECEIVED, B, leaves(0, "e9"), receipt(0, 1, 1))));
        assertEquals(2, ledger.head(Side.SENT, A).orElseThrow().treeSize());
        assertEquals(o, ledger.outbound(A).orElseThrow());
        assertEquals(1, ledger.head(Side.RECEIVED, B).orElseThrow().treeSize());
    }

    @Test
    void holdersNameWhoSentAndWhoReceiptedWithTheSmallestHopsItArrivedWith() {
        ledger.append(List.of(
                step(Side.RECEIVED, A, List.of(new Leaf(0, id("e1"), 10, 3)), receipt(0, 1, 1)),
                step(Side.RECEIVED, B, List.of(new Leaf(0, id("e1"), 10, 1)), receipt(0, 1, 1)),
                step(Side.SENT, B, List.of(new Leaf(0, id("e2"), 10, 0)), receipt(0, 1, 1))));
        ledger.append(List.of(step(Side.SENT, A, List.of(new Leaf(0, id("e1"), 10, 0)), receipt(0, 1, 1))));
        Map<EventId, CustodyLedger.Holders> h = ledger.holders(List.of(id("e1"), id("e2"), id("e3")));
        assertEquals(Set.of(A, B), h.get(id("e1")).peers());
        assertEquals(1, h.get(id("e1")).hops());
        assertEquals(Set.of(B), h.get(id("e2")).peers());
        assertEquals(-1, h.get(id("e2")).hops()); // only receipted by B, never arrived from a peer
        assertFalse(h.containsKey(id("e3")));
    }

    @Test
    void outboundStateIsAnUpsertByPeer() {
        assertTrue(ledger.outbound(A).isEmpty());
        ledger.saveOutbound(new Outbound(A, 0, 1, "[]", ""));
        ledger.saveOutbound(new Outbound(B, 5, 2, "[{\"kinds\":[1]}]", ""));
        ledger.saveOutbound(new Outbound(A, 9, 4, "[]", "custody: fork"));
        assertEquals(new Outbound(A, 9, 4, "[]", "custody: fork"), ledger.outbound(A).orElseThrow());
        assertEquals(List.of(A, B), ledger.outbounds().stream().map(Outbound::peer).toList());
    }

    @Test
    void storedHashesCannotBeChangedThroughTheObjectsPassedInOrOut() {
        byte[] range = id("r").toBytes();
        List<byte[]> ranges = new ArrayList<>(List.of(range));
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1"),
                new Receipt(0, 1, 1, id("rid"), "{}", 100, 1, List.of(), ranges))));
        range[0] ^= 1;
        ranges.clear();
        byte[] out = ledger.head(Side.RECEIVED, A).orElseThrow().compactRange().get(0);
        assertArrayEquals(id("r").toBytes(), out);
        out[0] ^= 1;
        assertArrayEquals(id("r").toBytes(), ledger.head(Side.RECEIVED, A).orElseThrow().compactRange().get(0));
    }

    @Test
    void concurrentAppendersRacingForTheSamePositionsLoseNoStepAndWriteNoneTwice() throws Exception {
        int threads = 4;
        int perThread = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    int written = 0;
                    for (int i = 0; i < perThread;) {
                        // read the head, then try to continue it: a racing appender makes this fail, and we retry
                        long size = ledger.head(Side.RECEIVED, A).map(Receipt::treeSize).orElse(0L);
                        long pos = ledger.head(Side.RECEIVED, A).map(r -> r.position() + 1).orElse(0L);
                        try {
                            ledger.append(List.of(step(Side.RECEIVED, A, leaves(size, thread + "/" + i),
                                    receipt(pos, size + 1, pos + 1))));
                            written++;
                            i++;
                        } catch (IllegalStateException raced) {
                            // another thread took this position first
                        }
                    }
                    return written;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : done) {
                total += f.get();
            }
            assertEquals(threads * perThread, total);
        } finally {
            pool.shutdownNow();
        }
        Receipt head = ledger.head(Side.RECEIVED, A).orElseThrow();
        assertEquals(threads * perThread, head.treeSize());
        assertEquals(threads * perThread - 1, head.position());
        List<Leaf> all = ledger.leaves(Side.RECEIVED, A, 0, Long.MAX_VALUE);
        assertEquals(threads * perThread, all.stream().map(Leaf::eventId).distinct().count());
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.get(i).index());
        }
    }

    @Test
    void archiveMovesTheTreeAsideAndTheNextAppendStartsItAgainAtZero() {
        ledger.append(List.of(step(Side.SENT, A, leaves(0, "e1", "e2"), receipt(0, 2, 1)),
                step(Side.SENT, A, leaves(2, "e3"), receipt(1, 3, 2)),
                step(Side.RECEIVED, A, leaves(0, "r1"), receipt(0, 1, 1))));
        assertTrue(ledger.archive(Side.SENT, B).isEmpty(), "no tree, nothing archived");
        assertEquals(Optional.of(A + "#reset-1"), ledger.archive(Side.SENT, A));
        assertTrue(ledger.head(Side.SENT, A).isEmpty());
        assertTrue(ledger.leaves(Side.SENT, A, 0, 10).isEmpty());
        assertTrue(ledger.indexOf(Side.SENT, A, List.of(id("e1"))).isEmpty());
        // the old chain stays readable under its new name, for receipts export and prove
        String archived = A + "#reset-1";
        assertEquals(3, ledger.head(Side.SENT, archived).orElseThrow().treeSize());
        assertEquals(List.of(id("e1"), id("e2"), id("e3")),
                ledger.leaves(Side.SENT, archived, 0, 10).stream().map(Leaf::eventId).toList());
        assertEquals(2, ledger.receipts(Side.SENT, archived, 0, 10).size());
        assertTrue(ledger.peers(Side.SENT).contains(archived));
        assertEquals(Set.of(archived), ledger.holders(List.of(id("e1"))).get(id("e1")).peers(),
                "the archived tree, not the peer, holds what it receipted");
        // the other side is untouched
        assertEquals(1, ledger.head(Side.RECEIVED, A).orElseThrow().treeSize());
        // the tree grows again from 0, also with ids the archived tree holds
        ledger.append(List.of(step(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 3))));
        assertEquals(1, ledger.head(Side.SENT, A).orElseThrow().treeSize());
        assertEquals(Set.of(A, archived), ledger.holders(List.of(id("e1"))).get(id("e1")).peers());
        assertEquals(Optional.of(A + "#reset-2"), ledger.archive(Side.SENT, A), "the next archive takes the next name");
        assertEquals(1, ledger.head(Side.SENT, A + "#reset-2").orElseThrow().treeSize());
        assertEquals(3, ledger.head(Side.SENT, archived).orElseThrow().treeSize());
    }
}
