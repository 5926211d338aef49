package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** Schnorr behaviour that needs no vector file; BIP-340 vector 1 is inlined where a known key helps. */
class SchnorrTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] SK = HEX.parseHex("b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef");
    private static final byte[] PK = HEX.parseHex("dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659");
    private static final byte[] MSG = HEX.parseHex("243f6a8885a308d313198a2e03707344a4093822299f31d0082efa98ec4e6c89");
    private static final byte[] SIG = HEX.parseHex("6896bd60eeae296db48a229ff71dfe071bde413e6d43f917dc8dcf8c78de3341"
            + "8906d11ac976abccb20b091292bff4ea897efcb639ea871cfa95f6de339e4b0a");

    @Test
    void nativeLibsecp256k1IsInUse() {
        assertTrue(Schnorr.isNative(), "libsecp256k1 JNI should load on this machine");
    }

    @Test
    void inlinedVectorOneVerifiesOnBothPaths() {
        assertTrue(Schnorr.verify(SIG, MSG, PK));
        assertTrue(Schnorr.verifyPortable(SIG, MSG, PK));
    }

    @Test
    void inlinedVectorOneSignsDeterministicallyOnBothPaths() {
        byte[] aux = new byte[32];
        aux[31] = 1;
        assertArrayEquals(SIG, Schnorr.sign(MSG, SK, aux));
        assertArrayEquals(SIG, Schnorr.signPortable(MSG, SK, aux));
    }

    @Test
    void verifyReturnsFalseForAShortSignatureInsteadOfThrowing() {
        assertFalse(Schnorr.verify(Arrays.copyOf(SIG, 63), MSG, PK));
    }

    @Test
    void verifyReturnsFalseForAShortKeyInsteadOfThrowing() {
        assertFalse(Schnorr.verify(SIG, MSG, Arrays.copyOf(PK, 31)));
        assertFalse(Schnorr.verifyPortable(SIG, MSG, Arrays.copyOf(PK, 31)));
    }

    @Test
    void verifyReturnsFalseForAnotherMessage() {
        byte[] other = MSG.clone();
        other[0] ^= 1;
        assertFalse(Schnorr.verify(SIG, other, PK));
        assertFalse(Schnorr.verifyPortable(SIG, other, PK));
    }

    @Test
    void signWithFreshRandomnessVerifiesOnBothPaths() {
        byte[] sig = Schnorr.sign(MSG, SK);
        assertTrue(Schnorr.verify(sig, MSG, PK));
        assertTrue(Schnorr.verifyPortable(sig, MSG, PK));
    }

    @Test
    void newSecretKeyYieldsAKeyThatSignsAndVerifies() {
        byte[] sk = Schnorr.newSecretKey();
        byte[] pk = Schnorr.publicKey(sk);
        assertEquals(32, pk.length);
        assertTrue(Schnorr.verify(Schnorr.sign(MSG, sk), MSG, pk));
    }
}
