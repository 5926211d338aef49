package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SnippetTest {
    @Test
    void anAnswerQuotesSomeoneElsesTextOnOneLine() {
        assertEquals("x0 22:00:00.000 ERROR injected \\u0000 end",
                Snippet.of("x0\n22:00:00.000 ERROR\t\tinjected\r\n\u0000\u2028end", 80));
        assertEquals("Unexpected character ('x' (code 120)) at [Source",
                Snippet.of("Unexpected character ('x' (code 120))\n at [Source", 80));
        assertEquals("", Snippet.of(null, 80));
        assertEquals("short", Snippet.of("short", 80));
    }

    @Test
    void anAnswerIsClippedWithoutHalfACharacterOrHalfAnEscape() {
        assertEquals("y".repeat(80) + "...", Snippet.of("y".repeat(150_000), 80));
        assertEquals("y".repeat(80), Snippet.of("y".repeat(80), 80));
        assertEquals("y".repeat(79) + "...", Snippet.of("y".repeat(79) + "\uD83D\uDE00", 80));
        assertEquals("y".repeat(78) + "\uD83D\uDE00", Snippet.of("y".repeat(78) + "\uD83D\uDE00", 80));
        assertEquals("y".repeat(78) + "...", Snippet.of("y".repeat(78) + "\u0001", 80));
        assertEquals("y".repeat(74) + "\\u0001", Snippet.of("y".repeat(74) + "\u0001", 80));
    }

    @Test
    void aLogLineShowsEveryCharacterButCannotBeSplit() {
        assertEquals("x0\\n22:00:00.000 ERROR [fake] injected\\r\\u0000\\u2028end",
                Snippet.forLog("x0\n22:00:00.000 ERROR [fake] injected\r\u0000\u2028end"));
        String s = "y".repeat(150_000);
        assertEquals("y".repeat(Snippet.LOG) + "... (" + (150_000 - Snippet.LOG) + " more characters)", Snippet.forLog(s));
        assertEquals("short", Snippet.forLog("short"));
        assertEquals("", Snippet.forLog(null));
    }
}
