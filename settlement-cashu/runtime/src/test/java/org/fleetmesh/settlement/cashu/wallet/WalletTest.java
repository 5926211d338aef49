package org.fleetmesh.settlement.cashu.wallet;

import static org.fleetmesh.settlement.cashu.wallet.TestWallets.amountIn;
import static org.fleetmesh.settlement.cashu.wallet.TestWallets.fund;
import static org.fleetmesh.settlement.cashu.wallet.TestWallets.wallet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.fleetmesh.settlement.cashu.conditions.Conditions;
import org.fleetmesh.settlement.cashu.conditions.SigFlag;
import org.fleetmesh.settlement.cashu.conditions.WellKnownSecret;
import org.fleetmesh.settlement.cashu.crypto.Secp256k1;
import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.ProofDleq;
import org.fleetmesh.settlement.cashu.store.MemoryCashuStore;
import org.fleetmesh.settlement.cashu.token.Token;
import org.fleetmesh.settlement.cashu.token.Tokens;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.junit.jupiter.api.Test;

class WalletTest {
    final TestClock clock = new TestClock(Instant.parse("2026-07-01T00:00:00Z"));
    final TestMint mint = new TestMint(clock);
    final MemoryCashuStore storeA = new MemoryCashuStore();
    final MemoryCashuStore storeB = new MemoryCashuStore();
    final Wallet a = wallet(mint, storeA, 1, clock);
    final Wallet b = wallet(mint, storeB, 2, clock);

    @Test
    void mintingAPaidQuoteCreditsTheAmount() {
        fund(a, mint, 100);
        assertEquals(100, a.balance());
        assertEquals(List.of(4L, 32L, 64L),
                storeA.proofs(TestWallets.MINT_URL, ProofState.UNSPENT).stream().map(p -> p.amount()).sorted().toList());
    }

    @Test
    void issuingAnUnpaidQuoteIsRefusedAndWorksOncePaid() {
        MintQuote q = a.minting().quote(20);
        assertThrows(WalletException.class, () -> a.minting().issue(q.quote()));
        assertEquals(0, a.balance());
        mint.pay(q.quote());
        a.minting().issue(q.quote());
        assertEquals(20, a.balance());
    }

    @Test
    void sendingAnAmountTheWalletHoldsExactlyNeedsNoSwap() {
        fund(a, mint, 100);
        Token t = a.swaps().send(36, "exact");
        assertEquals(36, t.amount());
        assertEquals(0, mint.calls(TestMint.Call.SWAP));
        assertEquals(64, a.balance());
        assertEquals(36, amountIn(storeA, ProofState.SENT));
    }

    /** A token handed out stays "sent" until its receiver redeems it; then the mint says spent and it is settled. */
    @Test
    void aSentTokenIsSettledOnceItsReceiverRedeemedIt() {
        fund(a, mint, 100);
        Token t = a.swaps().send(36, "exact");
        assertEquals(0, a.swaps().settleSent(), "not redeemed yet");
        assertEquals(36, amountIn(storeA, ProofState.SENT));
        assertEquals(36, b.swaps().receive(t));
        assertEquals(36, a.swaps().settleSent());
        assertEquals(0, amountIn(storeA, ProofState.SENT));
        assertEquals(36, amountIn(storeA, ProofState.SPENT));
        assertEquals(64, a.balance(), "the balance is as it was");
        assertEquals(0, a.swaps().settleSent());
    }

    @Test
    void sendingWithChangeSwapsAndKeepsTheChange() {
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        assertEquals(10, t.amount());
        assertEquals(1, mint.calls(TestMint.Call.SWAP));
        assertEquals(90, a.balance());
        assertEquals(10, amountIn(storeA, ProofState.SENT));
        assertEquals(0, amountIn(storeA, ProofState.PENDING));
    }

    @Test
    void sendingMoreThanTheBalanceIsRefusedAndReservesNothing() {
        fund(a, mint, 10);
        assertThrows(WalletException.class, () -> a.swaps().send(11, null));
        assertEquals(10, a.balance());
        assertEquals(0, amountIn(storeA, ProofState.PENDING));
    }

    @Test
    void aSecondWalletReceivesOurToken() {
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        assertEquals(10, b.swaps().receive(t));
        assertEquals(10, b.balance());
        assertEquals(90, a.balance());
    }

    @Test
    void aCashuBTokenWithShortKeysetIdsIsReceived() throws Exception {
        fund(a, mint, 100);
        Token t = Tokens.decode(Tokens.encodeV4(a.swaps().send(10, null)));
        assertEquals(10, b.swaps().receive(t));
        assertEquals(10, b.balance());
    }

    @Test
    void receiveRefusesATokenOfAnotherMint() {
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        Token other = new Token("http://other.mint", "sat", null, t.proofs());
        assertThrows(WalletException.class, () -> b.swaps().receive(other));
        assertEquals(0, b.balance());
        assertTrue(storeB.proofsBySecret(secrets(t)).isEmpty());
    }

    @Test
    void receiveRefusesATokenInAnotherUnit() {
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        Token usd = new Token(t.mint(), "usd", null, t.proofs());
        assertThrows(WalletException.class, () -> b.swaps().receive(usd));
        assertTrue(storeB.proofsBySecret(secrets(t)).isEmpty());
    }

    @Test
    void receiveRefusesAForgedDleq() {
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        List<Proof> forged = new ArrayList<>();
        for (Proof p : t.proofs()) {
            String e = org.fleetmesh.nostr.Hex.encode(Secp256k1.bytes32(Secp256k1.randomScalar()));
            String s = org.fleetmesh.nostr.Hex.encode(Secp256k1.bytes32(Secp256k1.randomScalar()));
            forged.add(new Proof(p.amount(), p.id(), p.secret(), p.c(), new ProofDleq(e, s, p.dleq().r()), null));
        }
        WalletException e = assertThrows(WalletException.class,
                () -> b.swaps().receive(new Token(t.mint(), "sat", null, forged)));
        assertTrue(e.getMessage().contains("DLEQ"), e.getMessage());
        assertEquals(0, mint.calls(TestMint.Call.SWAP) - 1); // only a's send swapped
        assertTrue(storeB.proofsBySecret(secrets(t)).isEmpty());
    }

    @Test
    void receiveTakesProofsWithoutDleqWhenNotRequired() {
        Wallet lax = wallet(mint, storeB, 2, clock, new Wallet.Options(false, 100, 3));
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        Token bare = new Token(t.mint(), "sat", null, t.proofs().stream().map(Proof::withoutDleq).toList());
        assertEquals(10, lax.swaps().receive(bare));
    }

    @Test
    void receiveRefusesALockedToken() {
        fund(a, mint, 100);
        String hash = "ab".repeat(32);
        List<Proof> locked = a.swaps().lock(8, () -> htlcSecret(hash), hash);
        Token t = new Token(TestWallets.MINT_URL, "sat", null, locked);
        WalletException e = assertThrows(WalletException.class, () -> b.swaps().receive(t));
        assertTrue(e.getMessage().contains("locked"), e.getMessage());
        assertEquals(0, b.balance());
    }

    @Test
    void receivingTheSameTokenTwiceCreditsOnce() {
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        b.swaps().receive(t);
        int swaps = mint.calls(TestMint.Call.SWAP);
        assertThrows(WalletException.class, () -> b.swaps().receive(t));
        assertEquals(10, b.balance());
        assertEquals(swaps, mint.calls(TestMint.Call.SWAP));
    }

    @Test
    void receivingATokenSpentElsewhereLeavesItsProofsSpent() {
        fund(a, mint, 100);
        Token t = a.swaps().send(10, null);
        b.swaps().receive(t);
        MemoryCashuStore storeC = new MemoryCashuStore();
        Wallet c = wallet(mint, storeC, 3, clock);
        assertThrows(WalletException.class, () -> c.swaps().receive(t));
        assertEquals(0, c.balance());
        assertEquals(10, amountIn(storeC, ProofState.SPENT));
        assertEquals(0, amountIn(storeC, ProofState.PENDING));
    }

    @Test
    void aTokenTheMintRejectsAsInvalidIsNotCredited() {
        Wallet lax = wallet(mint, storeB, 2, clock, new Wallet.Options(false, 100, 3));
        Proof fake = new Proof(8, mint.activeKeysetId(), "00".repeat(32),
                Secp256k1.hex(Secp256k1.mulG(Secp256k1.randomScalar())), null, null);
        assertThrows(WalletException.class,
                () -> lax.swaps().receive(new Token(TestWallets.MINT_URL, "sat", null, List.of(fake))));
        assertEquals(0, lax.balance());
        assertEquals(0, amountIn(storeB, ProofState.PENDING));
    }

    @Test
    void mintSignaturesWithForgedDleqAreRefused() {
        MintQuote q = a.minting().quote(10);
        mint.pay(q.quote());
        mint.forgeDleq(true);
        assertThrows(WalletException.class, () -> a.minting().issue(q.quote()));
    }

    @Test
    void inputFeesAreChargedExactly() {
        TestMint feeMint = new TestMint(clock, 100);
        Wallet fa = wallet(feeMint, storeA, 1, clock);
        Wallet fb = wallet(feeMint, storeB, 2, clock);
        fund(fa, feeMint, 100); // 64 + 32 + 4, minting costs no input fee
        assertEquals(100, fa.balance());
        Token t = fa.swaps().send(10, null); // input 64: fee ceil(100/1000) = 1, change 53
        assertEquals(10, t.amount());
        assertEquals(89, fa.balance());
        assertEquals(9, fb.swaps().receive(t)); // two proofs (8 + 2): fee ceil(200/1000) = 1
        assertEquals(9, fb.balance());
        Token exact = fa.swaps().send(36, null); // 32 + 4 held exactly: no swap, no fee for the sender
        assertEquals(53, fa.balance());
        assertEquals(35, fb.swaps().receive(exact)); // fee of two inputs
        assertEquals(44, fb.balance());
    }

    @Test
    void meltingPaysTheInvoiceAndTakesBackTheUnusedFeeReserveAsChange() {
        fund(a, mint, 100); // 64 + 32 + 4
        mint.meltFees(4, 1);
        Melting.Result r = a.melting().pay(TestMint.invoice(50)); // input 64: 64 - 50 - 1 = 13 back
        assertTrue(r.paid());
        assertEquals(13, r.change());
        assertEquals(51, r.spent());
        assertEquals(49, a.balance());
        assertEquals(0, amountIn(storeA, ProofState.PENDING));
    }

    @Test
    void meltingMoreThanTheBalanceIsRefusedAndReservesNothing() {
        fund(a, mint, 50);
        mint.meltFees(4, 1);
        assertThrows(WalletException.class, () -> a.melting().pay(TestMint.invoice(50)));
        assertEquals(50, a.balance());
        assertEquals(0, mint.calls(TestMint.Call.MELT));
    }

    static List<String> secrets(Token t) {
        return t.proofs().stream().map(Proof::secret).toList();
    }

    static String htlcSecret(String hash) {
        String key = Secp256k1.hex(Secp256k1.mulG(java.math.BigInteger.TWO));
        Conditions c = new Conditions(SigFlag.SIG_INPUTS, List.of(key), 0, OptionalLong.of(2_000_000_000L),
                List.of(), 0);
        return WellKnownSecret.htlc(org.fleetmesh.nostr.Hex.encode(Secp256k1.bytes32(Secp256k1.randomScalar())).substring(0, 32), hash, c)
                .serialize();
    }
}
