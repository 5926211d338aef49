package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** Base-128, most significant digit first, high bit on all but the last byte. */
class VarintTest {
    private static byte[] hex(String h) {
        return HexFormat.of().parseHex(h);
    }

    @Test
    void zeroIsOneZeroByte() {
        assertArrayEquals(hex("00"), Varint.encode(0));
    }

    @Test
    void digitsAreBigEndianWithContinuationBits() {
        assertArrayEquals(hex("7f"), Varint.encode(127));
        assertArrayEquals(hex("8100"), Varint.encode(128));
        assertArrayEquals(hex("8101"), Varint.encode(129));
        assertArrayEquals(hex("ff7f"), Varint.encode(16383));
        assertArrayEquals(hex("818000"), Varint.encode(16384));
    }

    @Test
    void largestValueTakesTenBytes() {
        assertArrayEquals(hex("81ffffffffffffffff7f"), Varint.encode(-1L));
        assertEquals(-1L, Varint.decode(hex("81ffffffffffffffff7f")));
    }

    @Test
    void roundTripsAcrossDigitBoundaries() {
        for (int shift = 0; shift < 64; shift++) {
            for (long delta = -1; delta <= 1; delta++) {
                long n = (1L << shift) + delta;
                assertEquals(n, Varint.decode(Varint.encode(n)), "n=" + Long.toUnsignedString(n));
            }
        }
    }

    @Test
    void leadingZeroDigitsAreAcceptedAsTheReferenceDoes() {
        assertEquals(1, Varint.decode(hex("808001")));
    }

    @Test
    void truncatedVarintIsRejected() {
        NegentropyException e = assertThrows(NegentropyException.class, () -> Varint.decode(hex("8181")));
        assertEquals("premature end of varint", e.getMessage());
        assertThrows(NegentropyException.class, () -> Varint.decode(new byte[0]));
    }

    @Test
    void moreThanTenBytesIsRejected() {
        NegentropyException e = assertThrows(NegentropyException.class,
                () -> Varint.decode(hex("8080808080808080808001")));
        assertEquals("varint too long: more than 10 bytes", e.getMessage());
    }

    @Test
    void valueAbove64BitsIsRejected() {
        NegentropyException e = assertThrows(NegentropyException.class,
                () -> Varint.decode(hex("82808080808080808000")));
        assertEquals("varint overflows 64 bits", e.getMessage());
    }
}
