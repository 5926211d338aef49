package org.fleetmesh.identity.multiformats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

class MultihashTest {
    private static final byte[] EMPTY_SHA256 = HexFormat.of()
            .parseHex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

    @Test
    void prefixesTheDigestWithCodeAndLength() {
        byte[] multihash = Multihash.sha256(new byte[0]);
        assertArrayEquals(new byte[] { 0x12, 0x20 }, Arrays.copyOf(multihash, 2));
        assertArrayEquals(EMPTY_SHA256, Multihash.sha256DigestOf(multihash));
    }

    @Test
    void refusesAnotherHashCode() {
        byte[] sha1 = new byte[22];
        sha1[0] = 0x11;
        sha1[1] = 20;
        assertThrows(MultiformatException.class, () -> Multihash.sha256DigestOf(sha1));
    }

    @Test
    void refusesADigestOfTheWrongLength() {
        byte[] multihash = Multihash.sha256(new byte[0]);
        assertThrows(MultiformatException.class, () -> Multihash.sha256DigestOf(Arrays.copyOf(multihash, 33)));
    }
}
