package org.fleetmesh.storage.postgres.quarkus;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.fleetmesh.storage.postgres.PostgresStorage;
import org.jboss.logging.Logger;

/**
 * Opens the node's storage (the embedded PostgreSQL when no JDBC URL is set, the pool, the migrations) on a thread of
 * its own as soon as the runtime configuration exists, so the database starts while the rest of the node boots
 * (CDI, HTTP, keys, the mechanisms' start-up). {@link PostgresStorageProducer} waits for it; a failure is logged at
 * once and rethrown to whoever needs the storage, so the start fails as loudly as before. Storage nobody took (the
 * start failed elsewhere) is closed at shutdown, taking the embedded cluster down with it.
 */
public final class EarlyStorage {
    private static final Logger LOG = Logger.getLogger(EarlyStorage.class);

    private static CompletableFuture<PostgresStorage> opening; // guarded by EarlyStorage.class
    private static boolean taken; // guarded by EarlyStorage.class

    private EarlyStorage() {
    }

    /** Starts opening the storage in the background (once per JVM; later calls do nothing). */
    static synchronized void begin() {
        if (opening != null) {
            return;
        }
        CompletableFuture<PostgresStorage> f = new CompletableFuture<>();
        opening = f;
        taken = false;
        long t0 = System.nanoTime();
        Thread t = new Thread(() -> {
            try {
                PostgresStorage s = PostgresStorage.openFromConfig();
                LOG.debugf("storage opened in the background in %d ms", (System.nanoTime() - t0) / 1_000_000);
                f.complete(s);
            } catch (Throwable e) {
                LOG.error("the event store could not be opened: " + e.getMessage(), e);
                f.completeExceptionally(e);
            }
        }, "fleetmesh-storage-start");
        t.setDaemon(true);
        t.start();
    }

    /** The storage opened by {@link #begin()}, waiting for it; opened here when nothing began it (tests, tools). */
    static PostgresStorage take() {
        CompletableFuture<PostgresStorage> f;
        synchronized (EarlyStorage.class) {
            f = opening;
            if (f == null || taken) {
                return PostgresStorage.openFromConfig();
            }
            taken = true;
        }
        long t0 = System.nanoTime();
        try {
            // not bounded here: EmbeddedCluster bounds its own start (2 min) and JDBC its connects
            PostgresStorage s = f.get();
            LOG.debugf("the boot waited %d ms for the storage", (System.nanoTime() - t0) / 1_000_000);
            return s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the event store", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(c);
        }
    }

    /** At shutdown: closes storage that was opened in the background but never handed to CDI. */
    static void closeUntaken() {
        CompletableFuture<PostgresStorage> f;
        synchronized (EarlyStorage.class) {
            f = opening;
            opening = null;
            if (f == null || taken) {
                return;
            }
            taken = true;
        }
        f.thenAccept(s -> {
            LOG.info("closing the event store the aborted start opened");
            s.close();
        });
        try {
            f.join();
        } catch (RuntimeException e) {
            // already logged by begin()
        }
    }
}
