package org.fleetmesh.settlement.cashu.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.Test;

class Bip39Test {
    @Test
    void seedMatchesTheFirstBip39ReferenceVector() {
        // trezor/python-mnemonic vectors.json, english[0]: entropy 00..00, passphrase "TREZOR".
        byte[] seed = Bip39.seed("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
                + "abandon about", "TREZOR");
        assertEquals("c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf1"
                + "41630c7a3c4ab7c81b2f001698e7463b04", Hex.encode(seed));
    }

    @Test
    void passphraseChangesTheSeed() {
        String m = "half depart obvious quality work element tank gorilla view sugar picture humble";
        assertFalse(Arrays.equals(Bip39.seed(m, ""), Bip39.seed(m, "x")));
    }

    @Test
    void mnemonicIsNormalizedToNfkdFirst() {
        // U+00E9 (composed) and "e" + U+0301 (decomposed) are the same text after NFKD.
        assertArrayEquals(Bip39.seed("caf\u00e9", "p\u00e9"), Bip39.seed("cafe\u0301", "pe\u0301"));
    }
}
