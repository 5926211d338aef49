package org.fleetmesh.relay.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The client limiter's default bound on remembered keys follows the heap, so a small heap cannot be filled by it. */
class ClientLimitsKeysTest {
    private static final long MIB = 1024 * 1024;

    @Test
    void aSixthOfTheHeapAtMost100000AtLeast1000() {
        assertEquals(100_000, ClientLimitsConfig.defaultMaxKeys(512 * MIB), "the launcher's heap");
        assertEquals(100_000, ClientLimitsConfig.defaultMaxKeys(8192 * MIB));
        assertEquals(256 * MIB / 6 / 800, ClientLimitsConfig.defaultMaxKeys(256 * MIB));
        assertEquals(64 * MIB / 6 / 800, ClientLimitsConfig.defaultMaxKeys(64 * MIB));
        assertEquals(1_000, ClientLimitsConfig.defaultMaxKeys(2 * MIB));
        for (long heap : new long[] { 32 * MIB, 128 * MIB, 256 * MIB, 400 * MIB }) {
            int k = ClientLimitsConfig.defaultMaxKeys(heap);
            assertTrue(k * ClientLimitsConfig.BYTES_PER_KEY_PAIR <= heap / 6, heap + " -> " + k);
        }
    }
}
