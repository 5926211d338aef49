package org.fleetmesh.peering.quarkus;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.fleetmesh.peering.LinkTraffic;
import org.fleetmesh.peering.PeerLinks;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Per-peer link meters at {@code /q/metrics}: state (one gauge per state, 1 for the current one), RTT, open links,
 * and messages and bytes each way. Peers get their own series up to {@link #MAX_PEERS}; past that (fresh DIDs cost
 * a stranger nothing) the rest share the series of peer {@code "other"}, so the registry stays bounded.
 */
@ApplicationScoped
public class PeerMeters {
    /** Peers with series of their own. */
    static final int MAX_PEERS = 256;
    static final String OTHER = "other";

    @Inject
    MeterRegistry registry;

    private final Map<String, Traffic> peers = new ConcurrentHashMap<>();

    /** The counters of a peer's links; registers its series on first use. */
    public LinkTraffic traffic(String peerKey, Function<String, java.util.Optional<PeerLinks.View>> views) {
        String tag = peers.containsKey(peerKey) || peers.size() < MAX_PEERS ? peerKey : OTHER;
        return peers.computeIfAbsent(tag, t -> new Traffic(registry, t, views));
    }

    int series() {
        return peers.size();
    }

    static final class Traffic implements LinkTraffic {
        private final Counter bytesIn;
        private final Counter bytesOut;
        private final Counter messagesIn;
        private final Counter messagesOut;

        Traffic(MeterRegistry registry, String peer, Function<String, java.util.Optional<PeerLinks.View>> views) {
            bytesIn = Counter.builder("fleetmesh.mesh.peer.bytes").tag("peer", peer).tag("direction", "in")
                    .description("UTF-8 bytes of messages received on authenticated links").register(registry);
            bytesOut = Counter.builder("fleetmesh.mesh.peer.bytes").tag("peer", peer).tag("direction", "out")
                    .description("UTF-8 bytes of messages sent on authenticated links").register(registry);
            messagesIn = Counter.builder("fleetmesh.mesh.peer.messages").tag("peer", peer).tag("direction", "in")
                    .description("messages received on authenticated links").register(registry);
            messagesOut = Counter.builder("fleetmesh.mesh.peer.messages").tag("peer", peer).tag("direction", "out")
                    .description("messages sent on authenticated links").register(registry);
            if (OTHER.equals(peer)) {
                return;
            }
            for (PeerLinks.State s : PeerLinks.State.values()) {
                Gauge.builder("fleetmesh.mesh.peer.state", () -> views.apply(peer)
                        .map(v -> v.state() == s ? 1 : 0).orElse(0))
                        .tag("peer", peer).tag("state", s.word())
                        .description("1 when the peer's link is in this state").register(registry);
            }
            Gauge.builder("fleetmesh.mesh.peer.rtt", () -> views.apply(peer)
                    .flatMap(PeerLinks.View::rttMillis).map(ms -> ms / 1000).orElse(Double.NaN))
                    .tag("peer", peer).baseUnit("seconds")
                    .description("round trip of the latest answered MESH-PING").register(registry);
            Gauge.builder("fleetmesh.mesh.peer.links", () -> views.apply(peer).map(PeerLinks.View::links).orElse(0))
                    .tag("peer", peer).description("authenticated links open to the peer").register(registry);
        }

        @Override
        public void received(long bytes) {
            messagesIn.increment();
            bytesIn.increment(bytes);
        }

        @Override
        public void sent(long bytes) {
            messagesOut.increment();
            bytesOut.increment(bytes);
        }
    }
}
