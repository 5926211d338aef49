package org.fleetmesh.storage.postgres;

import static org.fleetmesh.spi.settlement.cashu.CashuStoreContract.op;
import static org.fleetmesh.spi.settlement.cashu.CashuStoreContract.unspent;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;

import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.fleetmesh.spi.settlement.cashu.CashuStore.KeysetRow;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStoreContract;
import org.fleetmesh.storage.postgres.cashu.PgCashuStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Cashu wallet's store in PostgreSQL (V10__cashu_wallet.sql), held to the CashuStore contract (the tests are
 * CashuStoreContract's, from fleetmesh-spi's test-jar, as for MemoryCashuStoreTest); only surviving a reopen is here.
 */
class PgCashuStoreTest extends PgFixture implements CashuStoreContract {
    // PgFixture and CashuStoreContract both have a NOW (the same instant): say which one
    static final long NOW = CashuStoreContract.NOW;

    CashuStore cashu;

    @BeforeEach
    void clean() throws Exception {
        sql("truncate cashu_proof, cashu_op, cashu_counter, cashu_keyset");
        cashu = new PgCashuStore(PgFixture.store.dataSource());
    }

    @Override
    public CashuStore cashu() {
        return cashu;
    }

    @Test
    void everythingSurvivesClosingAndReopeningTheStore() {
        String url = cluster.jdbcUrl(), user = cluster.user(), pw = cluster.password();
        Op op = op("op1", "mint", "quote-1", "sent");
        KeysetRow k = new KeysetRow(MINT, "00aa", "sat", true, 100, "{}");
        try (PostgresStore first = PostgresStore.open(url, user, pw, 2)) {
            CashuStore s = new PgCashuStore(first.dataSource());
            s.addProofs(List.of(unspent("a", NOW), unspent("b", NOW)));
            s.reserve(List.of("b"), "op1");
            s.saveOp(op);
            s.reserveCounters(KEYSET, 7);
            s.saveKeyset(k);
        }
        try (PostgresStore second = PostgresStore.open(url, user, pw, 2)) {
            CashuStore s = new PgCashuStore(second.dataSource());
            assertEquals(List.of(unspent("a", NOW)), s.proofs(MINT, ProofState.UNSPENT));
            assertEquals(List.of(unspent("b", NOW).withState(ProofState.PENDING, "op1")), s.proofsOfOp("op1"));
            assertEquals(Optional.of(op), s.opByKey("mint", "quote-1"));
            assertEquals(7, s.counter(KEYSET));
            assertEquals(List.of(k), s.keysets(MINT));
        }
    }
}
