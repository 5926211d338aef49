package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NewcomersTest {
    @Test
    void eachAddressHasItsOwnHourlyBound() {
        Newcomers n = new Newcomers(2, 100);
        assertTrue(n.admit("198.51.100.1", 0));
        assertTrue(n.admit("198.51.100.1", 1000));
        assertFalse(n.admit("198.51.100.1", 2000));
        assertTrue(n.admit("198.51.100.2", 2000), "another address is not held to the first's count");
        assertFalse(n.admit("198.51.100.1", Newcomers.HOUR - 1));
        assertTrue(n.admit("198.51.100.1", Newcomers.HOUR), "a new hour, a new count");
    }

    @Test
    void zeroTakesNoNewcomerAndBoundsAreChecked() {
        assertFalse(new Newcomers(0, 10).admit("a", 0));
        assertThrows(IllegalArgumentException.class, () -> new Newcomers(-1, 10));
        assertThrows(IllegalArgumentException.class, () -> new Newcomers(1, 0));
    }
}
