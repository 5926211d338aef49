package org.fleetmesh.relay.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class HttpConnectionsTest {
    /** The default total stays under the descriptors the process has, with room for its files and PostgreSQL's socket. */
    @Test
    void theDefaultTotalIsHeldUnderTheDescriptorLimit() {
        assertEquals(11_000, HttpConnections.defaultMax(1_048_576));
        assertEquals(11_000, HttpConnections.defaultMax(-1), "unknown: the fixed default");
        assertEquals(9_000, HttpConnections.defaultMax(12_000));
        assertEquals(768, HttpConnections.defaultMax(1024));
        assertEquals(64, HttpConnections.defaultMax(40));
    }
}
