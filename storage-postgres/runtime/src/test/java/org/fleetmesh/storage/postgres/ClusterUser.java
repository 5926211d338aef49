package org.fleetmesh.storage.postgres;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link EmbeddedClusterTest}: a process using the cluster of {@code args[0]}
 * like the CLI does (start or attach, use, close, exit). Prints {@code READY <started-here>}, then
 * closes the cluster and exits when its standard input says {@code exit} (or is closed).
 */
public final class ClusterUser {
    public static void main(String[] args) throws Exception {
        EmbeddedCluster cluster = EmbeddedCluster.start(Path.of(args[0]));
        try (PostgresStore store = PostgresStore.open(cluster.jdbcUrl(), cluster.user(), cluster.password(), 2)) {
            if (!store.isHealthy()) {
                throw new IllegalStateException("cannot reach the cluster");
            }
            System.out.println("READY " + cluster.owner());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null;) {
                if (line.equals("exit")) {
                    break;
                }
            }
        }
        cluster.close();
        System.out.println("CLOSED");
        System.out.flush();
    }
}
