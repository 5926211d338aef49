package org.fleetmesh.peering.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** Per-peer meters stay bounded however many DIDs link to the node. */
class PeerMetersTest {

    @Test
    void peersPastTheBoundShareOneSeries() {
        PeerMeters meters = new PeerMeters();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        meters.registry = registry;
        for (int i = 0; i < PeerMeters.MAX_PEERS + 100; i++) {
            meters.traffic("did:peer:4zPeer" + i, k -> Optional.empty()).received(10);
        }
        assertEquals(PeerMeters.MAX_PEERS + 1, meters.series(), "one series per peer up to the bound, then 'other'");
        assertEquals(100 * 10.0, registry.get("fleetmesh.mesh.peer.bytes").tag("peer", PeerMeters.OTHER)
                .tag("direction", "in").counter().count());
        meters.traffic("did:peer:4zPeer0", k -> Optional.empty()).sent(5);
        assertEquals(5.0, registry.get("fleetmesh.mesh.peer.bytes").tag("peer", "did:peer:4zPeer0")
                .tag("direction", "out").counter().count(), "a known peer keeps its own series");
    }
}
