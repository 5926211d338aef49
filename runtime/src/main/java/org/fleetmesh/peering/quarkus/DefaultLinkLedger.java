package org.fleetmesh.peering.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.peering.link.MemoryLinkLedger;
import org.fleetmesh.spi.peers.LinkLedger;

import io.quarkus.arc.DefaultBean;

/** Without a storage adapter that keeps one, the link ledger lives in memory (and is lost at exit). */
@ApplicationScoped
public class DefaultLinkLedger {

    @Produces
    @DefaultBean
    @Singleton
    LinkLedger memory() {
        return new MemoryLinkLedger();
    }
}
