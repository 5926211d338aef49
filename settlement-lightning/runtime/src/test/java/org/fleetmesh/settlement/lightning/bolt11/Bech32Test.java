package org.fleetmesh.settlement.lightning.bolt11;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception.Reason;
import org.junit.jupiter.api.Test;

class Bech32Test {

    @Test
    void decodesBip173ValidStrings() throws Exception {
        for (String s : new String[] {"A12UEL5L", "a12uel5l",
                "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
                "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
                "11" + "q".repeat(82) + "c8247j",
                "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w"}) {
            Bech32.Decoded d = Bech32.decode(s);
            assertEquals(s.toLowerCase(), Bech32.encode(d.hrp(), d.data()));
        }
    }

    @Test
    void refusesBip173InvalidStrings() {
        assertRefused(Reason.MALFORMED_BECH32, "pzry9x0s0muk"); // no separator
        assertRefused(Reason.MALFORMED_BECH32, "1pzry9x0s0muk"); // empty hrp
        assertRefused(Reason.MALFORMED_BECH32, "x1b4n0q5v"); // 'b' is not in the alphabet
        assertRefused(Reason.MALFORMED_BECH32, "li1dgmt3"); // checksum too short
        assertRefused(Reason.BAD_CHECKSUM, "A1G7SGD8"); // checksum computed over upper case hrp
        assertRefused(Reason.MIXED_CASE, "a12UEL5L");
        assertRefused(Reason.MALFORMED_BECH32, "\u00201nwldj5"); // hrp character out of range
    }

    @Test
    void hasNoNinetyCharacterLimit() throws Exception {
        byte[] data = new byte[1000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i % 32);
        }
        String s = Bech32.encode("lnbc", data);
        assertArrayEquals(data, Bech32.decode(s).data());
    }

    @Test
    void refusesBech32mChecksum() {
        assertRefused(Reason.BAD_CHECKSUM, Bech32.encodeBech32m("lnbc", new byte[] {1, 2, 3}));
    }

    @Test
    void packsGroupsToBytesAndBack() {
        byte[] bytes = {(byte) 0xff, 0x00, 0x12, 0x34, 0x56};
        byte[] groups = Bech32.toGroups(bytes);
        assertEquals(8, groups.length);
        assertArrayEquals(bytes, Bech32.toBytes(groups, 0, groups.length));
        assertArrayEquals(new byte[] {(byte) 0xf8}, Bech32.toBytesPadded(new byte[] {31}, 0, 1));
    }

    private static void assertRefused(Reason reason, String s) {
        assertEquals(reason, assertThrows(Bolt11Exception.class, () -> Bech32.decode(s)).reason(), s);
    }
}
