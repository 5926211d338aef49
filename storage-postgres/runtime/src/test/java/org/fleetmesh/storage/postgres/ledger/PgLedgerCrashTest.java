package org.fleetmesh.storage.postgres.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.fleetmesh.spi.settlement.Accounts;
import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowRules;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write-ahead across a restart: a step is persisted, the process "dies" before acting on the rail
 * (every object dropped, the cluster stopped), and a fresh store on the same data finds the step,
 * the balances and the escrow still to be followed up.
 */
class PgLedgerCrashTest extends LedgerPgFixture {
    static final String PEER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dataDir;

    @Test
    void aPersistedStepSurvivesTheProcess() throws Exception {
        PaymentHash releasing = Preimage.random().hash();
        PaymentHash done = Preimage.random().hash();
        open(dataDir);
        store.apply(EscrowRules.seal(releasing, PEER, "ln", 50_000, AT));
        store.apply(EscrowRules.seal(done, PEER, "ln", 7_000, AT));
        for (EscrowState s : List.of(EscrowState.INVOICED, EscrowState.PAID, EscrowState.KEY_RELEASED)) {
            store.apply(EscrowRules.step(store.escrow(releasing).orElseThrow(), s, 0, AT));
            store.apply(EscrowRules.step(store.escrow(done).orElseThrow(), s, 0, AT));
        }
        store.markEffectDone(done, EscrowState.KEY_RELEASED);
        // crash: KEY_RELEASED of `releasing` persisted, settle on the rail never happened
        closeAll();

        open(dataDir);
        Escrow e = store.escrow(releasing).orElseThrow();
        assertEquals(EscrowState.KEY_RELEASED, e.state());
        assertEquals(4, e.version());
        assertFalse(e.effectDone());
        assertEquals(-57_000, store.balance(Accounts.INCOME));
        assertEquals(57_000, store.balance(Accounts.funds("ln")));
        assertEquals(0, store.balance(Accounts.escrow(releasing)));
        assertEquals(List.of(releasing), store.unfinished().stream().map(Escrow::paymentHash).toList());
        assertTrue(store.escrow(done).orElseThrow().effectDone());
    }
}
