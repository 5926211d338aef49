package org.fleetmesh.shards.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;

import org.junit.jupiter.api.Test;

/** Where sampling finds a peer's relay: its {@code /mesh} URL without {@code /mesh}. */
class SamplingRuntimeTest {

    @Test
    void thePeersRelayIsItsMeshUrlWithoutMesh() throws Exception {
        assertEquals(URI.create("ws://127.0.0.1:7777/"), SamplingRuntime.relayUrl(URI.create("ws://127.0.0.1:7777/mesh")));
        assertEquals(URI.create("wss://relay.example/node/"),
                SamplingRuntime.relayUrl(URI.create("wss://relay.example/node/mesh")));
        assertEquals(URI.create("wss://relay.example/"), SamplingRuntime.relayUrl(URI.create("wss://relay.example")));
        assertEquals(URI.create("ws://[::1]:80/other/"), SamplingRuntime.relayUrl(URI.create("ws://[::1]:80/other")));
    }
}
