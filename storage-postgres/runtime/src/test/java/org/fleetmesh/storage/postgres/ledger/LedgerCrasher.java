package org.fleetmesh.storage.postgres.ledger;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

import org.fleetmesh.spi.settlement.EscrowRules;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;

/**
 * Run in a child JVM by {@link PgLedgerCrashTest}: commits escrow steps to the ledger of the data
 * dir {@code args[0]}, then leaves a transaction open halfway through an (unbalanced) change and
 * prints {@code READY <releasing> <done> <backend pid>}; it waits there to be killed.
 */
public final class LedgerCrasher extends LedgerPgFixture {
    static final String PEER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    public static void main(String[] args) throws Exception {
        open(Path.of(args[0]));
        PaymentHash releasing = Preimage.random().hash();
        PaymentHash done = Preimage.random().hash();
        store.apply(EscrowRules.seal(releasing, PEER, "ln", 50_000, AT));
        store.apply(EscrowRules.seal(done, PEER, "ln", 7_000, AT));
        for (EscrowState s : List.of(EscrowState.INVOICED, EscrowState.PAID, EscrowState.KEY_RELEASED)) {
            store.apply(EscrowRules.step(store.escrow(releasing).orElseThrow(), s, 0, AT));
            store.apply(EscrowRules.step(store.escrow(done).orElseThrow(), s, 0, AT));
        }
        store.markEffectDone(done, EscrowState.KEY_RELEASED);

        Connection c = pool.getConnection();
        c.setAutoCommit(false);
        long backend;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            backend = rs.getLong(1);
        }
        // half a double entry and a step, never committed
        try (PreparedStatement ps = c.prepareStatement(
                "update ledger_account set debit_msat = debit_msat + 999 where name = (select min(name) from ledger_account)")) {
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(
                "update ledger_escrow set state = 'REFUNDED', version = version + 1 where payment_hash = ?")) {
            ps.setBytes(1, releasing.toBytes());
            ps.executeUpdate();
        }
        System.out.println("READY " + releasing.hex() + " " + done.hex() + " " + backend);
        System.out.flush();
        Thread.sleep(600_000);
    }
}
