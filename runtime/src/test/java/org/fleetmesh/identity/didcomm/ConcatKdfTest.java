package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The Concat KDF against RFC 7518 Appendix C, and the 1PU tag rule. */
class ConcatKdfTest {
    /** RFC 7518 Appendix C: Z of the P-256 example, A128GCM, apu "Alice", apv "Bob". */
    private static final byte[] Z = bytes(158, 86, 217, 29, 129, 113, 53, 211, 114, 131, 66, 131, 191, 132, 38, 156,
            251, 49, 110, 163, 218, 128, 106, 72, 246, 218, 167, 121, 140, 254, 144, 196);

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    @Test
    void derivesTheKeyOfRfc7518AppendixC() {
        byte[] key = ConcatKdf.derive(Z, 128, "A128GCM", "Alice".getBytes(StandardCharsets.US_ASCII),
                "Bob".getBytes(StandardCharsets.US_ASCII), null);
        assertEquals("VqqN6vgjbSBcIijNcacQGg", Base64Url.encode(key));
    }

    @Test
    void theContentTagChangesTheOnePuKey() {
        byte[] without = ConcatKdf.derive(Z, 256, "ECDH-1PU+A256KW", new byte[0], new byte[0], null);
        byte[] with = ConcatKdf.derive(Z, 256, "ECDH-1PU+A256KW", new byte[0], new byte[0], new byte[32]);
        assertEquals(32, with.length);
        assertNotEquals(Base64Url.encode(without), Base64Url.encode(with));
    }

    @Test
    void longerKeysTakeMoreRounds() {
        byte[] k512 = ConcatKdf.derive(Z, 512, "X", new byte[0], new byte[0], null);
        assertEquals(64, k512.length);
    }
}
