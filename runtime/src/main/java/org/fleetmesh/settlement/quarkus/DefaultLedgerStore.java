package org.fleetmesh.settlement.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.settlement.MemoryLedgerStore;
import org.fleetmesh.spi.settlement.LedgerStore;

import io.quarkus.arc.DefaultBean;

/** Without a storage adapter that keeps one, the ledger lives in memory (and is lost at exit). */
@ApplicationScoped
public class DefaultLedgerStore {

    @Produces
    @DefaultBean
    @Singleton
    LedgerStore memory() {
        return new MemoryLedgerStore();
    }
}
