package org.fleetmesh.settlement.cashu.wallet;

import static org.fleetmesh.settlement.cashu.wallet.TestWallets.amountIn;
import static org.fleetmesh.settlement.cashu.wallet.TestWallets.countIn;
import static org.fleetmesh.settlement.cashu.wallet.TestWallets.fund;
import static org.fleetmesh.settlement.cashu.wallet.TestWallets.wallet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;

import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.store.MemoryCashuStore;
import org.fleetmesh.settlement.cashu.token.Token;
import org.fleetmesh.settlement.cashu.wallet.TestMint.Call;
import org.fleetmesh.settlement.cashu.wallet.TestMint.Fault;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.junit.jupiter.api.Test;

/** A lost answer (or a lost request) is resolved by {@link Wallet#recover} to exactly the right balance. */
class WalletRecoveryTest {
    static final String HASH = "cd".repeat(32);

    final TestClock clock = new TestClock(Instant.parse("2026-07-01T00:00:00Z"));
    final TestMint mint = new TestMint(clock);
    final MemoryCashuStore store = new MemoryCashuStore();
    final Wallet w = wallet(mint, store, 1, clock);

    // ---- the answer was lost: the mint did it ----

    @Test
    void aLockSwapWhoseAnswerWasLostIsRecoveredWithItsLockedProofsAndChange() {
        fund(w, mint, 100);
        mint.failNext(Call.SWAP, Fault.LOST_AFTER);
        assertThrows(WalletException.class, () -> w.swaps().lock(10, () -> WalletTest.htlcSecret(HASH), HASH));
        assertEquals(100 - 64, w.balance());
        w.recover();
        assertEquals(90, w.balance());
        assertEquals(10, amountIn(store, ProofState.SENT));
        assertEquals(10, store.proofsOfLock(HASH).stream().mapToLong(p -> p.amount()).sum());
        assertNothingPending();
    }

    @Test
    void aSendWhoseAnswerWasLostGivesTheUndeliveredTokenBack() {
        fund(w, mint, 100);
        mint.failNext(Call.SWAP, Fault.LOST_AFTER);
        assertThrows(WalletException.class, () -> w.swaps().send(10, null));
        w.recover();
        // the caller never got the token: its proofs are the wallet's again
        assertEquals(100, w.balance());
        assertEquals(0, amountIn(store, ProofState.SENT));
        assertNothingPending();
    }

    @Test
    void aReceiveWhoseAnswerWasLostIsCreditedByRecovery() {
        Token t = tokenFromAnotherWallet(10);
        mint.failNext(Call.SWAP, Fault.LOST_AFTER);
        assertThrows(WalletException.class, () -> w.swaps().receive(t));
        w.recover();
        assertEquals(10, w.balance());
        assertEquals(10, amountIn(store, ProofState.SPENT));
        assertNothingPending();
    }

    @Test
    void aMintWhoseAnswerWasLostIsRestoredByRecovery() {
        MintQuote q = w.minting().quote(100);
        mint.pay(q.quote());
        mint.failNext(Call.MINT, Fault.LOST_AFTER);
        assertThrows(WalletException.class, () -> w.minting().issue(q.quote()));
        assertEquals(0, w.balance());
        w.recover();
        assertEquals(100, w.balance());
        assertTrue(w.minting().open().isEmpty());
    }

    @Test
    void aMeltWhoseAnswerWasLostIsRecoveredWithItsChange() {
        fund(w, mint, 100);
        mint.meltFees(4, 1);
        mint.failNext(Call.MELT, Fault.LOST_AFTER);
        assertThrows(WalletException.class, () -> w.melting().pay(TestMint.invoice(50)));
        w.recover();
        assertEquals(49, w.balance());
        assertNothingPending();
    }

    // ---- the request was lost: nothing happened ----

    @Test
    void aLockSwapThatNeverArrivedReleasesItsInputs() {
        fund(w, mint, 100);
        mint.failNext(Call.SWAP, Fault.LOST_BEFORE);
        assertThrows(WalletException.class, () -> w.swaps().lock(10, () -> WalletTest.htlcSecret(HASH), HASH));
        w.recover();
        assertEquals(100, w.balance());
        assertEquals(0, amountIn(store, ProofState.SENT));
        assertNothingPending();
    }

    @Test
    void aSendThatNeverArrivedReleasesItsInputs() {
        fund(w, mint, 100);
        mint.failNext(Call.SWAP, Fault.LOST_BEFORE);
        assertThrows(WalletException.class, () -> w.swaps().send(10, null));
        w.recover();
        assertEquals(100, w.balance());
        assertNothingPending();
    }

    @Test
    void aReceiveThatNeverArrivedKeepsTheTokensProofsSpendable() {
        Token t = tokenFromAnotherWallet(10);
        mint.failNext(Call.SWAP, Fault.LOST_BEFORE);
        assertThrows(WalletException.class, () -> w.swaps().receive(t));
        w.recover();
        assertEquals(10, w.balance());
        assertNothingPending();
        Token again = w.swaps().send(10, null); // they spend at the mint
        assertEquals(10, wallet(mint, new MemoryCashuStore(), 9, clock).swaps().receive(again));
    }

    @Test
    void aMintRequestThatNeverArrivedIsIssuedByRecovery() {
        MintQuote q = w.minting().quote(100);
        mint.pay(q.quote());
        mint.failNext(Call.MINT, Fault.LOST_BEFORE);
        assertThrows(WalletException.class, () -> w.minting().issue(q.quote()));
        w.recover();
        assertEquals(100, w.balance());
    }

    @Test
    void aMeltThatNeverArrivedReleasesItsInputs() {
        fund(w, mint, 100);
        mint.failNext(Call.MELT, Fault.LOST_BEFORE);
        assertThrows(WalletException.class, () -> w.melting().pay(TestMint.invoice(50)));
        w.recover();
        assertEquals(100, w.balance());
        assertNothingPending();
    }

    // ---- the rest ----

    @Test
    void aDefiniteRefusalReleasesTheInputsAtOnce() {
        fund(w, mint, 100);
        mint.failNext(Call.SWAP, Fault.DEFINITE_ERROR);
        assertThrows(WalletException.class, () -> w.swaps().send(10, null));
        assertEquals(100, w.balance());
        assertNothingPending();
    }

    @Test
    void aSecondRecoveryDoesNothing() {
        fund(w, mint, 100);
        mint.failNext(Call.SWAP, Fault.LOST_AFTER);
        assertThrows(WalletException.class, () -> w.swaps().lock(10, () -> WalletTest.htlcSecret(HASH), HASH));
        assertEquals(1, w.recover().lines().size());
        int swaps = mint.calls(Call.SWAP);
        int restores = mint.calls(Call.RESTORE);
        Wallet.Recovery again = w.recover();
        assertEquals(List.of(), again.lines());
        assertEquals(90, w.balance());
        assertEquals(swaps, mint.calls(Call.SWAP));
        assertEquals(restores, mint.calls(Call.RESTORE));
    }

    @Test
    void aMeltPendingAtTheMintStaysPendingUntilTheMintDecides() {
        fund(w, mint, 100);
        mint.meltFees(4, 1);
        mint.failNext(Call.MELT, Fault.PENDING_MELT);
        Melting.Result r = w.melting().pay(TestMint.invoice(50));
        assertEquals("PENDING", r.state());
        Wallet.Recovery rec = w.recover();
        assertTrue(!rec.complete(), rec.lines().toString());
        assertEquals(36, w.balance());
        mint.finishPendingMelt(r.quote(), true);
        assertTrue(w.recover().complete());
        assertEquals(49, w.balance());
        assertNothingPending();
    }

    @Test
    void aPendingMeltThatFailsReleasesItsInputs() {
        fund(w, mint, 100);
        mint.failNext(Call.MELT, Fault.PENDING_MELT);
        Melting.Result r = w.melting().pay(TestMint.invoice(50));
        mint.finishPendingMelt(r.quote(), false);
        w.recover();
        assertEquals(100, w.balance());
        assertNothingPending();
    }

    @Test
    void recoveryThatCannotReachTheMintLeavesTheOperationForLater() {
        fund(w, mint, 100);
        mint.failNext(Call.SWAP, Fault.LOST_AFTER);
        assertThrows(WalletException.class, () -> w.swaps().send(10, null));
        mint.failNext(Call.CHECK_STATE, Fault.LOST_BEFORE);
        assertTrue(!w.recover().complete());
        assertEquals(64, amountIn(store, ProofState.PENDING));
        assertTrue(w.recover().complete());
        assertNothingPending();
    }

    private Token tokenFromAnotherWallet(long amount) {
        Wallet other = wallet(mint, new MemoryCashuStore(), 7, clock);
        fund(other, mint, 100);
        return other.swaps().send(amount, null);
    }

    private void assertNothingPending() {
        assertEquals(0, countIn(store, ProofState.PENDING), () -> store.proofs(TestWallets.MINT_URL,
                ProofState.PENDING).toString());
        assertTrue(store.opsInStates(List.of(Wallet.PREPARED, Minting.ISSUING)).isEmpty());
    }

    static List<String> secrets(List<Proof> ps) {
        return ps.stream().map(Proof::secret).toList();
    }
}
