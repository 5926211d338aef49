package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * NIP-01 canonical serialization: only \n, \", \\, \r, \t, \b and \f are escaped, every other
 * character is written verbatim. The wire form must stay parseable JSON.
 */
class NostrJsonTest {
    private static final String PREFIX = "[0,\"" + TestEvents.ALICE.hex() + "\",1700000000,1,[],";

    private static String canonicalOfContent(String content) {
        return NostrJson.canonical(TestEvents.ALICE, 1700000000L, 1, List.of(), content);
    }

    /** The JSON string literal the canonical form uses for {@code content}. */
    private static String canonicalContentLiteral(String content) {
        String c = canonicalOfContent(content);
        assertTrue(c.startsWith(PREFIX) && c.endsWith("]"), c);
        return c.substring(PREFIX.length(), c.length() - 1);
    }

    /** C0 control characters NIP-01 does not list: they must stay verbatim in the canonical form. */
    static IntStream unlistedControlCharacters() {
        return IntStream.range(0, 0x20).filter(c -> "\n\r\t\b\f".indexOf(c) < 0);
    }

    @Test
    void canonicalFormIsCompactArrayInNip01Order() {
        String c = NostrJson.canonical(TestEvents.ALICE, 1673347337L, 1,
                List.of(List.of("e", "abc", "wss://relay.example.com"), List.of("p", "def")), "hello");
        assertEquals("[0,\"" + TestEvents.ALICE.hex() + "\",1673347337,1,"
                + "[[\"e\",\"abc\",\"wss://relay.example.com\"],[\"p\",\"def\"]],\"hello\"]", c);
    }

    @Test
    void canonicalFormWritesEmptyTagsAndEmptyContent() {
        assertEquals("[0,\"" + TestEvents.ALICE.hex() + "\",0,0,[],\"\"]",
                NostrJson.canonical(TestEvents.ALICE, 0L, 0, List.of(), ""));
    }

    @Test
    void canonicalEscapesLineFeed() {
        assertEquals("\"a\\nb\"", canonicalContentLiteral("a\nb"));
    }

    @Test
    void canonicalEscapesDoubleQuote() {
        assertEquals("\"a\\\"b\"", canonicalContentLiteral("a\"b"));
    }

    @Test
    void canonicalEscapesBackslash() {
        assertEquals("\"a\\\\b\"", canonicalContentLiteral("a\\b"));
    }

    @Test
    void canonicalEscapesCarriageReturn() {
        assertEquals("\"a\\rb\"", canonicalContentLiteral("a\rb"));
    }

    @Test
    void canonicalEscapesTab() {
        assertEquals("\"a\\tb\"", canonicalContentLiteral("a\tb"));
    }

    @Test
    void canonicalEscapesBackspace() {
        assertEquals("\"a\\bb\"", canonicalContentLiteral("a\bb"));
    }

    @Test
    void canonicalEscapesFormFeed() {
        assertEquals("\"a\\fb\"", canonicalContentLiteral("a\fb"));
    }

    @Test
    void canonicalEscapesEveryListedCharacterInOneString() {
        assertEquals("\"\\n\\\"\\\\\\r\\t\\b\\f\"", canonicalContentLiteral("\n\"\\\r\t\b\f"));
    }

    @ParameterizedTest(name = "U+{0}")
    @MethodSource("unlistedControlCharacters")
    void canonicalWritesUnlistedControlCharacterVerbatim(int c) {
        String content = "x" + (char) c + "y";
        assertEquals("\"" + content + "\"", canonicalContentLiteral(content));
    }

    @Test
    void canonicalWritesU0001Verbatim() {
        assertEquals("\"\u0001\"", canonicalContentLiteral("\u0001"));
    }

    @Test
    void canonicalWritesDeleteVerbatim() {
        assertEquals("\"\u007f\"", canonicalContentLiteral("\u007f"));
    }

    @Test
    void canonicalWritesSlashVerbatim() {
        assertEquals("\"https://example.com/a/b\"", canonicalContentLiteral("https://example.com/a/b"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "é", "naïve café", "日本語", "Привет", "\u00a0" })
    void canonicalWritesNonAsciiVerbatim(String s) {
        assertEquals("\"" + s + "\"", canonicalContentLiteral(s));
    }

    @Test
    void canonicalWritesEmojiVerbatimAsFourUtf8Bytes() {
        String grin = "\uD83D\uDE00"; // U+1F600
        assertEquals("\"" + grin + "\"", canonicalContentLiteral(grin));
        byte[] utf8 = canonicalOfContent(grin).getBytes(StandardCharsets.UTF_8);
        // ...,"<F0 9F 98 80>"]
        assertArrayEquals(new byte[] { '"', (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80, '"', ']' },
                java.util.Arrays.copyOfRange(utf8, utf8.length - 7, utf8.length));
    }

    @Test
    void canonicalWritesLineAndParagraphSeparatorsVerbatim() {
        assertEquals("\"a\u2028b\u2029c\"", canonicalContentLiteral("a\u2028b\u2029c"));
    }

    @Test
    void canonicalEscapesTagValuesTheSameWay() {
        String c = NostrJson.canonical(TestEvents.ALICE, 1L, 1, List.of(List.of("t", "a\"\n\u0001/é")), "");
        assertTrue(c.contains(",[[\"t\",\"a\\\"\\n\u0001/é\"]],"), c);
    }

    // --- wire form -------------------------------------------------------------------------

    @ParameterizedTest(name = "U+{0}")
    @MethodSource("unlistedControlCharacters")
    void wireFormEscapesUnlistedControlCharacterAsUnicodeEscape(int c) {
        Event e = TestEvents.withContent("x" + (char) c + "y");
        String json = NostrJson.eventJson(e);
        String expected = String.format("\\u%04x", c);
        assertTrue(json.toLowerCase(Locale.ROOT).contains("\"x" + expected + "y\""), json);
        assertEquals("x" + (char) c + "y", ((Map<?, ?>) StrictJson.parse(json)).get("content"));
    }

    @Test
    void wireFormEscapesU0001AndStaysValidJson() {
        String json = NostrJson.eventJson(TestEvents.withContent("\u0001"));
        assertTrue(json.contains("\"content\":\"\\u0001\""), json);
        assertEquals("\u0001", ((Map<?, ?>) StrictJson.parse(json)).get("content"));
    }

    @Test
    void wireFormHasNoRawControlCharacters() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            all.append(c);
        }
        String json = NostrJson.eventJson(TestEvents.event(TestEvents.id(1), TestEvents.ALICE, 1, 1,
                List.of(List.of("t", all.toString())), all.toString()));
        for (int i = 0; i < json.length(); i++) {
            assertFalse(json.charAt(i) < 0x20, "raw control character at " + i + " in " + json);
        }
    }

    @Test
    void wireFormUsesTheSameShortEscapesAsCanonical() {
        String json = NostrJson.eventJson(TestEvents.withContent("\n\"\\\r\t\b\f"));
        assertTrue(json.contains("\"content\":\"\\n\\\"\\\\\\r\\t\\b\\f\""), json);
    }

    @Test
    void wireFormRoundTripsEveryFieldThroughAStrictParser() {
        String content = "line1\nq\"b\\s/\u0001\u001f\u007f é 日本 \uD83D\uDE00 \u2028";
        List<List<String>> tags = List.of(List.of("e", TestEvents.id(0x22).hex(), "wss://r.example"),
                List.of("t", "tab\there\u0002"), List.of("-"));
        Event e = TestEvents.event(TestEvents.id(0x33), TestEvents.BOB, 1700000123L, 30023, tags, content);

        Map<?, ?> m = (Map<?, ?>) StrictJson.parse(NostrJson.eventJson(e));

        assertEquals(List.of("id", "pubkey", "created_at", "kind", "tags", "content", "sig"), List.copyOf(m.keySet()));
        assertEquals(e.id().hex(), m.get("id"));
        assertEquals(e.pubkey().hex(), m.get("pubkey"));
        assertEquals(1700000123L, m.get("created_at"));
        assertEquals(30023L, m.get("kind"));
        assertEquals(tags, m.get("tags"));
        assertEquals(content, m.get("content"));
        assertEquals(e.sig().hex(), m.get("sig"));
    }

    @Test
    void eventJsonIsComputedOnceAndIsTheWireForm() {
        Event e = TestEvents.withContent("hi");
        assertEquals(NostrJson.eventJson(e), e.json());
        assertTrue(e.json() == e.json(), "json() should be cached");
        assertEquals(e.json(), e.toString());
    }

    @Test
    void quoteProducesAParseableJsonStringForAnyText() {
        String text = "reason: \"x\"\n\u0000\u0001\\ é";
        String quoted = NostrJson.quote(text);
        assertEquals(text, StrictJson.parse(quoted));
    }
}
