package org.fleetmesh.compute.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.compute.market.MemoryJobBook;
import org.fleetmesh.spi.compute.JobBook;

import io.quarkus.arc.DefaultBean;

/** Without a storage adapter that keeps one, jobs live in memory (and a restart forgets them). */
@ApplicationScoped
public class DefaultJobBook {

    @Produces
    @DefaultBean
    @Singleton
    JobBook memory() {
        return new MemoryJobBook();
    }
}
