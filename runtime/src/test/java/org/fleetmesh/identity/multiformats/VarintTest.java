package org.fleetmesh.identity.multiformats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class VarintTest {
    @Test
    void encodesTheMulticodecPrefixesAsTheTableDoes() {
        assertArrayEquals(new byte[] { (byte) 0xed, 0x01 }, Multicodec.ED25519_PUB.prefix());
        assertArrayEquals(new byte[] { (byte) 0xec, 0x01 }, Multicodec.X25519_PUB.prefix());
        assertArrayEquals(new byte[] { (byte) 0xe7, 0x01 }, Multicodec.SECP256K1_PUB.prefix());
        assertArrayEquals(new byte[] { (byte) 0x80, 0x04 }, Multicodec.JSON.prefix());
        assertArrayEquals(new byte[] { 0x12 }, Multicodec.SHA2_256.prefix());
    }

    @Test
    void decodesAValueAndTheBytesItTook() {
        Varint.Read read = Varint.decode(new byte[] { 0x55, (byte) 0x80, 0x04, 0x7b }, 1);
        assertEquals(0x0200, read.value());
        assertEquals(2, read.length());
    }

    @Test
    void refusesATruncatedVarint() {
        assertThrows(MultiformatException.class, () -> Varint.decode(new byte[] { (byte) 0xed }, 0));
    }

    @Test
    void refusesALongerEncodingThanNeeded() {
        assertThrows(MultiformatException.class, () -> Varint.decode(new byte[] { (byte) 0xed, (byte) 0x81, 0x00 }, 0));
    }

    @Test
    void refusesMoreThanNineBytes() {
        byte[] ten = { (byte) 0x81, (byte) 0x81, (byte) 0x81, (byte) 0x81, (byte) 0x81, (byte) 0x81, (byte) 0x81,
                (byte) 0x81, (byte) 0x81, 0x01 };
        assertThrows(MultiformatException.class, () -> Varint.decode(ten, 0));
    }
}
