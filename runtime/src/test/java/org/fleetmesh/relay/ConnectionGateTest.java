package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ConnectionGateTest {
    /** Each of {@code addresses} is admitted, in order. */
    static void admits(ConnectionGate g, String... addresses) {
        for (String a : addresses) {
            assertNull(g.admit(a), "admits " + a);
        }
    }

    @Test
    void theTotalBoundsEveryAddressTogether() {
        ConnectionGate g = new ConnectionGate(3, 0);
        admits(g, "a", "b", "a");
        assertEquals("rate-limited: the relay holds its 3 connections; try again later", g.admit("c"));
        assertEquals(3, g.open());
        assertEquals(0, g.addresses(), "no per-address table without a per-address bound");
        g.release("b");
        assertNull(g.admit("c"));
        assertEquals(3, g.open());
    }

    @Test
    void oneAddressIsHeldToItsShareAndOthersAreNot() {
        ConnectionGate g = new ConnectionGate(100, 2);
        admits(g, "198.51.100.1", "198.51.100.1");
        assertEquals("rate-limited: this address holds its 2 connections; close one first", g.admit("198.51.100.1"));
        admits(g, "198.51.100.2", null, null);
        assertEquals("rate-limited: this address holds its 2 connections; close one first", g.admit(null),
                "connections of unknown address share one key");
        assertEquals(5, g.open(), "refused ones are not counted");
        g.release("198.51.100.1");
        assertNull(g.admit("198.51.100.1"));
        for (String a : new String[] {"198.51.100.1", "198.51.100.1", "198.51.100.2", null, null}) {
            g.release(a);
        }
        assertEquals(0, g.open());
        assertEquals(0, g.addresses(), "an address with nothing open is forgotten: the table is bounded by the total");
    }

    @Test
    void theTotalAppliesBeforeTheAddressesShare() {
        ConnectionGate g = new ConnectionGate(2, 5);
        admits(g, "a", "b");
        assertEquals("rate-limited: the relay holds its 2 connections; try again later", g.admit("c"));
        assertEquals(2, g.addresses(), "a refused address is not entered");
    }

    @Test
    void unkeyedConnectionsCountTowardTheTotalOnly() {
        ConnectionGate g = new ConnectionGate(3, 1);
        assertEquals(null, g.admitUnkeyed());
        assertEquals(null, g.admitUnkeyed(), "no per-address share for a proxy's or loopback's connections");
        admits(g, "a");
        assertEquals(0 + 1, g.addresses());
        assertEquals("rate-limited: the relay holds its 3 connections; try again later", g.admitUnkeyed());
        g.releaseUnkeyed();
        assertEquals("rate-limited: this address holds its 1 connections; close one first", g.admit("a"));
        assertEquals(null, g.admit("b"));
        assertEquals(3, g.open());
    }

    @Test
    void aRefusalNamesWhatHoldsTheConnections() {
        ConnectionGate g = new ConnectionGate("the node", 1, 0);
        assertEquals(null, g.admitUnkeyed());
        assertEquals("rate-limited: the node holds its 1 connections; try again later", g.admit("a"));
        assertEquals("rate-limited: the node holds its 1 connections; try again later", g.admitUnkeyed());
    }

    @Test
    void boundsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new ConnectionGate(0, 0));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionGate(1, -1));
    }
}
