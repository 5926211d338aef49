package org.fleetmesh.delivery.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;

import org.junit.jupiter.api.Test;

/** The C2SP checkpoint body of a custody tree. */
class CheckpointTest {
    private static final String ROOT64 = Base64.getEncoder().encodeToString(Merkle.EMPTY_ROOT);

    @Test
    void bodyIsOriginSizeAndBase64RootOnThreeLines() {
        Checkpoint c = new Checkpoint(Checkpoint.origin(TestReceiver.RECEIVER, TestReceiver.SENDER), 0, Merkle.EMPTY_ROOT);
        assertEquals("fleetmesh.custody/" + TestReceiver.RECEIVER.hex() + "/" + TestReceiver.SENDER.hex() + "\n0\n"
                + "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n", c.body());
        assertEquals(c, Checkpoint.parse(c.body()));
        assertTrue(c.isCustodyOf(TestReceiver.RECEIVER, TestReceiver.SENDER));
    }

    @Test
    void sizeRoundTripsUpToTheLargestLong() {
        Checkpoint c = new Checkpoint("o", Long.MAX_VALUE, Merkle.EMPTY_ROOT);
        assertEquals(c, Checkpoint.parse(c.body()));
    }

    @Test
    void malformedBodiesAreRefusedWithAReason() {
        String[] bad = { "o\n1\n" + ROOT64, // no final newline
                "o\n1\n", "o\n1\n" + ROOT64 + "\nextension\n", // not three lines
                "\n1\n" + ROOT64 + "\n", // empty origin
                "o\n01\n" + ROOT64 + "\n", "o\n-1\n" + ROOT64 + "\n", "o\n+1\n" + ROOT64 + "\n", "o\n1.0\n" + ROOT64 + "\n",
                "o\n\n" + ROOT64 + "\n", "o\n99999999999999999999\n" + ROOT64 + "\n", // sizes
                "o\n1\n" + ROOT64.replace("=", "") + "\n", // unpadded
                "o\n1\n" + Base64.getEncoder().encodeToString(new byte[31]) + "\n", // 31 bytes
                "o\n1\n" + Base64.getUrlEncoder().encodeToString(new byte[] { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 }) + "\n", // url alphabet
                "o\r\n1\n" + ROOT64 + "\n" + "x", null };
        for (String b : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Checkpoint.parse(b),
                    String.valueOf(b));
            assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
        }
    }

    @Test
    void constructorKeepsTheShapeOfACheckpoint() {
        assertThrows(IllegalArgumentException.class, () -> new Checkpoint("a\nb", 1, Merkle.EMPTY_ROOT));
        assertThrows(IllegalArgumentException.class, () -> new Checkpoint("a", -1, Merkle.EMPTY_ROOT));
        assertThrows(IllegalArgumentException.class, () -> new Checkpoint("a", 1, new byte[31]));
    }
}
