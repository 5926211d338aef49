package org.fleetmesh.settlement;

import static org.fleetmesh.spi.settlement.EscrowState.EXPIRED;
import static org.fleetmesh.spi.settlement.EscrowState.INVOICED;
import static org.fleetmesh.spi.settlement.EscrowState.KEY_RELEASED;
import static org.fleetmesh.spi.settlement.EscrowState.PAID;
import static org.fleetmesh.spi.settlement.EscrowState.REFUNDED;
import static org.fleetmesh.spi.settlement.EscrowState.SEALED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.fleetmesh.spi.settlement.Accounts;
import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowRules;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.LedgerStore.Outcome;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EscrowBookTest {
    static final String PEER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    static final String RAIL = "ln";
    static final long AMOUNT = 21_000;
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    /** The shortest path from SEALED to each state. */
    static final Map<EscrowState, List<EscrowState>> PATH = Map.of(
            SEALED, List.of(),
            INVOICED, List.of(INVOICED),
            PAID, List.of(INVOICED, PAID),
            KEY_RELEASED, List.of(INVOICED, PAID, KEY_RELEASED),
            REFUNDED, List.of(INVOICED, REFUNDED),
            EXPIRED, List.of(EXPIRED));

    final MemoryLedgerStore store = new MemoryLedgerStore();
    final EscrowBook book = new EscrowBook(store, CLOCK);
    final PaymentHash hash = Preimage.random().hash();

    Outcome move(EscrowBook b, PaymentHash h, EscrowState to) {
        return switch (to) {
            case SEALED -> b.seal(h, PEER, RAIL, AMOUNT);
            case INVOICED -> b.invoiced(h);
            case PAID -> b.paid(h);
            case KEY_RELEASED -> b.keyReleased(h, 0);
            case REFUNDED -> b.refunded(h);
            case EXPIRED -> b.expired(h);
        };
    }

    void driveTo(EscrowState target) {
        book.seal(hash, PEER, RAIL, AMOUNT);
        for (EscrowState s : PATH.get(target)) {
            move(book, hash, s);
        }
        assertEquals(target, book.escrow(hash).state());
    }

    static Stream<Arguments> everyPair() {
        List<Arguments> out = new ArrayList<>();
        for (EscrowState from : EscrowState.values()) {
            for (EscrowState to : EscrowState.values()) {
                if (to != SEALED) {
                    out.add(Arguments.of(from, to));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("everyPair")
    void onlyLegalTransitionsAreTaken(EscrowState from, EscrowState to) {
        driveTo(from);
        long version = book.escrow(hash).version();
        if (EscrowRules.isLegal(from, to)) {
            assertEquals(Outcome.APPLIED, move(book, hash, to));
            assertEquals(to, book.escrow(hash).state());
            assertEquals(version + 1, book.escrow(hash).version());
        } else if (from == to || store.history(hash).contains(to)) {
            assertEquals(Outcome.REPLAYED, move(book, hash, to)); // a duplicate report, not a move
            assertEquals(version, book.escrow(hash).version());
        } else {
            var ex = assertThrows(LedgerException.class, () -> move(book, hash, to));
            assertEquals(LedgerException.Reason.ILLEGAL_TRANSITION, ex.reason());
            assertTrue(ex.getMessage().contains(from + " -> " + to), ex.getMessage());
            assertEquals(from, book.escrow(hash).state());
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("everyPair")
    void theRulesRefuseEveryIllegalPair(EscrowState from, EscrowState to) {
        Escrow e = new Escrow(hash, PEER, RAIL, AMOUNT, from, 3, false, CLOCK.instant());
        if (EscrowRules.isLegal(from, to)) {
            assertEquals(to, EscrowRules.step(e, to, 0, CLOCK.instant()).after().state());
        } else {
            var ex = assertThrows(LedgerException.class, () -> EscrowRules.step(e, to, 0, CLOCK.instant()));
            assertEquals(LedgerException.Reason.ILLEGAL_TRANSITION, ex.reason());
        }
    }

    @Test
    void theLegalMovesAreExactlyTheDiagram() {
        assertEquals(EnumSet.of(INVOICED, EXPIRED), EscrowRules.legalNext(SEALED));
        assertEquals(EnumSet.of(PAID, REFUNDED, EXPIRED), EscrowRules.legalNext(INVOICED));
        assertEquals(EnumSet.of(KEY_RELEASED, REFUNDED, EXPIRED), EscrowRules.legalNext(PAID));
        for (EscrowState s : EscrowState.values()) {
            assertEquals(s.isFinal(), EscrowRules.legalNext(s).isEmpty(), s.name());
        }
    }

    @Test
    void releasingTheKeyTurnsTheEscrowIntoIncome() {
        book.seal(hash, PEER, RAIL, AMOUNT);
        book.invoiced(hash);
        assertEquals(AMOUNT, store.balance(Accounts.receivable(PEER)));
        assertEquals(-AMOUNT, store.balance(Accounts.escrow(hash)));
        book.paid(hash);
        assertEquals(0, store.balance(Accounts.receivable(PEER)));
        assertEquals(AMOUNT, store.balance(Accounts.locked(RAIL)));
        book.keyReleased(hash, 1_000);
        assertEquals(0, store.balance(Accounts.escrow(hash)));
        assertEquals(0, store.balance(Accounts.locked(RAIL)));
        assertEquals(-AMOUNT, store.balance(Accounts.INCOME));
        assertEquals(AMOUNT - 1_000, store.balance(Accounts.funds(RAIL)));
        assertEquals(1_000, store.balance(Accounts.FEES));
        assertTrialBalanceIsZero(store);
    }

    @ParameterizedTest
    @MethodSource("finalStates")
    void everyFinalStateClearsTheEscrowReceivableAndLock(EscrowState end) {
        driveTo(end);
        assertEquals(0, store.balance(Accounts.escrow(hash)));
        assertEquals(0, store.balance(Accounts.receivable(PEER)));
        assertEquals(0, store.balance(Accounts.locked(RAIL)));
        assertTrialBalanceIsZero(store);
    }

    @Test
    void refundAfterPaymentReturnsTheLockedFunds() {
        driveTo(PAID);
        book.refunded(hash);
        assertEquals(0, store.balance(Accounts.locked(RAIL)));
        assertEquals(0, store.balance(Accounts.INCOME));
        assertEquals(0, store.balance(Accounts.escrow(hash)));
    }

    static Stream<EscrowState> finalStates() {
        return Stream.of(KEY_RELEASED, REFUNDED, EXPIRED);
    }

    @Test
    void aRepeatedStepHasOneEffect() {
        driveTo(INVOICED);
        assertEquals(Outcome.APPLIED, book.paid(hash));
        assertEquals(Outcome.REPLAYED, book.paid(hash));
        assertEquals(AMOUNT, store.balance(Accounts.locked(RAIL)));
        assertEquals(3, book.escrow(hash).version());
        assertEquals(List.of(SEALED, INVOICED, PAID), store.history(hash));
    }

    @Test
    void aLateDuplicateAfterSettlingIsIgnored() {
        driveTo(KEY_RELEASED);
        assertEquals(Outcome.REPLAYED, book.observe(hash, InvoiceState.ACCEPTED));
        assertEquals(KEY_RELEASED, book.escrow(hash).state());
        assertEquals(-AMOUNT, store.balance(Accounts.INCOME));
    }

    @Test
    void sealingTwiceWithTheSameTermsIsAReplayAndWithOthersAConflict() {
        assertEquals(Outcome.APPLIED, book.seal(hash, PEER, RAIL, AMOUNT));
        assertEquals(Outcome.REPLAYED, book.seal(hash, PEER, RAIL, AMOUNT));
        var ex = assertThrows(LedgerException.class, () -> book.seal(hash, PEER, RAIL, AMOUNT + 1));
        assertEquals(LedgerException.Reason.CONFLICT, ex.reason());
    }

    @Test
    void aStepFromAStaleSnapshotIsAConflict() {
        driveTo(PAID);
        Escrow snapshot = book.escrow(hash);
        store.apply(EscrowRules.step(snapshot, KEY_RELEASED, 0, CLOCK.instant()));
        var ex = assertThrows(LedgerException.class,
                () -> store.apply(EscrowRules.step(snapshot, REFUNDED, 0, CLOCK.instant())));
        assertEquals(LedgerException.Reason.CONFLICT, ex.reason());
        assertEquals(KEY_RELEASED, book.escrow(hash).state());
        assertEquals(-AMOUNT, store.balance(Accounts.INCOME));
    }

    @Test
    void unknownEscrowIsNamed() {
        var ex = assertThrows(LedgerException.class, () -> book.paid(hash));
        assertEquals(LedgerException.Reason.UNKNOWN_ESCROW, ex.reason());
    }

    @Test
    void aFeeLargerThanTheAmountIsRefused() {
        driveTo(PAID);
        assertThrows(IllegalArgumentException.class, () -> book.keyReleased(hash, AMOUNT + 1));
        assertEquals(PAID, book.escrow(hash).state());
    }

    @Test
    void resumeNamesTheFollowUpOfEachPersistedStep() {
        assertEquals(FollowUp.Action.INVOICE, followUpAfter(SEALED));
        assertEquals(FollowUp.Action.CREATE_INVOICE, followUpAfter(INVOICED));
        book.effectDone(hash);
        assertEquals(FollowUp.Action.WATCH, only(book.resumeIncomplete()).action());
        book.paid(hash);
        assertEquals(FollowUp.Action.RELEASE_OR_REFUND, only(book.resumeIncomplete()).action());
        book.keyReleased(hash, 0);
        assertEquals(FollowUp.Action.SETTLE, only(book.resumeIncomplete()).action());
        assertTrue(book.effectDone(hash));
        assertTrue(book.resumeIncomplete().isEmpty());
    }

    @Test
    void aRefundIsIncompleteUntilTheCancelIsConfirmed() {
        driveTo(REFUNDED);
        assertEquals(FollowUp.Action.CANCEL, only(book.resumeIncomplete()).action());
        book.effectDone(hash);
        assertTrue(book.resumeIncomplete().isEmpty());
    }

    @Test
    void expiringASealedEscrowNeedsNoFollowUp() {
        driveTo(EXPIRED);
        assertTrue(book.resumeIncomplete().isEmpty());
    }

    @Test
    void railReportsDriveTheMachine() {
        driveTo(INVOICED);
        assertEquals(Outcome.APPLIED, book.observe(hash, InvoiceState.ACCEPTED));
        assertEquals(PAID, book.escrow(hash).state());
        book.keyReleased(hash, 0);
        assertEquals(Outcome.APPLIED, book.observe(hash, InvoiceState.SETTLED));
        assertTrue(book.escrow(hash).effectDone());
        assertEquals(Outcome.REPLAYED, book.observe(hash, InvoiceState.SETTLED));

        PaymentHash other = Preimage.random().hash();
        book.seal(other, PEER, RAIL, AMOUNT);
        book.invoiced(other);
        assertEquals(Outcome.APPLIED, book.observe(other, InvoiceState.CANCELED));
        assertEquals(REFUNDED, book.escrow(other).state());
        assertTrue(book.escrow(other).effectDone(), "the rail canceled it itself");
        var ex = assertThrows(LedgerException.class, () -> book.observe(hash, InvoiceState.CANCELED));
        assertEquals(LedgerException.Reason.ILLEGAL_TRANSITION, ex.reason());
    }

    @Test
    void aFreshBookOverTheSameStoreResumesWhereTheLastOneStopped() {
        driveTo(KEY_RELEASED); // persisted; "crash" before settling on the rail
        EscrowBook afterRestart = new EscrowBook(store, CLOCK);
        FollowUp f = only(afterRestart.resumeIncomplete());
        assertEquals(hash, f.escrow().paymentHash());
        assertEquals(FollowUp.Action.SETTLE, f.action());
        assertFalse(f.escrow().effectDone());
    }

    FollowUp.Action followUpAfter(EscrowState state) {
        if (state == SEALED) {
            book.seal(hash, PEER, RAIL, AMOUNT);
        } else {
            move(book, hash, state);
        }
        return only(book.resumeIncomplete()).action();
    }

    static FollowUp only(List<FollowUp> list) {
        assertEquals(1, list.size(), list.toString());
        return list.get(0);
    }

    static void assertTrialBalanceIsZero(LedgerStore s) {
        long sum = 0;
        for (LedgerStore.AccountTotals t : s.trialBalance()) {
            sum = Math.addExact(sum, t.balance());
        }
        assertEquals(0, sum);
    }
}
