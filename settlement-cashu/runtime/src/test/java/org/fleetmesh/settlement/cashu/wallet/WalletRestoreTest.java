package org.fleetmesh.settlement.cashu.wallet;

import static org.fleetmesh.settlement.cashu.wallet.TestWallets.fund;
import static org.fleetmesh.settlement.cashu.wallet.TestWallets.wallet;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;

import org.fleetmesh.settlement.cashu.store.MemoryCashuStore;
import org.fleetmesh.settlement.cashu.token.Token;
import org.junit.jupiter.api.Test;

/** NUT-09/13: a wallet that lost its store gets its unspent proofs back from its seed. */
class WalletRestoreTest {
    final TestClock clock = new TestClock(Instant.parse("2026-07-01T00:00:00Z"));
    final TestMint mint = new TestMint(clock);
    final MemoryCashuStore lost = new MemoryCashuStore();
    final Wallet before = wallet(mint, lost, 1, clock, new Wallet.Options(true, 10, 3));

    @Test
    void restoreFindsExactlyTheUnspentProofs() {
        fund(before, mint, 100);
        Token t = before.swaps().send(10, null);
        wallet(mint, new MemoryCashuStore(), 2, clock).swaps().receive(t); // spends the token's proofs
        MemoryCashuStore fresh = new MemoryCashuStore();
        Wallet after = wallet(mint, fresh, 1, clock, new Wallet.Options(true, 10, 3));
        Restore.Result r = after.restore();
        assertEquals(90, r.amount());
        assertEquals(90, after.balance());
    }

    @Test
    void restoreMovesTheCountersPastEverythingFound() {
        fund(before, mint, 100);
        before.swaps().send(10, null);
        MemoryCashuStore fresh = new MemoryCashuStore();
        Wallet after = wallet(mint, fresh, 1, clock, new Wallet.Options(true, 10, 3));
        after.restore();
        String ks = mint.activeKeysetId();
        assertEquals(lost.counter(ks), fresh.counter(ks));
    }

    @Test
    void mintingAfterARestoreUsesFreshOutputs() {
        fund(before, mint, 100);
        MemoryCashuStore fresh = new MemoryCashuStore();
        Wallet after = wallet(mint, fresh, 1, clock, new Wallet.Options(true, 10, 3));
        after.restore();
        fund(after, mint, 50); // outputs of counters already signed would be refused (11003)
        assertEquals(150, after.balance());
    }

    @Test
    void restoringTwiceAddsNothingTheSecondTime() {
        fund(before, mint, 100);
        Wallet after = wallet(mint, new MemoryCashuStore(), 1, clock, new Wallet.Options(true, 10, 3));
        after.restore();
        assertEquals(0, after.restore().amount());
        assertEquals(100, after.balance());
    }

    @Test
    void restoreFindsMeltChangeBeyondUnsignedBlankOutputs() {
        fund(before, mint, 100);
        mint.meltFees(40, 31); // input 64: six blank outputs, one signed (32): gaps in the counters
        before.melting().pay(TestMint.invoice(1));
        fund(before, mint, 8); // counters after the gap
        long kept = before.balance();
        Wallet after = wallet(mint, new MemoryCashuStore(), 1, clock, new Wallet.Options(true, 10, 3));
        after.restore();
        assertEquals(kept, after.balance());
    }
}
