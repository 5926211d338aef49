package org.fleetmesh.delivery.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.delivery.MemoryCustodyLedger;
import org.fleetmesh.spi.delivery.CustodyLedger;

import io.quarkus.arc.DefaultBean;

/** Without a storage adapter that keeps one, the custody ledger lives in memory (and is lost at exit). */
@ApplicationScoped
public class DefaultCustodyLedger {

    @Produces
    @DefaultBean
    @Singleton
    CustodyLedger memory() {
        return new MemoryCustodyLedger();
    }
}
