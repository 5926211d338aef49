package org.fleetmesh.peering.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import org.fleetmesh.peering.MemoryPeerStore;
import org.fleetmesh.spi.peers.PeerStore;

import io.quarkus.arc.DefaultBean;

/** Without a storage adapter, declared peers live in memory (a storage adapter's PeerStore replaces this). */
@ApplicationScoped
public class DefaultPeerStore {

    @Produces
    @DefaultBean
    @ApplicationScoped
    PeerStore memory() {
        return new MemoryPeerStore();
    }
}
