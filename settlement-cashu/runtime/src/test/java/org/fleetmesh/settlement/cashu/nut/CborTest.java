package org.fleetmesh.settlement.cashu.nut;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.Test;

class CborTest {
    @Test
    void integersUseTheShortestHead() {
        assertEquals("17", Hex.encode(Cbor.encode(23L)));
        assertEquals("1818", Hex.encode(Cbor.encode(24L)));
        assertEquals("1903e8", Hex.encode(Cbor.encode(1000L)));
        assertEquals("1a000f4240", Hex.encode(Cbor.encode(1_000_000L)));
        assertEquals("1b000000e8d4a51000", Hex.encode(Cbor.encode(1_000_000_000_000L)));
        assertEquals("20", Hex.encode(Cbor.encode(-1L)));
    }

    @Test
    void mapsKeepInsertionOrder() throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", List.of());
        m.put("a", true);
        m.put("g", Cbor.UNDEFINED);
        byte[] b = Cbor.encode(m);
        assertEquals("a3617480" + "6161f5" + "6167f7", Hex.encode(b));
        Map<?, ?> back = (Map<?, ?>) Cbor.decode(b);
        assertEquals(List.of("t", "a", "g"), List.copyOf(back.keySet()));
        assertSame(Cbor.UNDEFINED, back.get("g"));
    }

    @Test
    void bytesAndTextRoundTrip() throws Exception {
        byte[] b = Cbor.encode(List.of(new byte[] { 1, 2 }, "é"));
        List<?> l = (List<?>) Cbor.decode(b);
        assertArrayEquals(new byte[] { 1, 2 }, (byte[]) l.get(0));
        assertEquals("é", l.get(1));
    }

    @Test
    void truncatedInputIsRejected() {
        Cbor.MalformedException e = assertThrows(Cbor.MalformedException.class,
                () -> Cbor.decode(Hex.decodeLower("5821aa")));
        assertEquals("truncated", e.getMessage());
        assertThrows(Cbor.MalformedException.class, () -> Cbor.decode(Hex.decodeLower("9a7fffffff")));
        assertThrows(Cbor.MalformedException.class, () -> Cbor.decode(new byte[0]));
    }

    @Test
    void trailingBytesAreRejected() {
        Cbor.MalformedException e = assertThrows(Cbor.MalformedException.class,
                () -> Cbor.decode(Hex.decodeLower("0101")));
        assertEquals("trailing bytes", e.getMessage());
    }

    @Test
    void duplicateMapKeysAreRejected() {
        assertThrows(Cbor.MalformedException.class, () -> Cbor.decode(Hex.decodeLower("a2616101616102")));
    }

    @Test
    void indefiniteLengthItemsDecode() throws Exception {
        assertEquals(List.of(1L, 2L), Cbor.decode(Hex.decodeLower("9f0102ff")));
        assertEquals(Map.of("a", 1L), Cbor.decode(Hex.decodeLower("bf616101ff")));
        assertEquals("ab", Cbor.decode(Hex.decodeLower("7f61616162ff")));
    }

    @Test
    void deepNestingIsRejected() {
        byte[] deep = new byte[40];
        java.util.Arrays.fill(deep, (byte) 0x81);
        deep[39] = 0;
        assertThrows(Cbor.MalformedException.class, () -> Cbor.decode(deep));
    }

    @Test
    void tagsAreRejected() {
        assertThrows(Cbor.MalformedException.class, () -> Cbor.decode(Hex.decodeLower("c11a514b67b0")));
    }

    @Test
    void largeUnsignedIntegersDecodeAsBigInteger() throws Exception {
        assertEquals(new java.math.BigInteger("18446744073709551615"),
                Cbor.decode(Hex.decodeLower("1bffffffffffffffff")));
    }
}
