package org.fleetmesh.relay.deflate;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DeflatePolicyTest {
    @Test
    void aWholeMessageBelowTheThresholdGoesAsItIs() {
        DeflatePolicy p = new DeflatePolicy(1024, 1 << 20);
        assertTrue(p.skip(true, true, 14));
        assertTrue(p.skip(true, true, 1023));
        assertFalse(p.skip(true, true, 1024));
        assertFalse(p.skip(true, true, 100_000));
    }

    @Test
    void fragmentsAndControlFramesAreNeverSkipped() {
        DeflatePolicy p = new DeflatePolicy(1024, 1 << 20);
        assertFalse(p.skip(true, false, 10), "the first fragment of a message: the whole message is compressed");
        assertFalse(p.skip(false, true, 10), "a continuation or control frame follows its message");
    }

    @Test
    void zeroCompressesEverythingAndBadSettingsAreRefused() {
        assertFalse(new DeflatePolicy(0, 1 << 20).skip(true, true, 0));
        assertThrows(IllegalArgumentException.class, () -> new DeflatePolicy(-1, 1 << 20));
        assertThrows(IllegalArgumentException.class, () -> new DeflatePolicy(0, 100));
    }
}
