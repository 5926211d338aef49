package org.fleetmesh.relay;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/** Holds the node's one {@link Relay}, built from configuration over the configured store. */
@ApplicationScoped
public class RelayRuntime {
    private static final Logger LOG = Logger.getLogger(RelayRuntime.class);

    @Inject
    EventStore store;

    @Inject
    RelayConfig config;

    private volatile Relay relay;

    void onStart(@Observes StartupEvent e) {
        relay();
    }

    public Relay relay() {
        Relay r = relay;
        if (r == null) {
            synchronized (this) {
                r = relay;
                if (r == null) {
                    r = new Relay(store, config.limits(), config.policy(), config.queryThreads(),
                            () -> System.currentTimeMillis() / 1000);
                    relay = r;
                    LOG.infof("relay ready (libsecp256k1 JNI: %s)", org.fleetmesh.nostr.Schnorr.isNative());
                }
            }
        }
        return r;
    }

    @PreDestroy
    void stop() {
        Relay r = relay;
        if (r != null) {
            r.close();
        }
    }
}
