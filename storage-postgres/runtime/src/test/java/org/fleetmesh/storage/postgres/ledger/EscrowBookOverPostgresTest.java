package org.fleetmesh.storage.postgres.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import org.fleetmesh.settlement.EscrowBook;
import org.fleetmesh.settlement.FollowUp;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.LedgerException;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The core's EscrowBook driving the escrow state machine over PostgreSQL, across a restart. */
class EscrowBookOverPostgresTest extends LedgerPgFixture {
    static final String PEER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path dataDir;

    @AfterEach
    void close() {
        closeAll();
    }

    @Test
    void aReleasedKeyWhoseSettleNeverRanIsResumedAfterARestart() throws Exception {
        open(dataDir);
        EscrowBook book = new EscrowBook(store, CLOCK);
        PaymentHash h = Preimage.random().hash();
        book.seal(h, PEER, "ln", 21_000);
        book.invoiced(h);
        book.effectDone(h); // the invoice exists on the rail
        book.paid(h);
        book.keyReleased(h, 0); // persisted; the process dies before settling on the rail
        closeAll();

        open(dataDir);
        EscrowBook after = new EscrowBook(store, CLOCK);
        assertEquals(EscrowState.KEY_RELEASED, after.escrow(h).state());
        List<FollowUp> todo = after.resumeIncomplete();
        assertEquals(1, todo.size());
        assertEquals(FollowUp.Action.SETTLE, todo.get(0).action());
        assertEquals(h, todo.get(0).escrow().paymentHash());
    }

    @Test
    void anIllegalTransitionIsRefusedAndChangesNothing() throws Exception {
        open(dataDir);
        EscrowBook book = new EscrowBook(store, CLOCK);
        PaymentHash h = Preimage.random().hash();
        book.seal(h, PEER, "ln", 5_000);
        assertThrows(LedgerException.class, () -> book.keyReleased(h, 0));
        assertEquals(EscrowState.SEALED, book.escrow(h).state());
    }
}
