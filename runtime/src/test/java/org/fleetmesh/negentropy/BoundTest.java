package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** Bounds: the minimal separating prefix, zero padding in comparisons, and their wire form. */
class BoundTest {
    private static Id id(String hex) {
        return Id.ofHex(hex);
    }

    private static final Id A = id("aa00000000000000000000000000000000000000000000000000000000000000");
    private static final Id B = id("aa01ff0000000000000000000000000000000000000000000000000000000000");

    @Test
    void differentTimestampsNeedNoIdPrefix() {
        Bound bound = Bound.between(new Item(10, B), new Item(11, A));
        assertEquals(11, bound.timestamp());
        assertEquals(0, bound.idPrefix().length);
    }

    @Test
    void equalTimestampsTakeTheSharedPrefixPlusOneByte() {
        Bound bound = Bound.between(new Item(10, A), new Item(10, B));
        assertArrayEquals(HexFormat.of().parseHex("aa01"), bound.idPrefix());
    }

    @Test
    void minimalBoundSeparatesTheNeighbours() {
        Item prev = new Item(10, A);
        Item curr = new Item(10, B);
        Bound bound = Bound.between(prev, curr);
        assertTrue(bound.compareToItem(prev) > 0);
        assertTrue(bound.compareToItem(curr) <= 0);
    }

    @Test
    void shortPrefixComparesAsZeroPadded() {
        Bound bound = Bound.of(10, HexFormat.of().parseHex("aa"));
        assertEquals(0, bound.compareToItem(new Item(10, A)));
        assertEquals(Bound.of(10, A.toBytes()), bound);
    }

    @Test
    void prefixLongerThanAnIdIsRejected() {
        assertThrows(NegentropyException.class, () -> Bound.of(1, new byte[33]));
    }

    @Test
    void infinityTimestampIsReservedForBounds() {
        assertThrows(NegentropyException.class, () -> new Item(Bound.INFINITY, A));
    }

    @Test
    void infinitySortsAboveEveryTimestamp() {
        assertTrue(Bound.END.compareToItem(new Item(Long.MAX_VALUE, A)) > 0);
        assertTrue(Bound.END.compareToItem(new Item(-2L, B)) > 0);
    }

    /**
     * Timestamps go out as 1 + offset from the previous bound in the message, infinity as 0, then
     * the prefix length and the prefix: 40 items, three per second, so some buckets end between two
     * items of the same second and need a one-byte prefix (bound {@code 01 01 1a}: +0 s, "1a").
     */
    @Test
    void boundsAreDeltaEncodedWithMinimalPrefixes() {
        SortedVector.Builder items = SortedVector.builder();
        for (int i = 0; i < 40; i++) {
            items.insert(1_700_000_000L + i / 3, id(String.format("%02x", i).repeat(32)));
        }
        String first = HexFormat.of().formatHex(new Negentropy(items.seal()).initiate());
        // transcribed from the reference JS implementation (js/Negentropy.js) for the same set
        assertEquals("6186aacfe2020001c2055e4b533b897450a2f7abc14a3688020001686aedff2f9c4403c95df663a2e7f94d"
                + "0200017851008de1c1111147a0cffd5542d5ee02000121c47e3389dd7e42ed5f9990ec987897020001be94a05e"
                + "5a683c00bbb00ac3bb4435dc0200014b715d057b6f72486a252102172853b10200011bc69c0b9fe040f11e814ecf"
                + "7dded6d40200017c8f9535a9d6cd73ebc6ccc0bb2a05d401011a01ea0b199ccb75b2bf4ad341fb9fc51123020"
                + "11c01a1f81d851b2aeb0e73172e413a6ab574020001b3e3858268b6e16cf19cad87464bb795010120011fcfbd"
                + "b995ca766a5be2bbd528e9ee3d02012201e6b58a8f002f65b65fd1d4bcb4c0fefa0200011241fc130474945"
                + "06c3fe92e987bb00f0101260116d326ae01c53db89e5ecd79d96aa0420000013ce0890e0e3b24cb6629495268"
                + "f05299", first);
    }
}
