package org.fleetmesh.relay.quarkus;

import org.fleetmesh.relay.Relay;

import java.util.List;

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

    @Inject
    CapacityConfig capacity;

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
                    enableLiveIndexes(r);
                    r.capacity().apply(capacity.policy());
                    relay = r;
                    LOG.infof("relay ready (libsecp256k1 JNI: %s)", org.fleetmesh.nostr.Schnorr.isNative());
                }
            }
        }
        return r;
    }

    private void enableLiveIndexes(Relay r) {
        List<org.fleetmesh.nostr.Filter> filters = new java.util.ArrayList<>();
        List<String> labels = new java.util.ArrayList<>();
        try {
            var parser = new org.fleetmesh.nostr.MessageParser(config.limits().parserLimits());
            for (var node : new com.fasterxml.jackson.databind.ObjectMapper().readTree(config.negIndexes())) {
                if (!node.isObject()) {
                    throw new IllegalArgumentException("each element must be a filter object");
                }
                filters.add(parser.parseFilter(node.toString()));
                labels.add(node.toString());
            }
        } catch (Exception e) {
            throw new IllegalArgumentException("fleetmesh.relay.neg-indexes is not a JSON array of filters: " + e.getMessage(), e);
        }
        if (!filters.isEmpty()) {
            r.enableLiveIndexes(filters, labels, config.negIndexRebuild());
        }
    }

    @PreDestroy
    void stop() {
        Relay r = relay;
        if (r != null) {
            r.close();
        }
    }
}
