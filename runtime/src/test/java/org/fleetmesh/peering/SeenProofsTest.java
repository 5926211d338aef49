package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SeenProofsTest {
    private static Ed25519Signature sig(int n) {
        byte[] b = new byte[64];
        b[0] = (byte) n;
        b[1] = (byte) (n >> 8);
        return Ed25519Signature.of(b);
    }

    @Test
    void aProofIsAcceptedOnce() {
        SeenProofs seen = new SeenProofs(8);
        assertTrue(seen.firstSight(sig(1), 160, 100));
        assertFalse(seen.firstSight(sig(1), 160, 100));
        assertTrue(seen.firstSight(sig(2), 160, 100));
    }

    @Test
    void theCacheStaysWithinItsCapacity() {
        SeenProofs seen = new SeenProofs(3);
        for (int i = 0; i < 10; i++) {
            seen.firstSight(sig(i), 1000, 100);
        }
        assertEquals(3, seen.size());
        assertFalse(seen.firstSight(sig(9), 1000, 100), "the newest are kept");
    }

    @Test
    void staleProofsAreForgotten() {
        SeenProofs seen = new SeenProofs(100);
        seen.firstSight(sig(1), 160, 100);
        seen.firstSight(sig(2), 160, 100);
        seen.firstSight(sig(3), 500, 200);
        assertEquals(1, seen.size(), "proofs the time check refuses anyway need no memory");
    }
}
