package org.fleetmesh.peering;

import static org.fleetmesh.peering.Nodes.seq;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

class TranscriptTest {
    private static final Challenge IC = Challenge.of(seq(0x20));
    private static final Challenge RC = Challenge.of(seq(0x00));

    @Test
    void fieldsAreLengthPrefixedInSpecOrder() {
        byte[] t = Transcript.of(Role.INITIATOR, "did:key:i", "did:key:r", IC, RC, 0x0102030405L).bytes();
        HexFormat hex = HexFormat.of();
        String expected = "00000016" + hex.formatHex("fleetmesh/mesh-auth/v1".getBytes(StandardCharsets.US_ASCII))
                + "00000009" + hex.formatHex("initiator".getBytes(StandardCharsets.US_ASCII))
                + "00000020" + hex.formatHex(Transcript.sha256("did:key:i".getBytes(StandardCharsets.UTF_8)))
                + "00000020" + hex.formatHex(Transcript.sha256("did:key:r".getBytes(StandardCharsets.UTF_8)))
                + "00000020" + IC.hex() + "00000020" + RC.hex() + "00000008" + "0000000102030405";
        assertEquals(expected, hex.formatHex(t));
        assertEquals(195, t.length);
    }

    @Test
    void everyFieldChangesTheBytes() {
        byte[] base = Transcript.of(Role.INITIATOR, "did:key:i", "did:key:r", IC, RC, 7).bytes();
        for (byte[] other : new byte[][] {
                Transcript.of(Role.RESPONDER, "did:key:i", "did:key:r", IC, RC, 7).bytes(),
                Transcript.of(Role.INITIATOR, "did:key:r", "did:key:i", IC, RC, 7).bytes(),
                Transcript.of(Role.INITIATOR, "did:key:i", "did:key:x", IC, RC, 7).bytes(),
                Transcript.of(Role.INITIATOR, "did:key:i", "did:key:r", RC, IC, 7).bytes(),
                Transcript.of(Role.INITIATOR, "did:key:i", "did:key:r", IC, RC, 8).bytes() }) {
            assertFalse(Arrays.equals(base, other));
        }
    }

    @Test
    void theNostrMessageIsTheSha256OfTheBytes() {
        Transcript t = Transcript.of(Role.RESPONDER, "did:key:i", "did:key:r", IC, RC, 7);
        assertArrayEquals(Transcript.sha256(t.bytes()), t.hash());
    }
}
