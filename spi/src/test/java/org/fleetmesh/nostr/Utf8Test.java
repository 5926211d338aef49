package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class Utf8Test {

    @Test
    void theLengthIsWhatTheEncoderWrites() {
        for (String s : new String[] { "", "abc", "é", "€", "\uD83D\uDE00", "a\uD83D\uDE00é€x",
                "[\"MESH-ERR\",\"é€\uD83D\uDE00\"]" }) {
            assertEquals(s.getBytes(StandardCharsets.UTF_8).length, Utf8.length(s), s);
        }
    }

    @Test
    void aLoneSurrogateCountsThreeBytesNeverLessThanAnEncoderWrites() {
        for (String s : new String[] { "\uD800", "\uDC00", "a\uD800b" }) {
            assertEquals(s.length() + 2, Utf8.length(s), s);
            assertTrue(Utf8.length(s) >= s.getBytes(StandardCharsets.UTF_8).length, s);
        }
    }

    @Test
    void exceedsComparesTheEncodedLengthWithTheBoundAtEveryEdge() {
        for (String s : new String[] { "", "abc", "é€\uD83D\uDE00", "a".repeat(100) + "€".repeat(50),
                "\uD83D\uDE00".repeat(40), "\uD800x" }) {
            long bytes = Utf8.length(s); // the encoder's length but for the lone surrogate (3, checked above)
            for (int max = 0; max <= bytes + 4; max++) {
                assertEquals(bytes > max, Utf8.exceeds(s, max), s + " against " + max);
            }
        }
    }
}
