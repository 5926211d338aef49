package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/**
 * SHA-256 of (sum of ids mod 2^256, little-endian ‖ varint(count)), first 16 bytes. Expected values
 * come from the reference JS implementation (js/Negentropy.js, NegentropyStorageVector.fingerprint).
 */
class FingerprintTest {
    private static Fingerprint of(String... idHex) {
        SortedVector.Builder items = SortedVector.builder();
        for (int i = 0; i < idHex.length; i++) {
            items.insert(1000 + i, Id.ofHex(idHex[i]));
        }
        return items.seal().fingerprint(0, idHex.length);
    }

    @Test
    void emptyRange() {
        assertEquals(Fingerprint.ofHex("7f9c9e31ac8256ca2f258583df262dbc"), of());
    }

    @Test
    void singleId() {
        assertEquals(Fingerprint.ofHex("ce041765675ad4d93378e20bd3a7d0d9"), of("01".repeat(32)));
    }

    @Test
    void threeIds() {
        assertEquals(Fingerprint.ofHex("62d07ed5f99715371e7bee95b2d2d162"),
                of("aa".repeat(32), "bb".repeat(32), "cc".repeat(32)));
    }

    @Test
    void sumWrapsModulo2To256() {
        assertEquals(Fingerprint.ofHex("58cc2f44d3a27866874701fbad573da9"),
                of("ff".repeat(32), "01" + "00".repeat(31)));
    }

    @Test
    void sumIsLittleEndianWithCarryAcrossLimbs() {
        Accumulator sum = new Accumulator()
                .add(Id.ofHex("ff".repeat(8) + "00".repeat(24)))
                .add(Id.ofHex("01" + "00".repeat(31)));
        assertArrayEquals(HexFormat.of().parseHex("00".repeat(8) + "01" + "00".repeat(23)), sum.sum());
    }

    @Test
    void fingerprintDependsOnTheCount() {
        assertEquals(new Accumulator().fingerprint(0), of());
        assertEquals(false, new Accumulator().fingerprint(1).equals(of()));
    }
}
