package org.fleetmesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A block a test generates into a page of docs/spec (from its {@code begin} marker to its {@code end} marker, both
 * included): checked against the page, or written into it when the system property {@code writeProperty} is true.
 */
public final class SpecPage {
    private SpecPage() {
    }

    public static void assertPrints(String page, String begin, String end, String block, String writeProperty)
            throws IOException {
        Path spec = Path.of("..", "docs", "spec", page);
        assertTrue(Files.exists(spec), "the spec page " + spec.toAbsolutePath() + " is missing");
        String text = Files.readString(spec, StandardCharsets.UTF_8);
        int b = text.indexOf(begin);
        int e = text.indexOf(end);
        assertTrue(b >= 0 && e > b, "docs/spec/" + page + " has no " + begin + " ... " + end + " markers");
        if (Boolean.getBoolean(writeProperty)) {
            text = text.substring(0, b) + block + text.substring(e + end.length());
            Files.writeString(spec, text, StandardCharsets.UTF_8);
            e = text.indexOf(end);
        }
        assertEquals(block, text.substring(b, e + end.length()),
                "docs/spec/" + page + " does not print what the code computes (rerun with -D" + writeProperty + "=true)");
    }
}
