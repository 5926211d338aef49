package org.fleetmesh.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

class Utf8StreamTest {
    private static boolean valid(byte[] b, int cut) {
        Utf8Stream s = new Utf8Stream();
        for (int i = 0; i < b.length; i++) {
            if (!s.feed(b[i])) {
                return false;
            }
            if (i == cut && !s.valid(false)) {
                return false;
            }
        }
        return s.valid(true);
    }

    /** The JDK's strict decoder, the reference. */
    private static boolean reference(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    @Test
    void theEdgesOfRfc3629() {
        assertEquals(true, valid("héllo wörld €𝄞".getBytes(StandardCharsets.UTF_8), 3));
        assertEquals(true, valid(bytes(0xF4, 0x8F, 0xBF, 0xBF), 1), "U+10FFFF, cut in the middle");
        assertEquals(false, valid(bytes(0xF4, 0x90, 0x80, 0x80), -1), "above U+10FFFF");
        assertEquals(false, valid(bytes(0xED, 0xA0, 0x80), -1), "a surrogate");
        assertEquals(false, valid(bytes(0xC0, 0xAF), -1), "overlong /");
        assertEquals(false, valid(bytes(0xE0, 0x80, 0xAF), -1), "overlong");
        assertEquals(false, valid(bytes(0xF0, 0x80, 0x80, 0xAF), -1), "overlong");
        assertEquals(false, valid(bytes(0xCE, 0xBA, 0xE1), -1), "a message ending inside a sequence");
        assertEquals(false, valid(bytes(0x80), -1), "a lone continuation byte");
        assertEquals(false, valid(bytes(0xFF), -1));
        assertEquals(true, valid(new byte[0], -1));
    }

    @Test
    void agreesWithTheJdksStrictDecoderOnRandomBytes() {
        Random r = new Random(7);
        for (int n = 0; n < 200_000; n++) {
            byte[] b = new byte[1 + r.nextInt(8)];
            r.nextBytes(b);
            if (r.nextBoolean()) { // bias towards almost valid sequences
                b[0] = (byte) (0xC0 + r.nextInt(0x38));
                for (int i = 1; i < b.length; i++) {
                    b[i] = (byte) (r.nextInt(10) == 0 ? r.nextInt(256) : 0x80 + r.nextInt(0x40));
                }
            }
            assertEquals(reference(b), valid(b, r.nextInt(b.length)), () -> java.util.HexFormat.of().formatHex(b));
        }
    }
}
