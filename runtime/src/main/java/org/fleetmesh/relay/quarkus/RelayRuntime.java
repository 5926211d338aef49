package org.fleetmesh.relay.quarkus;

import org.fleetmesh.relay.Relay;
import org.fleetmesh.relay.limits.ClientAddress;
import org.fleetmesh.relay.limits.ClientLimits;

import java.util.List;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/** Holds the node's one {@link Relay}, built from configuration over the configured store. */
@ApplicationScoped
public class RelayRuntime {
    private static final Logger LOG = Logger.getLogger(RelayRuntime.class);

    @Inject
    EventStore store;

    /** The configured store (through the bean: its fields are not the client proxy's). */
    EventStore store() {
        return store;
    }

    @Inject
    RelayConfig config;

    @Inject
    CapacityConfig capacity;

    @Inject
    ClientLimitsConfig clients;

    /** {@code FLEETMESH_CLIENT_LIMITS}: on (the default) or off, for private deployments and benchmarks. */
    @ConfigProperty(name = "fleetmesh.client-limits", defaultValue = "on")
    String clientLimits;

    private volatile Relay relay;
    private volatile org.fleetmesh.relay.SendBudget sendBudget;
    private volatile ClientAddress clientAddress;

    void onStart(@Observes StartupEvent e) {
        relay();
    }

    /** What the node may hold queued for its clients (one for all WebSocket connections). */
    public org.fleetmesh.relay.SendBudget sendBudget() {
        org.fleetmesh.relay.SendBudget b = sendBudget;
        if (b == null) {
            synchronized (this) {
                b = sendBudget;
                if (b == null) {
                    b = config.sendBudget();
                    LOG.debugf("send budget: %d bytes per client, %d over all", b.perConnection(), b.total());
                    sendBudget = b;
                }
            }
        }
        return b;
    }

    public Relay relay() {
        Relay r = relay;
        if (r == null) {
            synchronized (this) {
                r = relay;
                if (r == null) {
                    ClientLimits limits = clientLimits();
                    r = new Relay(store, config.limits(), config.policy(), limits, System::nanoTime,
                            config.queryThreads(), () -> System.currentTimeMillis() / 1000);
                    int perAddress = clients.maxConnectionsPerAddress();
                    if (perAddress < 1) {
                        throw new IllegalArgumentException(
                                "fleetmesh.clients.max-connections-per-address must be at least 1, was " + perAddress);
                    }
                    r.connectionBounds(config.maxConnections(), limits.isOn() ? perAddress : 0);
                    r.keepAlive(config.pingInterval());
                    enableLiveIndexes(r);
                    r.capacity().apply(capacity.policy());
                    r.ingest().diskFloor(diskFloor());
                    relay = r;
                    LOG.infof("relay ready (libsecp256k1 JNI: %s)", org.fleetmesh.nostr.Schnorr.isNative());
                }
            }
        }
        return r;
    }

    @ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    java.nio.file.Path dataDir;

    /** The free disk kept on the data dir's file system ({@code fleetmesh.relay.min-free-disk-bytes}), read each second. */
    private org.fleetmesh.relay.capacity.DiskFloor diskFloor() {
        long min = config.minFreeDiskBytes();
        if (min < 0) {
            throw new IllegalArgumentException("fleetmesh.relay.min-free-disk-bytes is at least 0, was " + min);
        }
        if (min == 0) {
            return org.fleetmesh.relay.capacity.DiskFloor.NONE;
        }
        java.nio.file.Path dir = dataDir.toAbsolutePath();
        return new org.fleetmesh.relay.capacity.DiskFloor(min, () -> {
            try {
                java.nio.file.Path p = dir;
                while (p != null && !java.nio.file.Files.exists(p)) {
                    p = p.getParent();
                }
                return p == null ? Long.MAX_VALUE : java.nio.file.Files.getFileStore(p).getUsableSpace();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, 1_000_000_000L, System::nanoTime);
    }

    /** How a client connection's source address is found (behind a trusted proxy: from its header). */
    public ClientAddress clientAddress() {
        ClientAddress a = clientAddress;
        if (a == null) {
            a = new ClientAddress(java.util.Set.copyOf(clients.trustedProxies().orElse(List.of())), clients.proxyHeader());
            clientAddress = a;
        }
        return a;
    }

    private ClientLimits clientLimits() {
        String v = clientLimits.trim().toLowerCase(java.util.Locale.ROOT);
        if (v.equals("off") || v.equals("false")) {
            LOG.info("client limits are off (fleetmesh.client-limits=off)");
            return ClientLimits.OFF;
        }
        if (!v.equals("on") && !v.equals("true")) {
            throw new IllegalArgumentException("fleetmesh.client-limits must be on or off, was \"" + clientLimits + "\"");
        }
        int maxKeys = clients.effectiveMaxKeys();
        LOG.debugf("client limits: up to %d addresses and %d pubkeys remembered", maxKeys, maxKeys);
        return new ClientLimits(clients.policy(), maxKeys);
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

    /**
     * Before the HTTP server stops ({@link GoingAwayListener}): each client is told the relay is going away (close
     * 1001, RFC 6455 §7.4.1) rather than having its socket closed as if all were normal, and given up to 2 s to answer
     * the close.
     */
    void goingAway() {
        Relay r = relay;
        if (r == null) {
            return;
        }
        int n = r.goingAway("the relay is shutting down");
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
        while (r.connectionCount() > 0 && System.nanoTime() < end) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (n > 0) {
            LOG.infof("closed %d client connection(s): going away (%d not closed yet)", n, r.connectionCount());
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
