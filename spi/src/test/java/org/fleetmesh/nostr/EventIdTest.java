package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/** Ids and keys compare as unsigned big-endian bytes, which is the lexical order of their hex. */
class EventIdTest {

    private static EventId withFirstByte(int b) {
        byte[] bytes = new byte[32];
        bytes[0] = (byte) b;
        return new EventId(bytes);
    }

    @Test
    void highBitByteSortsAfterLowerByte() {
        assertTrue(withFirstByte(0x80).compareTo(withFirstByte(0x7f)) > 0);
        assertTrue(withFirstByte(0x7f).compareTo(withFirstByte(0x80)) < 0);
    }

    @Test
    void ffSortsLast() {
        assertTrue(withFirstByte(0xff).compareTo(withFirstByte(0x00)) > 0);
        assertTrue(withFirstByte(0xff).compareTo(withFirstByte(0xfe)) > 0);
    }

    @Test
    void orderingFollowsLowerCaseHexOrder() {
        List<EventId> ids = List.of(withFirstByte(0x80), withFirstByte(0x00), withFirstByte(0xff),
                withFirstByte(0x7f), withFirstByte(0x01));
        List<String> sortedHex = new TreeSet<>(ids).stream().map(EventId::hex).toList();
        List<String> lexical = ids.stream().map(EventId::hex).sorted().toList();
        assertEquals(lexical, sortedHex);
    }

    @Test
    void laterByteDecidesWhenPrefixIsEqual() {
        byte[] a = new byte[32];
        byte[] b = new byte[32];
        a[31] = (byte) 0x90;
        b[31] = (byte) 0x10;
        assertTrue(new EventId(a).compareTo(new EventId(b)) > 0);
    }

    @Test
    void equalBytesCompareEqualAndHashEqual() {
        EventId a = withFirstByte(0x42);
        EventId b = withFirstByte(0x42);
        assertEquals(0, a.compareTo(b));
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
    }

    @Test
    void eventIdAndPubKeyWithSameBytesAreNotEqual() {
        byte[] bytes = new byte[32];
        assertNotEquals(new EventId(bytes.clone()), new PubKey(bytes.clone()));
    }

    @Test
    void toBytesIsADefensiveCopy() {
        EventId id = withFirstByte(0x42);
        byte[] copy = id.toBytes();
        copy[0] = 0;
        assertEquals(0x42, id.toBytes()[0]);
    }

    @Test
    void pubKeysOrderUnsignedToo() {
        byte[] hi = new byte[32];
        hi[0] = (byte) 0x80;
        byte[] lo = new byte[32];
        lo[0] = 0x7f;
        assertTrue(new PubKey(hi).compareTo(new PubKey(lo)) > 0);
    }
}
