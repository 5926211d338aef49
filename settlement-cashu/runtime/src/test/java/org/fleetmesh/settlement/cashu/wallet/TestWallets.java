package org.fleetmesh.settlement.cashu.wallet;

import java.time.Clock;
import java.util.Arrays;

import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;

/** Wallets on a {@link TestMint} for tests. */
public final class TestWallets {
    public static final String MINT_URL = "http://mint.test";

    private TestWallets() {
    }

    /** A 64-byte seed, different for each {@code n}. */
    public static byte[] seed(int n) {
        byte[] s = new byte[64];
        Arrays.fill(s, (byte) n);
        s[0] = 42;
        return s;
    }

    public static Wallet wallet(TestMint mint, CashuStore store, int seed, Clock clock) {
        return wallet(mint, store, seed, clock, Wallet.Options.defaults());
    }

    public static Wallet wallet(TestMint mint, CashuStore store, int seed, Clock clock, Wallet.Options options) {
        return new Wallet(MINT_URL, "sat", mint, store, seed(seed), clock, options);
    }

    /** Mints {@code amount} into the wallet: a quote, paid, issued. */
    public static void fund(Wallet w, TestMint mint, long amount) {
        MintQuote q = w.minting().quote(amount);
        mint.pay(q.quote());
        w.minting().issue(q.quote());
    }

    public static long amountIn(CashuStore store, ProofState state) {
        return store.proofs(MINT_URL, state).stream().mapToLong(CashuStore.StoredProof::amount).sum();
    }

    public static int countIn(CashuStore store, ProofState state) {
        return store.proofs(MINT_URL, state).size();
    }
}
