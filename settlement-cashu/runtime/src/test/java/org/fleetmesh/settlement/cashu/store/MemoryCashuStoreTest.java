package org.fleetmesh.settlement.cashu.store;

import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.fleetmesh.spi.settlement.cashu.CashuStoreContract;
import org.junit.jupiter.api.BeforeEach;

/**
 * The in-memory Cashu wallet store, held to the CashuStore contract (the tests are CashuStoreContract's, from
 * fleetmesh-spi's test-jar). PgCashuStoreTest runs the same ones on PostgreSQL, plus surviving a reopen.
 */
class MemoryCashuStoreTest implements CashuStoreContract {
    CashuStore cashu;

    @BeforeEach
    void fresh() {
        cashu = new MemoryCashuStore();
    }

    @Override
    public CashuStore cashu() {
        return cashu;
    }
}
