package org.fleetmesh.peering.quarkus;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

/**
 * The threads that verify and sign {@code /mesh} handshake proofs (Ed25519, BIP-340, DID decoding), so that the
 * event loop never does: a fixed pool with a bounded queue ({@code fleetmesh.mesh.handshake-threads},
 * {@code .handshake-queue}); past the queue {@link #execute} throws {@link java.util.concurrent.RejectedExecutionException}
 * and the link is refused {@code busy}.
 */
@ApplicationScoped
public class HandshakeWorkers implements Executor {
    private static final Logger LOG = Logger.getLogger(HandshakeWorkers.class);
    @Inject
    MeshConfig config;

    private volatile ThreadPoolExecutor pool;

    @Override
    public void execute(Runnable task) {
        pool().execute(task);
    }

    private ThreadPoolExecutor pool() {
        ThreadPoolExecutor p = pool;
        if (p == null) {
            synchronized (this) {
                p = pool;
                if (p == null) {
                    int threads = config.handshakeThreads();
                    int queue = config.handshakeQueue();
                    if (threads < 1 || queue < 1) {
                        throw new IllegalArgumentException("fleetmesh.mesh.handshake-threads and .handshake-queue must be at least 1");
                    }
                    AtomicInteger n = new AtomicInteger();
                    p = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue), r -> {
                        Thread t = new Thread(r, "mesh-handshake-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    }, new ThreadPoolExecutor.AbortPolicy());
                    pool = p;
                    LOG.infof("mesh handshakes verified on %d threads, %d steps queued at most", threads, queue);
                }
            }
        }
        return p;
    }

    @PreDestroy
    void stop() {
        ThreadPoolExecutor p = pool;
        if (p != null) {
            p.shutdownNow();
        }
    }
}
