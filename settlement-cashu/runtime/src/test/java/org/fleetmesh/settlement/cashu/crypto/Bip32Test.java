package org.fleetmesh.settlement.cashu.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.Test;

class Bip32Test {
    // BIP-32 test vector 1 (bitcoin/bips bip-0032.mediawiki): seed 000102030405060708090a0b0c0d0e0f.
    private static final byte[] SEED = Hex.decodeLower("000102030405060708090a0b0c0d0e0f");

    @Test
    void masterKeyMatchesBip32Vector1() {
        Bip32.ExtendedKey m = Bip32.master(SEED);
        assertEquals("e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35", key(m));
        assertEquals("873dff81c02f525623fd1fe5167eac3a55a049de3d314bb42ee227ffed37d508", Hex.encode(m.chainCode()));
    }

    @Test
    void hardenedChildMatchesBip32Vector1() {
        Bip32.ExtendedKey k = Bip32.derive(SEED, "m/0'");
        assertEquals("edb2e14f9ee77d26dd93b4ecede8d16ed408ce149b6cd80b0715a2d911a0afea", key(k));
        assertEquals("47fdacbd0f1097043b78c63c20c34ef4ed9a111d980047ad16282c7ae6236141", Hex.encode(k.chainCode()));
    }

    @Test
    void normalChildMatchesBip32Vector1() {
        Bip32.ExtendedKey k = Bip32.derive(SEED, "m/0'/1");
        assertEquals("3c6cb8d0f6a264c91ea8b5030fadaa8e538b020f0a387421a12de9319dc93368", key(k));
        assertEquals("2a7857631386ba23dacac34180dd1983734e444fdbf774041578e9b6adb37c19", Hex.encode(k.chainCode()));
    }

    @Test
    void malformedPathsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> Bip32.derive(SEED, "0/1"));
        assertThrows(IllegalArgumentException.class, () -> Bip32.derive(SEED, "m/x'"));
        assertThrows(IllegalArgumentException.class, () -> Bip32.derive(SEED, "m/2147483648"));
    }

    @Test
    void keysDoNotAppearInToString() {
        Bip32.ExtendedKey m = Bip32.master(SEED);
        assertFalse(m.toString().contains(key(m)));
    }

    private static String key(Bip32.ExtendedKey k) {
        return Hex.encode(Secp256k1.bytes32(k.privateKey()));
    }
}
