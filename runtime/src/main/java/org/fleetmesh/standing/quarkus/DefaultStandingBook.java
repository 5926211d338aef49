package org.fleetmesh.standing.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.spi.standing.StandingBook;
import org.fleetmesh.standing.MemoryStandingBook;

import io.quarkus.arc.DefaultBean;

/** Without a storage adapter that keeps one, the standing book lives in memory (and is lost at exit). */
@ApplicationScoped
public class DefaultStandingBook {

    @Produces
    @DefaultBean
    @Singleton
    StandingBook memory() {
        return new MemoryStandingBook();
    }
}
