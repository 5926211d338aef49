package org.fleetmesh.identity.multiformats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Examples from the multibase test vectors for "yes mani !". */
class MultibaseTest {
    private static final byte[] YES_MANI = "yes mani !".getBytes(StandardCharsets.US_ASCII);

    @Test
    void encodesBase58btcWithPrefixZ() {
        assertEquals("z7paNL19xttacUY", Multibase.BASE58BTC.encode(YES_MANI));
    }

    @Test
    void encodesBase16LowerWithPrefixF() {
        assertEquals("f796573206d616e692021", Multibase.BASE16_LOWER.encode(YES_MANI));
    }

    @Test
    void decodesWhicheverSupportedBaseThePrefixNames() {
        assertArrayEquals(YES_MANI, Multibase.decodeAny("z7paNL19xttacUY"));
        assertArrayEquals(YES_MANI, Multibase.decodeAny("f796573206d616e692021"));
    }

    @Test
    void refusesAnUnsupportedPrefix() {
        MultiformatException e = assertThrows(MultiformatException.class, () -> Multibase.decodeAny("meWVzIG1hbmkgIQ"));
        assertTrue(e.getMessage().contains("unsupported multibase prefix 'm'"), e.getMessage());
    }

    @Test
    void refusesUpperCaseBase16() {
        assertThrows(MultiformatException.class, () -> Multibase.decodeAny("F796573206D616E692021"));
        assertThrows(MultiformatException.class, () -> Multibase.decodeAny("f796573206D616E692021"));
    }

    @Test
    void refusesTheWrongBaseWhereOneIsRequired() {
        assertThrows(MultiformatException.class, () -> Multibase.BASE58BTC.decode("f796573206d616e692021"));
    }

    @Test
    void refusesAnEmptyValue() {
        assertThrows(MultiformatException.class, () -> Multibase.decodeAny(""));
    }
}
