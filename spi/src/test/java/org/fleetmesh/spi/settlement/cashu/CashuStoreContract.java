package org.fleetmesh.spi.settlement.cashu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.fleetmesh.spi.settlement.cashu.CashuStore.KeysetRow;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;
import org.junit.jupiter.api.Test;

/**
 * The CashuStore contract as tests, written once for every store: a test class implements this interface, gives
 * each test an empty store through {@link #cashu()} (a fresh one from a {@code @BeforeEach}), and JUnit runs these
 * default methods against it. Shipped in fleetmesh-spi's test-jar; what only one backend can show (surviving a
 * reopen) stays in that backend's test class.
 */
public interface CashuStoreContract {
    long NOW = 1_700_000_000L;
    String MINT = "https://mint.example";
    String OTHER = "https://other.example";
    String KEYSET = "009a1f293253e41e";

    /** The store under test, empty at the start of each test and the same object throughout it. */
    CashuStore cashu();

    static StoredProof proof(String secret, String mint, long amount, ProofState state, long at) {
        return new StoredProof(mint, KEYSET, amount, secret, "02" + "ab".repeat(32), null, state, null, null, at);
    }

    static StoredProof unspent(String secret, long at) {
        return proof(secret, MINT, 8, ProofState.UNSPENT, at);
    }

    static Op op(String id, String kind, String key, String state) {
        return new Op(id, kind, key, MINT, state, "{\"outputs\":[]}", NOW, NOW);
    }

    static Set<String> secrets(List<StoredProof> l) {
        return Set.copyOf(l.stream().map(StoredProof::secret).toList());
    }

    @Test
    default void proofsAreReadBackWholeByMintStateSecretOpAndLock() {
        StoredProof full = new StoredProof(MINT, KEYSET, 64, "s1", "02" + "cd".repeat(32),
                "{\"e\":\"" + "01".repeat(32) + "\",\"s\":\"" + "02".repeat(32) + "\"}", ProofState.HELD, "op1",
                "ee".repeat(32), NOW);
        cashu().addProofs(List.of(unspent("s3", NOW + 2), unspent("s2", NOW + 1), full,
                proof("s4", OTHER, 1, ProofState.UNSPENT, NOW)));
        assertEquals(List.of("s2", "s3"),
                cashu().proofs(MINT, ProofState.UNSPENT).stream().map(StoredProof::secret).toList(),
                "oldest first, this mint only");
        assertEquals(List.of(full), cashu().proofs(MINT, ProofState.HELD));
        assertEquals(List.of(full), cashu().proofsOfOp("op1"));
        assertEquals(List.of(full), cashu().proofsOfLock("ee".repeat(32)));
        assertEquals(Set.of("s1", "s4"), secrets(cashu().proofsBySecret(List.of("s1", "s4", "unknown"))));
        assertTrue(cashu().proofsBySecret(List.of()).isEmpty());
        assertTrue(cashu().proofsOfOp("op2").isEmpty());
    }

    @Test
    default void addingAKnownSecretLeavesTheStoredProofAsItIs() {
        cashu().addProofs(List.of(unspent("s1", NOW)));
        cashu().addProofs(List.of(proof("s1", MINT, 32, ProofState.SPENT, NOW + 9), unspent("s2", NOW)));
        assertEquals(List.of(unspent("s1", NOW)), cashu().proofsBySecret(List.of("s1")));
        assertEquals(2, cashu().proofs(MINT, ProofState.UNSPENT).size());
    }

    @Test
    default void reserveMarksEveryProofPendingUnderTheOp() {
        cashu().addProofs(List.of(unspent("a", NOW), unspent("b", NOW), unspent("c", NOW)));
        assertTrue(cashu().reserve(List.of("a", "b"), "op1"));
        assertEquals(Set.of("a", "b"), secrets(cashu().proofsOfOp("op1")));
        assertEquals(Set.of("a", "b"), secrets(cashu().proofs(MINT, ProofState.PENDING)));
        assertEquals(Set.of("c"), secrets(cashu().proofs(MINT, ProofState.UNSPENT)));
    }

    @Test
    default void reserveWithOneProofAlreadyPendingChangesNothing() {
        cashu().addProofs(List.of(unspent("a", NOW), unspent("b", NOW), unspent("c", NOW)));
        assertTrue(cashu().reserve(List.of("c"), "op1"));
        assertFalse(cashu().reserve(List.of("a", "b", "c"), "op2"));
        assertEquals(Set.of("a", "b"), secrets(cashu().proofs(MINT, ProofState.UNSPENT)));
        assertEquals(Set.of("c"), secrets(cashu().proofsOfOp("op1")));
        assertTrue(cashu().proofsOfOp("op2").isEmpty());
    }

    @Test
    default void reserveWithAnUnknownSecretChangesNothing() {
        cashu().addProofs(List.of(unspent("a", NOW)));
        assertFalse(cashu().reserve(List.of("a", "nobody"), "op1"));
        assertEquals(Set.of("a"), secrets(cashu().proofs(MINT, ProofState.UNSPENT)));
    }

    @Test
    default void reserveFromAnotherStateTakesOnlyProofsInThatState() {
        cashu().addProofs(List.of(proof("h1", MINT, 8, ProofState.HELD, NOW),
                proof("h2", MINT, 8, ProofState.HELD, NOW), unspent("u", NOW)));
        assertFalse(cashu().reserve(List.of("h1", "u"), ProofState.HELD, "op1"), "u is not HELD");
        assertTrue(cashu().proofsOfOp("op1").isEmpty());
        assertTrue(cashu().reserve(List.of("h1", "h2"), ProofState.HELD, "op1"));
        assertFalse(cashu().reserve(List.of("h1"), ProofState.HELD, "op2"), "taken by op1");
        assertEquals(Set.of("h1", "h2"), secrets(cashu().proofs(MINT, ProofState.PENDING)));
        assertThrows(IllegalArgumentException.class, () -> cashu().reserve(List.of("h1"), ProofState.PENDING, "op3"));
        assertEquals(Set.of("h1", "h2"), secrets(cashu().proofsOfOp("op1")));
    }

    @Test
    default void ofTwoThreadsReservingOverlappingProofsExactlyOneWins() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                String a = "a" + round, b = "b" + round, c = "c" + round;
                cashu().addProofs(List.of(unspent(a, NOW), unspent(b, NOW), unspent(c, NOW)));
                CountDownLatch go = new CountDownLatch(1);
                Future<Boolean> first = pool.submit(reserveAfter(go, List.of(a, b), "x" + round));
                Future<Boolean> second = pool.submit(reserveAfter(go, List.of(c, b), "y" + round));
                go.countDown();
                boolean x = first.get(), y = second.get();
                assertTrue(x ^ y, "round " + round + ": exactly one wins, got " + x + " and " + y);
                String winner = x ? "x" + round : "y" + round;
                assertEquals(x ? Set.of(a, b) : Set.of(c, b), secrets(cashu().proofsOfOp(winner)));
                assertEquals(x ? Set.of(c) : Set.of(a), secrets(cashu().proofsBySecret(List.of(a, c)).stream()
                        .filter(p -> p.state() == ProofState.UNSPENT).toList()),
                        "the loser's other proof is untouched");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Callable<Boolean> reserveAfter(CountDownLatch go, List<String> secrets, String opId) {
        return () -> {
            go.await();
            return cashu().reserve(secrets, opId);
        };
    }

    @Test
    default void setStateMovesProofsAndKeepsOrSetsTheirOp() {
        cashu().addProofs(List.of(unspent("a", NOW), unspent("b", NOW)));
        cashu().reserve(List.of("a", "b"), "op1");
        cashu().setState(List.of("a"), ProofState.SPENT, null);
        cashu().setState(List.of("b"), ProofState.SENT, "op2");
        assertEquals(List.of(unspent("a", NOW).withState(ProofState.SPENT, "op1")),
                cashu().proofsBySecret(List.of("a")));
        assertEquals(List.of(unspent("b", NOW).withState(ProofState.SENT, "op2")),
                cashu().proofsBySecret(List.of("b")));
    }

    @Test
    default void completeMovesTheInputsAddsTheOutputsAndSavesTheOp() {
        cashu().addProofs(List.of(unspent("in1", NOW), unspent("in2", NOW), unspent("known", NOW)));
        Op swap = op("op1", "swap", null, "sent");
        cashu().saveOp(swap);
        assertTrue(cashu().reserve(List.of("in1", "in2"), "op1"));
        Op done = swap.with("done", "{\"outputs\":[1]}", NOW + 5);
        cashu().complete(done, List.of("in1", "in2"), ProofState.SPENT,
                List.of(unspent("out1", NOW + 5), proof("known", MINT, 1, ProofState.SPENT, NOW + 5)));
        assertEquals(Set.of("in1", "in2"), secrets(cashu().proofs(MINT, ProofState.SPENT)));
        assertEquals(Set.of("in1", "in2"), secrets(cashu().proofsOfOp("op1")), "the inputs keep their op");
        assertEquals(Set.of("out1", "known"), secrets(cashu().proofs(MINT, ProofState.UNSPENT)), "known left alone");
        assertEquals(Optional.of(done), cashu().op("op1"));
    }

    @Test
    default void aCompleteThatFailsMidwayChangesNothing() {
        cashu().addProofs(List.of(unspent("in1", NOW)));
        cashu().saveOp(op("earlier", "melt", "quote-1", "done"));
        cashu().saveOp(op("op1", "melt", null, "sent"));
        assertTrue(cashu().reserve(List.of("in1"), "op1"));
        // the op's (kind, key) is taken: the database fails after moving the inputs, memory before; neither shows it
        Op clash = op("op1", "melt", "quote-1", "done");
        assertThrows(IllegalStateException.class,
                () -> cashu().complete(clash, List.of("in1"), ProofState.SPENT, List.of(unspent("change", NOW))));
        assertEquals(List.of(unspent("in1", NOW).withState(ProofState.PENDING, "op1")),
                cashu().proofsBySecret(List.of("in1")));
        assertTrue(cashu().proofsBySecret(List.of("change")).isEmpty());
        assertEquals(Optional.of(op("op1", "melt", null, "sent")), cashu().op("op1"));
        assertEquals("earlier", cashu().opByKey("melt", "quote-1").get().id());
    }

    @Test
    default void opsAreReplacedByIdAndFoundByKeyAndState() {
        Op a = new Op("a", "mint", "quote-a", MINT, "sent", "{}", NOW + 2, NOW + 2);
        Op b = new Op("b", "swap", null, MINT, "sent", "{}", NOW + 1, NOW + 1);
        Op c = new Op("c", "melt", "quote-c", OTHER, "done", "{}", NOW, NOW);
        cashu().saveOp(a);
        cashu().saveOp(b);
        cashu().saveOp(c);
        Op a2 = a.with("paid", "{\"x\":1}", NOW + 3);
        cashu().saveOp(a2);
        assertEquals(Optional.of(a2), cashu().op("a"));
        assertEquals(Optional.of(a2), cashu().opByKey("mint", "quote-a"));
        assertTrue(cashu().opByKey("melt", "quote-a").isEmpty(), "a key is unique within its kind only");
        assertTrue(cashu().op("nobody").isEmpty());
        assertEquals(List.of("b", "a"), cashu().opsInStates(List.of("sent", "paid")).stream().map(Op::id).toList(),
                "oldest first");
        assertEquals(List.of(c), cashu().opsInStates(List.of("done")));
        assertTrue(cashu().opsInStates(List.of()).isEmpty());
    }

    @Test
    default void aSecondOpWithTheSameKindAndKeyIsRefused() {
        cashu().saveOp(op("a", "mint", "quote-1", "sent"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> cashu().saveOp(op("b", "mint", "quote-1", "sent")));
        assertTrue(e.getMessage().contains("quote-1"), e.getMessage());
        assertTrue(cashu().op("b").isEmpty());
        cashu().saveOp(op("c", "melt", "quote-1", "sent"));
        cashu().saveOp(op("d", "mint", null, "sent"));
        cashu().saveOp(op("e", "mint", null, "sent"));
        assertEquals(4, cashu().opsInStates(List.of("sent")).size(), "other kinds and null keys do not clash");
    }

    @Test
    default void countersStartAtZeroAndAreConsecutive() {
        assertEquals(0, cashu().counter(KEYSET));
        assertEquals(0, cashu().reserveCounters(KEYSET, 3));
        assertEquals(3, cashu().reserveCounters(KEYSET, 5));
        assertEquals(8, cashu().counter(KEYSET));
        assertEquals(0, cashu().reserveCounters("other", 1), "each keyset counts on its own");
        assertThrows(IllegalArgumentException.class, () -> cashu().reserveCounters(KEYSET, -1));
    }

    @Test
    default void advanceCounterOnlyMovesForward() {
        cashu().advanceCounter(KEYSET, 40);
        assertEquals(40, cashu().counter(KEYSET));
        cashu().advanceCounter(KEYSET, 10);
        assertEquals(40, cashu().counter(KEYSET));
        assertEquals(40, cashu().reserveCounters(KEYSET, 2));
    }

    @Test
    default void concurrentCounterReservationsNeverOverlap() throws Exception {
        int threads = 4, each = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<long[]>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int n = t + 1;
                futures.add(pool.submit(() -> {
                    go.await();
                    List<long[]> ranges = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        ranges.add(new long[] {cashu().reserveCounters(KEYSET, n), n});
                    }
                    return ranges;
                }));
            }
            go.countDown();
            List<long[]> all = new ArrayList<>();
            for (Future<List<long[]>> f : futures) {
                all.addAll(f.get());
            }
            all.sort(Comparator.comparingLong(r -> r[0]));
            long next = 0;
            for (long[] r : all) {
                assertEquals(next, r[0], "ranges are back to back, none overlaps");
                next += r[1];
            }
            assertEquals(next, cashu().counter(KEYSET));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    default void keysetsAreSavedAndReplacedPerMint() {
        KeysetRow k1 = new KeysetRow(MINT, "00aa", "sat", true, 100, "{\"1\":\"02" + "11".repeat(32) + "\"}");
        KeysetRow k2 = new KeysetRow(MINT, "00bb", "sat", true, 0, "{}");
        cashu().saveKeyset(k2);
        cashu().saveKeyset(k1);
        cashu().saveKeyset(new KeysetRow(OTHER, "00aa", "usd", true, 0, "{}"));
        KeysetRow k2off = new KeysetRow(MINT, "00bb", "sat", false, 0, "{\"2\":\"03" + "22".repeat(32) + "\"}");
        cashu().saveKeyset(k2off);
        assertEquals(List.of(k1, k2off), cashu().keysets(MINT));
        assertTrue(cashu().keysets("https://nobody.example").isEmpty());
    }
}
