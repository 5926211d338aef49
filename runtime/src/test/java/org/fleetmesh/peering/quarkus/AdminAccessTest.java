package org.fleetmesh.peering.quarkus;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AdminAccessTest {
    @Test
    void loopbackTrustNeedsTheRequestToNameLoopback() {
        for (String host : new String[] { "127.0.0.1:7777", "127.0.0.1", "localhost:7777", "LOCALHOST", "[::1]:7777",
                "node.localhost:80", "localhost.", "127.8.9.10:1" }) {
            assertTrue(AdminAccess.namesLoopback(host, null), host);
        }
        assertTrue(AdminAccess.namesLoopback(null, null), "no Host (HTTP/1.0): only the address counts");
        assertTrue(AdminAccess.namesLoopback("127.0.0.1:7777", "http://127.0.0.1:7777"));
        assertTrue(AdminAccess.namesLoopback("localhost:7777", "http://localhost:7777"));
        // DNS rebinding: a page from elsewhere whose name now points at 127.0.0.1 sends its own name
        assertFalse(AdminAccess.namesLoopback("evil.example:7777", null));
        assertFalse(AdminAccess.namesLoopback("evil.example", "http://evil.example"));
        assertFalse(AdminAccess.namesLoopback("127.0.0.1.evil.example", null));
        assertFalse(AdminAccess.namesLoopback("localhost.evil.example", null));
        assertFalse(AdminAccess.namesLoopback("192.0.2.2:7777", null));
        // a page elsewhere calling 127.0.0.1 directly: its Origin gives it away
        assertFalse(AdminAccess.namesLoopback("127.0.0.1:7777", "http://evil.example"));
        assertFalse(AdminAccess.namesLoopback("127.0.0.1:7777", "null"));
    }
}
