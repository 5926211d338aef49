package org.fleetmesh.storage.postgres.ledger;

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

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.fleetmesh.spi.settlement.Accounts;
import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowRules;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.JournalEntry;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.LedgerStore.Outcome;
import org.fleetmesh.spi.settlement.Msat;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Posting;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The escrow state machine ({@link EscrowRules}) and the ledger invariants over PostgreSQL. */
class PgLedgerStoreTest extends LedgerPgFixture {
    static final String PEER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    static final String RAIL = "ln";
    static final long AMOUNT = 21_000;
    static final Instant AT = Instant.parse("2026-01-01T00:00:00.123Z");

    static final Map<EscrowState, List<EscrowState>> PATH = Map.of(
            SEALED, List.of(),
            INVOICED, List.of(INVOICED),
            PAID, List.of(INVOICED, PAID),
            KEY_RELEASED, List.of(INVOICED, PAID, KEY_RELEASED),
            REFUNDED, List.of(INVOICED, PAID, REFUNDED),
            EXPIRED, List.of(INVOICED, EXPIRED));

    @TempDir
    static Path dataDir;

    final PaymentHash hash = Preimage.random().hash();

    @BeforeAll
    static void start() throws Exception {
        open(dataDir);
    }

    @BeforeEach
    void clean() throws Exception {
        truncateLedger();
    }

    static Escrow driveTo(PaymentHash h, EscrowState target) {
        assertEquals(Outcome.APPLIED, store.apply(EscrowRules.seal(h, PEER, RAIL, AMOUNT, AT)));
        for (EscrowState s : PATH.get(target)) {
            Escrow e = store.escrow(h).orElseThrow();
            assertEquals(Outcome.APPLIED, store.apply(EscrowRules.step(e, s, 0, AT.plusSeconds(e.version()))));
        }
        return store.escrow(h).orElseThrow();
    }

    @ParameterizedTest
    @EnumSource(EscrowState.class)
    void everyLegalStepFromEveryStateIsPersisted(EscrowState from) {
        for (EscrowState to : EscrowRules.legalNext(from)) {
            PaymentHash h = Preimage.random().hash();
            Escrow e = driveTo(h, from);
            assertEquals(Outcome.APPLIED, store.apply(EscrowRules.step(e, to, 0, AT)));
            Escrow after = store.escrow(h).orElseThrow();
            assertEquals(to, after.state());
            assertEquals(e.version() + 1, after.version());
            assertEquals(AT, after.updatedAt());
            assertEquals(to, store.history(h).get(store.history(h).size() - 1));
        }
        assertTrialBalanceIsZero();
    }

    @Test
    void aKeyReleaseBooksIncomeAndFees() {
        Escrow e = driveTo(hash, PAID);
        store.apply(EscrowRules.step(e, KEY_RELEASED, 500, AT));
        assertEquals(-AMOUNT, store.balance(Accounts.INCOME));
        assertEquals(500, store.balance(Accounts.FEES));
        assertEquals(AMOUNT - 500, store.balance(Accounts.funds(RAIL)));
        assertEquals(0, store.balance(Accounts.escrow(hash)));
        assertEquals(0, store.balance(Accounts.locked(RAIL)));
        assertEquals(0, store.balance(Accounts.receivable(PEER)));
        assertEquals(List.of(SEALED, INVOICED, PAID, KEY_RELEASED), store.history(hash));
    }

    @ParameterizedTest
    @EnumSource(value = EscrowState.class, names = { "KEY_RELEASED", "REFUNDED", "EXPIRED" })
    void everyFinalStateClearsTheEscrowAccounts(EscrowState end) {
        driveTo(hash, end);
        assertEquals(0, store.balance(Accounts.escrow(hash)));
        assertEquals(0, store.balance(Accounts.receivable(PEER)));
        assertEquals(0, store.balance(Accounts.locked(RAIL)));
        assertTrialBalanceIsZero();
    }

    @Test
    void theSameStepTwiceHasOneEffect() {
        Escrow e = driveTo(hash, INVOICED);
        var paid = EscrowRules.step(e, PAID, 0, AT);
        assertEquals(Outcome.APPLIED, store.apply(paid));
        assertEquals(Outcome.REPLAYED, store.apply(paid));
        assertEquals(AMOUNT, store.balance(Accounts.locked(RAIL)));
        assertEquals(3, store.escrow(hash).orElseThrow().version());
        assertEquals(Outcome.REPLAYED, store.apply(EscrowRules.seal(hash, PEER, RAIL, AMOUNT, AT)));
    }

    @Test
    void theSamePostingTwiceHasOneEffect() {
        JournalEntry e = JournalEntry.of("topup:1", Posting.debit("rail:ln", 1_000), Posting.credit("equity", 1_000));
        assertEquals(Outcome.APPLIED, store.post(e));
        assertEquals(Outcome.REPLAYED, store.post(e));
        assertEquals(1_000, store.balance("rail:ln"));
        assertEquals(-1_000, store.balance("equity"));
    }

    @Test
    void concurrentDuplicatesApplyOnce() throws Exception {
        Escrow e = driveTo(hash, INVOICED);
        var paid = EscrowRules.step(e, PAID, 0, AT);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Outcome>> fs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                fs.add(pool.submit(() -> store.apply(paid)));
            }
            int applied = 0;
            for (Future<Outcome> f : fs) {
                applied += f.get() == Outcome.APPLIED ? 1 : 0;
            }
            assertEquals(1, applied);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(AMOUNT, store.balance(Accounts.locked(RAIL)));
    }

    @Test
    void aStepFromAStaleVersionIsAConflictAndWritesNothing() {
        Escrow snapshot = driveTo(hash, PAID);
        store.apply(EscrowRules.step(snapshot, KEY_RELEASED, 0, AT));
        var ex = assertThrows(LedgerException.class, () -> store.apply(EscrowRules.step(snapshot, REFUNDED, 0, AT)));
        assertEquals(LedgerException.Reason.CONFLICT, ex.reason());
        assertEquals(KEY_RELEASED, store.escrow(hash).orElseThrow().state());
        assertEquals(-AMOUNT, store.balance(Accounts.INCOME));
        assertEquals(0, store.balance(Accounts.escrow(hash)));
        assertFalse(store.history(hash).contains(REFUNDED));
    }

    @Test
    void creatingAnEscrowTwiceUnderAnotherKeyIsAConflict() throws Exception {
        driveTo(hash, SEALED);
        // same payment hash, but the SEALED key row is gone: only the escrow row guards it
        sql("delete from ledger_escrow_step", "delete from ledger_entry");
        var ex = assertThrows(LedgerException.class, () -> store.apply(EscrowRules.seal(hash, PEER, RAIL, AMOUNT, AT)));
        assertEquals(LedgerException.Reason.CONFLICT, ex.reason());
    }

    @Test
    void anOverflowingTotalIsRefusedAndTheTransactionRolledBack() {
        for (int i = 0; i < 4; i++) {
            store.post(JournalEntry.of("big:" + i, Posting.debit("big", Msat.MAX), Posting.credit("src:" + i, Msat.MAX)));
        }
        var ex = assertThrows(LedgerException.class,
                () -> store.post(JournalEntry.of("big:4", Posting.credit("other", Msat.MAX), Posting.debit("big", Msat.MAX))));
        assertEquals(LedgerException.Reason.OVERFLOW, ex.reason());
        assertEquals(4 * Msat.MAX, store.balance("big"));
        assertEquals(0, store.balance("other"));
        assertEquals(Outcome.APPLIED, store.post(JournalEntry.of("big:4", Posting.debit("other", 1), Posting.credit("x", 1))));
    }

    @Test
    void unfinishedListsWhatNeedsAFollowUp() {
        PaymentHash sealed = Preimage.random().hash();
        PaymentHash settled = Preimage.random().hash();
        PaymentHash settling = Preimage.random().hash();
        driveTo(sealed, SEALED);
        driveTo(settled, KEY_RELEASED);
        assertTrue(store.markEffectDone(settled, KEY_RELEASED));
        driveTo(settling, KEY_RELEASED);
        assertFalse(store.markEffectDone(settling, PAID), "the escrow moved on");
        List<PaymentHash> unfinished = store.unfinished().stream().map(Escrow::paymentHash).toList();
        assertTrue(unfinished.contains(sealed));
        assertTrue(unfinished.contains(settling));
        assertFalse(unfinished.contains(settled));
    }

    @Test
    void anEscrowReadsBackAsWritten() {
        Escrow e = driveTo(hash, SEALED);
        assertEquals(new Escrow(hash, PEER, RAIL, AMOUNT, SEALED, 1, true, AT), e);
        assertTrue(store.escrow(Preimage.random().hash()).isEmpty());
        assertEquals(List.of(), store.history(Preimage.random().hash()));
    }

    static void assertTrialBalanceIsZero() {
        long debits = 0;
        long credits = 0;
        for (LedgerStore.AccountTotals t : store.trialBalance()) {
            debits = Math.addExact(debits, t.debitMsat());
            credits = Math.addExact(credits, t.creditMsat());
        }
        assertEquals(debits, credits);
    }
}
