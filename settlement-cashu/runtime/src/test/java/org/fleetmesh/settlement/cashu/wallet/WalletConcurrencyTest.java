package org.fleetmesh.settlement.cashu.wallet;

import static org.fleetmesh.settlement.cashu.wallet.TestWallets.wallet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.store.MemoryCashuStore;
import org.fleetmesh.settlement.cashu.token.Token;
import org.junit.jupiter.api.Test;

/** Two operations never reserve the same proof. */
class WalletConcurrencyTest {
    final TestClock clock = new TestClock(Instant.parse("2026-07-01T00:00:00Z"));
    final TestMint mint = new TestMint(clock);
    final MemoryCashuStore store = new MemoryCashuStore();
    final Wallet w = wallet(mint, store, 1, clock);

    @Test
    void concurrentSendsNeverShareAProof() throws Exception {
        for (int i = 0; i < 24; i++) { // 24 proofs of 1 and 24 of 2
            MintQuote q = w.minting().quote(3);
            mint.pay(q.quote());
            w.minting().issue(q.quote());
        }
        int threads = 6;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<Token>>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final long amount = t % 2 == 0 ? 1 : 3; // exact sets and swaps mixed
            Callable<List<Token>> c = () -> {
                start.await();
                List<Token> tokens = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    tokens.add(w.swaps().send(amount, null));
                }
                return tokens;
            };
            results.add(pool.submit(c));
        }
        Set<String> seen = new HashSet<>();
        long sent = 0;
        for (Future<List<Token>> f : results) {
            for (Token t : f.get()) {
                sent += t.amount();
                for (Proof p : t.proofs()) {
                    assertTrue(seen.add(p.secret()), "a proof went into two tokens");
                }
            }
        }
        pool.shutdown();
        assertEquals(3 * 4 * 1 + 3 * 4 * 3, sent);
        assertEquals(72 - sent, w.balance());
        // every token spends at the mint: none was spent twice
        Wallet r = wallet(mint, new MemoryCashuStore(), 2, clock);
        for (Future<List<Token>> f : results) {
            for (Token t : f.get()) {
                r.swaps().receive(t);
            }
        }
        assertEquals(sent, r.balance());
    }
}
