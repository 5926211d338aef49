package org.fleetmesh.storage.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.spi.delivery.CustodyLedger.Append;
import org.fleetmesh.spi.delivery.CustodyLedger.Leaf;
import org.fleetmesh.spi.delivery.CustodyLedger.Receipt;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;
import org.fleetmesh.storage.postgres.delivery.PgCustodyLedger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Ad-hoc: custody appends per second, {@code mvn test -Dtest=CustodyLedgerBench -Dfleetmesh.bench=true}. */
@EnabledIfSystemProperty(named = "fleetmesh.bench", matches = "true")
class CustodyLedgerBench extends PgFixture {

    @Test
    void bench() throws Exception {
        sql("truncate custody_tree, custody_leaf, custody_receipt, delivery_outbound restart identity");
        PgCustodyLedger ledger = new PgCustodyLedger(store.dataSource());
        run(ledger, "warm-up", 100, 100, 1);
        for (int coalesce : new int[] { 1, 8 }) {
            for (int leaves : new int[] { 1, 100 }) {
                run(ledger, "frames of " + leaves + " leaves, " + coalesce + " per append", 1000, leaves, coalesce);
            }
        }
    }

    static long tree;

    static void run(PgCustodyLedger ledger, String what, int frames, int leaves, int coalesce) {
        String peer = "did:peer:4zQmBench" + tree++;
        long size = 0;
        long t0 = System.nanoTime();
        for (int f = 0; f < frames; f += coalesce) {
            List<Append> batch = new ArrayList<>();
            for (int c = 0; c < coalesce; c++) {
                List<Leaf> ls = new ArrayList<>(leaves);
                for (int i = 0; i < leaves; i++) {
                    byte[] id = new byte[32];
                    Ev.RND.nextBytes(id);
                    ls.add(new Leaf(size++, new EventId(id), 400, 1));
                }
                byte[] rid = new byte[32];
                Ev.RND.nextBytes(rid);
                long pos = f + c;
                batch.add(new Append(Side.RECEIVED, peer, ls, new Receipt(pos, size, pos + 1, new EventId(rid),
                        "{\"kind\":11803,\"content\":\"" + "x".repeat(300) + "\"}", size * 400, size,
                        List.of(new byte[32], new byte[32], new byte[32]), List.of(new byte[32], new byte[32])),
                        Optional.empty()));
            }
            ledger.append(batch);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("%-40s %8.0f receipts/s %9.0f leaves/s%n", what, frames / secs, frames * (double) leaves / secs);
    }
}
