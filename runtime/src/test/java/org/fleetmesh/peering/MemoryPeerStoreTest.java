package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;

import org.fleetmesh.spi.peers.PeerStore.Source;
import org.junit.jupiter.api.Test;

class MemoryPeerStoreTest {
    static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
    static final String KEY = "did:peer:4zQmNNPJUM8fqAjuEuUbDHh6qRTGY9r8QQab2J9JaitaK7xU";

    @Test
    void aPeersFederateFiltersAreKeptByLaterDeclarationsAndMovesAndCleared() {
        MemoryPeerStore peers = new MemoryPeerStore();
        assertFalse(peers.federate(KEY, Optional.of("[]")), "no such peer");
        peers.declare(KEY, KEY, "ws://b:1/mesh", Source.ADMIN, T);
        assertTrue(peers.federate(KEY, Optional.of("[{\"kinds\":[1]}]")));
        peers.moved(KEY, "ws://b:2/mesh", 100);
        assertEquals(Optional.of("[{\"kinds\":[1]}]"), peers.declare(KEY, KEY, "ws://b:3/mesh", Source.ADMIN, T)
                .federate());
        assertTrue(peers.federate(KEY, Optional.empty()));
        assertEquals(Optional.empty(), peers.find(KEY).orElseThrow().federate());
    }
}
