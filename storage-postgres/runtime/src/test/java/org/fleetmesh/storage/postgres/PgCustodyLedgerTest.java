package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.fleetmesh.delivery.MemoryCustodyLedger;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.delivery.CustodyLedger.Append;
import org.fleetmesh.spi.delivery.CustodyLedger.Leaf;
import org.fleetmesh.spi.delivery.CustodyLedger.Outbound;
import org.fleetmesh.spi.delivery.CustodyLedger.Receipt;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;
import org.fleetmesh.storage.postgres.delivery.PgCustodyLedger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PgCustodyLedgerTest extends PgFixture {
    static final String A = "did:peer:4zQmA";
    static final String B = "did:peer:4zQmB";

    PgCustodyLedger ledger;

    @BeforeEach
    void clean() throws Exception {
        sql("truncate custody_tree, custody_leaf, custody_receipt, delivery_outbound restart identity");
        ledger = new PgCustodyLedger(store.dataSource());
    }

    static EventId id(String s) {
        return new EventId(TextKeys.sha256(s.getBytes(StandardCharsets.UTF_8)));
    }

    static Receipt receipt(long position, long treeSize, long seq) {
        EventId rid = id("receipt " + position + "/" + treeSize + "/" + seq);
        List<byte[]> consistency = new ArrayList<>();
        for (int i = 0; i < position % 3; i++) {
            consistency.add(id("proof " + position + " " + i).toBytes());
        }
        return new Receipt(position, treeSize, seq, rid, "{\"id\":\"" + rid.hex() + "\",\"kind\":11803}",
                treeSize * 100 + 7, treeSize, consistency, List.of(id("range " + treeSize).toBytes(), id("x").toBytes()));
    }

    static List<Leaf> leaves(long from, String... names) {
        List<Leaf> out = new ArrayList<>();
        for (String n : names) {
            out.add(new Leaf(from++, id(n), 100 + n.length(), n.length() % 4));
        }
        return out;
    }

    static Append step(Side side, String peer, List<Leaf> leaves, Receipt r) {
        return new Append(side, peer, leaves, r, Optional.empty());
    }

    /** Receipts hold byte arrays: compare what they say. */
    static String render(Receipt r) {
        return r.position() + " " + r.treeSize() + " " + r.seq() + " " + r.receiptId().hex() + " " + r.json() + " "
                + r.bytes() + " " + r.events() + " " + r.consistency().stream().map(Hex::encode).toList() + " "
                + r.compactRange().stream().map(Hex::encode).toList();
    }

    static List<String> render(List<Receipt> rs) {
        return rs.stream().map(PgCustodyLedgerTest::render).toList();
    }

    @Test
    void stepsAreReadBackAsWritten() {
        assertTrue(ledger.head(Side.RECEIVED, A).isEmpty());
        Receipt r0 = receipt(0, 2, 1);
        Receipt r1 = receipt(1, 3, 2);
        Receipt r2 = receipt(2, 3, 5);
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1", "e2"), r0)));
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(2, "e3"), r1), step(Side.RECEIVED, A, List.of(), r2)));
        assertEquals(render(r2), render(ledger.head(Side.RECEIVED, A).orElseThrow()));
        assertEquals(render(List.of(r0, r1, r2)), render(ledger.receipts(Side.RECEIVED, A, 0, 10)));
        assertEquals(render(List.of(r1)), render(ledger.receipts(Side.RECEIVED, A, 1, 1)));
        assertEquals(List.of(), ledger.receipts(Side.RECEIVED, A, 3, 10));
        assertEquals(concat(leaves(0, "e1", "e2"), leaves(2, "e3")), ledger.leaves(Side.RECEIVED, A, 0, Long.MAX_VALUE));
        assertEquals(leaves(1, "e2"), ledger.leaves(Side.RECEIVED, A, 1, 2));
        assertEquals(List.of(), ledger.leaves(Side.RECEIVED, A, 2, 2));
        assertEquals(Map.of(id("e1"), 0L, id("e3"), 2L),
                ledger.indexOf(Side.RECEIVED, A, List.of(id("e1"), id("nope"), id("e3"))));
        assertEquals(Map.of(), ledger.indexOf(Side.SENT, A, List.of(id("e1"))));
        assertEquals(Map.of(), ledger.indexOf(Side.RECEIVED, A, List.of()));
        assertEquals(List.of(A), ledger.peers(Side.RECEIVED));
        assertEquals(List.of(), ledger.peers(Side.SENT));
        // another object over the same database (a restarted node) reads the same
        PgCustodyLedger again = new PgCustodyLedger(store.dataSource());
        assertEquals(render(List.of(r0, r1, r2)), render(again.receipts(Side.RECEIVED, A, 0, 10)));
    }

    @Test
    void aLeafThatDoesNotContinueTheTreeIsRefusedAndNothingIsWritten() {
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1"), receipt(0, 1, 1))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(2, "e2"), receipt(1, 3, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e2"), receipt(1, 1, 2)))));
        assertEquals(1, ledger.leaves(Side.RECEIVED, A, 0, 10).size());
        assertEquals(0, ledger.head(Side.RECEIVED, A).orElseThrow().position());
    }

    @Test
    void anIdAlreadyALeafIsRefusedInTheTreeInTheStepAndInTheBatch() {
        ledger.append(List.of(step(Side.RECEIVED, A, leaves(0, "e1"), receipt(0, 1, 1))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(1, "e1"), receipt(1, 2, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.RECEIVED, A, leaves(1, "e2", "e2"), receipt(1, 3, 2)))));
        assertThrows(IllegalStateException.class, () -> ledger.append(List.of(
                step(Side.RECEIVED, A, leaves(1, "e2"), receipt(1, 2, 2)),
                step(Side.RECEIVED, A, leaves(2, "e2"), receipt(2, 3, 3)))));
        assertEquals(1, ledger.head(Side.RECEIVED, A).orElseThrow().treeSize());
        assertEquals(Map.of(), ledger.indexOf(Side.RECEIVED, A, List.of(id("e2"))));
        // the same id in another tree is no conflict
        ledger.append(List.of(step(Side.RECEIVED, B, leaves(0, "e1"), receipt(0, 1, 1)),
                step(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 1))));
        assertEquals(List.of(A, B), ledger.peers(Side.RECEIVED));
    }

    @Test
    void aReceiptThatDoesNotContinueTheChainOrNamesAnotherSizeIsRefused() {
        ledger.append(List.of(step(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 1))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.SENT, A, leaves(1, "e2"), receipt(2, 2, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.SENT, A, leaves(1, "e2"), receipt(0, 2, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.SENT, A, leaves(1, "e2"), receipt(1, 3, 2)))));
        assertThrows(IllegalStateException.class,
                () -> ledger.append(List.of(step(Side.SENT, B, List.of(), receipt(1, 0, 1)))));
        assertEquals(1, ledger.receipts(Side.SENT, A, 0, 10).size());
        // a refused batch leaves no empty tree behind
        assertEquals(List.of(A), ledger.peers(Side.SENT));
    }

    @Test
    void aBatchIsOneTransactionWithTheOutboundStateItCarries() {
        Outbound o = new Outbound(A, 41, 3, "[{\"kinds\":[1]}]", "");
        assertThrows(IllegalStateException.class, () -> ledger.append(List.of(
                new Append(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 1), Optional.of(o)),
                step(Side.RECEIVED, B, leaves(4, "e9"), receipt(0, 5, 1)))));
        assertTrue(ledger.head(Side.SENT, A).isEmpty());
        assertTrue(ledger.outbound(A).isEmpty());
        Outbound later = new Outbound(A, 42, 4, "[{\"kinds\":[1]}]", "");
        ledger.append(List.of(
                new Append(Side.SENT, A, leaves(0, "e1"), receipt(0, 1, 1), Optional.of(o)),
                new Append(Side.SENT, A, leaves(1, "e2"), receipt(1, 2, 2), Optional.of(later)),
                step(Side.RECEIVED, B, leaves(0, "e9"), receipt(0, 1, 1))));
        assertEquals(later, ledger.outbound(A).orElseThrow());
        assertEquals(2, ledger.head(Side.SENT, A).orElseThrow().treeSize());
        assertEquals(1, ledger.head(Side.RECEIVED, B).orElseThrow().treeSize());
    }

    @Test
    void holdersNameWhoSentAndWhoReceiptedWithTheSmallestHops() {
        ledger.append(List.of(
                step(Side.RECEIVED, A, List.of(new Leaf(0, id("e1"), 10, 3)), receipt(0, 1, 1)),
                step(Side.RECEIVED, B, List.of(new Leaf(0, id("e1"), 10, 1)), receipt(0, 1, 1)),
                step(Side.SENT, B, List.of(new Leaf(0, id("e2"), 10, 0)), receipt(0, 1, 1)),
                step(Side.SENT, A, List.of(new Leaf(0, id("e1"), 10, 0)), receipt(0, 1, 1))));
        Map<EventId, CustodyLedger.Holders> h = ledger.holders(List.of(id("e1"), id("e2"), id("e3")));
        assertEquals(Set.of(A, B), h.get(id("e1")).peers());
        assertEquals(1, h.get(id("e1")).hops());
        assertEquals(Set.of(B), h.get(id("e2")).peers());
        assertEquals(-1, h.get(id("e2")).hops());
        assertEquals(Set.of(id("e1"), id("e2")), h.keySet());
        assertEquals(Map.of(), ledger.holders(List.of()));
    }

    @Test
    void outboundStateIsAnUpsertByPeer() {
        assertTrue(ledger.outbound(A).isEmpty());
        ledger.saveOutbound(new Outbound(B, 5, 2, "[{\"kinds\":[1]}]", ""));
        ledger.saveOutbound(new Outbound(A, 0, 1, "[]", ""));
        ledger.saveOutbound(new Outbound(A, 9, 4, "[]", "custody: fork"));
        assertEquals(new Outbound(A, 9, 4, "[]", "custody: fork"), ledger.outbound(A).orElseThrow());
        assertEquals(List.of(new Outbound(A, 9, 4, "[]", "custody: fork"), new Outbound(B, 5, 2, "[{\"kinds\":[1]}]", "")),
                ledger.outbounds());
    }

    @Test
    void racingAppendersOfOneTreeContinueItOneAfterTheOtherAndOthersTreesGoOnMeanwhile() throws Exception {
        int threads = 4;
        int perThread = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    int lost = 0;
                    for (int i = 0; i < perThread;) {
                        Optional<Receipt> head = ledger.head(Side.RECEIVED, A);
                        long size = head.map(Receipt::treeSize).orElse(0L);
                        long pos = head.map(r -> r.position() + 1).orElse(0L);
                        String own = "own " + thread;
                        long ownPos = ledger.head(Side.SENT, own).map(r -> r.position() + 1).orElse(0L);
                        try {
                            // one shared tree and one tree per thread in the same batch, in varying order
                            Append shared = step(Side.RECEIVED, A, leaves(size, thread + "/" + i), receipt(pos, size + 1, pos + 1));
                            Append mine = step(Side.SENT, own, leaves(ownPos, thread + "/" + i), receipt(ownPos, ownPos + 1, ownPos + 1));
                            ledger.append(i % 2 == 0 ? List.of(shared, mine) : List.of(mine, shared));
                            i++;
                        } catch (IllegalStateException raced) {
                            lost++; // another thread continued the shared tree first: read the head again
                        }
                    }
                    return lost;
                }));
            }
            start.countDown();
            for (Future<Integer> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Receipt head = ledger.head(Side.RECEIVED, A).orElseThrow();
        assertEquals(threads * perThread, head.treeSize());
        assertEquals(threads * perThread - 1, head.position());
        List<Leaf> all = ledger.leaves(Side.RECEIVED, A, 0, Long.MAX_VALUE);
        assertEquals(threads * perThread, all.stream().map(Leaf::eventId).distinct().count());
        for (int t = 0; t < threads; t++) {
            assertEquals(perThread, ledger.head(Side.SENT, "own " + t).orElseThrow().treeSize());
        }
        List<Receipt> chain = ledger.receipts(Side.RECEIVED, A, 0, Integer.MAX_VALUE);
        for (int i = 0; i < chain.size(); i++) {
            assertEquals(i, chain.get(i).position());
            assertEquals(i + 1, chain.get(i).treeSize());
        }
    }

    @Test
    void answersTheSameAsTheMemoryLedgerForRandomSteps() {
        // the SPI's reference (runtime's MemoryCustodyLedger) and this one, fed the same steps, good and bad
        MemoryCustodyLedger reference = new MemoryCustodyLedger();
        Random r = new Random(12);
        List<String> peers = List.of(A, B, "did:peer:4zQmC");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            names.add("n" + i);
        }
        Map<String, Integer> outcomes = new java.util.TreeMap<>();
        for (int round = 0; round < 120; round++) {
            List<Append> batch = new ArrayList<>();
            Map<String, long[]> planned = new java.util.HashMap<>();
            int steps = 1 + r.nextInt(3);
            for (int s = 0; s < steps; s++) {
                Side side = r.nextBoolean() ? Side.RECEIVED : Side.SENT;
                String peer = peers.get(r.nextInt(peers.size()));
                long[] at = planned.computeIfAbsent(side + peer, k -> new long[] {
                        reference.head(side, peer).map(Receipt::treeSize).orElse(0L),
                        reference.head(side, peer).map(x -> x.position() + 1).orElse(0L) });
                int k = r.nextInt(4);
                List<Leaf> ls = new ArrayList<>();
                for (int j = 0; j < k; j++) {
                    // sometimes an id that may already be a leaf, sometimes a wrong index
                    long idx = r.nextInt(40) == 0 ? at[0] + 1 : at[0];
                    ls.add(new Leaf(idx, id(names.get(r.nextInt(names.size()))), r.nextInt(500), r.nextInt(5)));
                    at[0]++;
                }
                long pos = r.nextInt(40) == 0 ? at[1] + 1 : at[1];
                Optional<Outbound> o = r.nextInt(3) == 0
                        ? Optional.of(new Outbound(peer, r.nextInt(1000), pos + 1, "[]", r.nextBoolean() ? "" : "x"))
                        : Optional.empty();
                batch.add(new Append(side, peer, ls, receipt(pos, at[0], pos + 1), o));
                at[1]++;
            }
            String want = outcome(() -> reference.append(batch));
            String got = outcome(() -> ledger.append(batch));
            assertEquals(want, got, "round " + round);
            outcomes.merge(want, 1, Integer::sum);
        }
        assertEquals(Set.of("ok", "refused"), outcomes.keySet(), "both kinds of batch were tried: " + outcomes);
        List<EventId> ids = names.stream().map(PgCustodyLedgerTest::id).toList();
        for (Side side : Side.values()) {
            assertEquals(reference.peers(side), ledger.peers(side));
            for (String peer : peers) {
                assertEquals(render(reference.receipts(side, peer, 0, 1000)), render(ledger.receipts(side, peer, 0, 1000)));
                assertEquals(reference.head(side, peer).map(PgCustodyLedgerTest::render),
                        ledger.head(side, peer).map(PgCustodyLedgerTest::render));
                assertEquals(reference.leaves(side, peer, 0, 1000), ledger.leaves(side, peer, 0, 1000));
                assertEquals(reference.indexOf(side, peer, ids), ledger.indexOf(side, peer, ids));
            }
        }
        assertEquals(reference.holders(ids), ledger.holders(ids));
        assertEquals(reference.outbounds(), ledger.outbounds());
        assertTrue(reference.peers(Side.RECEIVED).size() + reference.peers(Side.SENT).size() > 3, "the steps grew trees");
        assertTrue(reference.holders(ids).values().stream().map(h -> h.peers().size()).collect(Collectors.toSet())
                .contains(2), "some ids have two holders");
    }

    static String outcome(Runnable r) {
        try {
            r.run();
            return "ok";
        } catch (IllegalStateException e) {
            return "refused";
        }
    }

    @SafeVarargs
    static <T> List<T> concat(List<T>... lists) {
        List<T> out = new ArrayList<>();
        for (List<T> l : lists) {
            out.addAll(l);
        }
        return out;
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
