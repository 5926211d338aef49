package org.fleetmesh.identity.quarkus;

import java.nio.file.Path;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.NodeLock;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * The running node's hold on its data dir ({@link NodeLock}): taken before anything else at start and before the
 * keys are read or created, released at shutdown. A second relay on the same data dir stops at start with the
 * reason and the pid of the one running.
 */
@ApplicationScoped
public class DataDirLock {
    private static final Logger LOG = Logger.getLogger(DataDirLock.class);

    @ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    Path dataDir;

    private NodeLock lock;

    @PostConstruct
    void acquire() {
        lock = NodeLock.acquire(dataDir);
        LOG.debugf("holding %s", dataDir.resolve(NodeLock.FILE));
    }

    /** Taken first among the start-up observers (the bean is created here, so the lock with it). */
    void onStart(@Observes @Priority(1) StartupEvent e) {
        held();
    }

    /** Nothing: calling it makes sure the bean, and so the lock, exists. */
    public void held() {
        // the lock is taken in acquire()
    }

    @PreDestroy
    void release() {
        if (lock != null) {
            lock.close();
            lock = null;
        }
    }
}
