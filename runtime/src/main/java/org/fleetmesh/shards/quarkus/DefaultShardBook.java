package org.fleetmesh.shards.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import org.fleetmesh.shards.MemoryShardBook;
import org.fleetmesh.spi.shards.ShardBook;

import io.quarkus.arc.DefaultBean;

/** Without a storage adapter, declared shards live in memory (a storage adapter's ShardBook replaces this). */
@ApplicationScoped
public class DefaultShardBook {

    @Produces
    @DefaultBean
    @ApplicationScoped
    ShardBook memory() {
        return new MemoryShardBook();
    }
}
