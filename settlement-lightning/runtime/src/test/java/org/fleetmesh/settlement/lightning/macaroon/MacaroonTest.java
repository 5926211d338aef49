package org.fleetmesh.settlement.lightning.macaroon;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

class MacaroonTest {
    private static final byte[] KEY = "this is our super secret key; only we should know it".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ID = "we used our secret key".getBytes(StandardCharsets.US_ASCII);

    /** libmacaroons README / pymacaroons notes: the basic and first-party caveat signatures. */
    @Test
    void libmacaroonsSignatures() {
        Macaroon m = Macaroon.mint(KEY, "http://mybank/", ID);
        assertEquals("e3d9e02908526c4c0039ae15114115d97fdd68bf2ba379b342aaf0f617d0552f", m.signatureHex());
        Macaroon c = m.addFirstPartyCaveat("test = caveat");
        assertEquals("197bac7a044af33332865b9266e26d493bdd668a660e44d88ce1a998c23dbd67", c.signatureHex());
        assertTrue(c.verifySignature(KEY));
        assertFalse(c.verifySignature("another key".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(0, m.caveats().size(), "adding a caveat leaves the original unchanged");
    }

    /** The V1 serialisation libmacaroons prints for the caveated macaroon reads back to the same fields. */
    @Test
    void readsLibmacaroonsV1() {
        Macaroon m = Macaroon.fromBase64("MDAxY2xvY2F0aW9uIGh0dHA6Ly9teWJhbmsvCjAwMjZpZGVudGlmaWVyIHdlIHVzZWQgb3VyIHNlY3JldCBrZXkKMDAxNmNpZCB0ZXN0ID0gY2F2ZWF0CjAwMmZzaWduYXR1cmUgGXusegRK8zMyhluSZuJtSTvdZopmDkTYjOGpmMI9vWcK");
        assertEquals("http://mybank/", m.location());
        assertArrayEquals(ID, m.identifier());
        assertEquals("test = caveat", m.caveats().get(0).predicate());
        assertEquals("197bac7a044af33332865b9266e26d493bdd668a660e44d88ce1a998c23dbd67", m.signatureHex());
        assertTrue(m.verifySignature(KEY));
    }

    /** V2 layout byte by byte for a small macaroon (libmacaroons v2 format). */
    @Test
    void v2Layout() {
        Macaroon m = Macaroon.mint(KEY, "loc", new byte[] {0, 1, 2}).addFirstPartyCaveat("a=b");
        byte[] s = m.serialize();
        String expectPrefix = "02" + "01" + "03" + "6c6f63" + "02" + "03" + "000102" + "00"
                + "02" + "03" + "613d62" + "00" + "00" + "06" + "20";
        assertEquals(expectPrefix, HexFormat.of().formatHex(s, 0, expectPrefix.length() / 2));
        assertEquals(expectPrefix.length() / 2 + 32, s.length);
        assertArrayEquals(m.signature(), Arrays.copyOfRange(s, s.length - 32, s.length));
    }

    @Test
    void v2RoundTripKeepsBinaryIdentifiers() {
        Random r = new Random(7);
        for (int i = 0; i < 200; i++) {
            byte[] id = new byte[1 + r.nextInt(300)];
            r.nextBytes(id); // includes 0x00, 0x0a, 0x20 and non-UTF-8 bytes
            byte[] key = new byte[32];
            r.nextBytes(key);
            Macaroon m = Macaroon.mint(key, i % 2 == 0 ? "" : "fleetmesh", id);
            for (int c = 0; c < r.nextInt(4); c++) {
                m = m.addFirstPartyCaveat("k" + c + "=" + r.nextInt());
            }
            Macaroon back = Macaroon.fromHex(m.toHex());
            assertArrayEquals(id, back.identifier());
            assertEquals(m.caveats(), back.caveats());
            assertTrue(back.verifySignature(key));
            assertArrayEquals(m.serialize(), Macaroon.fromBase64(m.toBase64()).serialize());
            String urlSafe = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(m.serialize());
            assertArrayEquals(m.serialize(), Macaroon.fromBase64(urlSafe).serialize());
        }
    }

    @Test
    void tamperingBreaksTheChain() {
        Macaroon m = Macaroon.mint(KEY, "", ID).addFirstPartyCaveat("expiry=100");
        byte[] s = m.serialize();
        // change one byte of the caveat predicate: still parses, no longer verifies
        int at = indexOf(s, "expiry=100".getBytes(StandardCharsets.US_ASCII));
        s[at + 7] = '9';
        Macaroon forged = Macaroon.deserialize(s);
        assertEquals("expiry=900", forged.caveats().get(0).predicate());
        assertFalse(forged.verifySignature(KEY));
    }

    @Test
    void malformedInputIsRefusedWithAReason() {
        byte[] good = Macaroon.mint(KEY, "loc", ID).addFirstPartyCaveat("x=y").serialize();
        for (int cut = 1; cut < good.length; cut++) {
            byte[] part = Arrays.copyOf(good, cut);
            MacaroonException e = assertThrows(MacaroonException.class, () -> Macaroon.deserialize(part), "cut at " + cut);
            assertNotNull(e.getMessage());
        }
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertTrue(assertThrows(MacaroonException.class, () -> Macaroon.deserialize(trailing)).getMessage().contains("trailing"));
        byte[] hugeLen = {2, 2, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f};
        assertThrows(MacaroonException.class, () -> Macaroon.deserialize(hugeLen));
        assertThrows(MacaroonException.class, () -> Macaroon.fromHex("zz"));
        assertThrows(MacaroonException.class, () -> Macaroon.fromBase64("!!!"));
        assertThrows(MacaroonException.class, () -> Macaroon.deserialize(new byte[0]));
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
