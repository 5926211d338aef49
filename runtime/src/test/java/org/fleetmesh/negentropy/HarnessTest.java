package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The reference harness lines, as the reference's test/protoversion.pl drives them. */
class HarnessTest {
    private static final String ITEM = "item,12345," + "ee".repeat(32);

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final Harness harness = new Harness(0, new PrintStream(bytes, true, StandardCharsets.US_ASCII));

    private String run(String... lines) {
        for (String line : lines) {
            harness.accept(line);
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    @Test
    void answersAFullRangeQueryWithItsIds() {
        assertEquals("msg,6100000201" + "ee".repeat(32) + "\n", run(ITEM, "seal", "msg,6100000200"));
    }

    @Test
    void answersAnUnknownVersionWithItsOwn() {
        assertEquals("msg,61\n", run(ITEM, "seal", "msg,62aabbccddeeff"));
    }

    @Test
    void initiatorReportsHaveAndDone() {
        assertEquals("msg,6100000201" + "ee".repeat(32) + "\nhave," + "ee".repeat(32) + "\ndone\n",
                run(ITEM, "seal", "initiate", "msg,6100000200"));
    }

    @Test
    void unknownCommandIsAnError() {
        assertThrows(NegentropyException.class, () -> run("frobnicate"));
    }
}
