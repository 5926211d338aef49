package org.fleetmesh.storage.postgres;

import java.nio.file.Path;
import java.util.List;

import org.fleetmesh.nostr.Event;

/**
 * Run in a child JVM by {@link EmbeddedClusterTest}: starts the cluster of {@code args[0]}, stores
 * one event, prints its id, then waits to be killed with SIGKILL, leaving the postmaster orphaned.
 */
public final class OrphanMaker {
    public static void main(String[] args) throws Exception {
        EmbeddedCluster cluster = EmbeddedCluster.start(Path.of(args[0]));
        PostgresStore store = PostgresStore.open(cluster.jdbcUrl(), cluster.user(), cluster.password(), 2);
        Event e = Ev.ev(Ev.author(), 1_700_000_000L, 1, "written before the crash");
        store.save(List.of(e));
        System.out.println("READY " + e.id().hex());
        System.out.flush();
        Thread.sleep(600_000);
    }
}
