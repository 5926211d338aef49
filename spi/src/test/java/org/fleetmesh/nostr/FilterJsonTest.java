package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/** The strict NIP-01 filter reader: what it accepts, and the reason it gives for each refusal. */
class FilterJsonTest {
    private static final String A = "aa".repeat(32), B = "bb".repeat(32);
    private static final FilterJson.Limits LIMITS = FilterJson.Limits.DEFAULT;

    private static Filter parse(String json) throws FilterSyntaxException {
        return FilterJson.parse(json, LIMITS);
    }

    private static FilterSyntaxException refused(String json, FilterJson.Limits limits) {
        return assertThrows(FilterSyntaxException.class, () -> FilterJson.parse(json, limits));
    }

    private static void invalid(String json, String reason) {
        FilterSyntaxException e = refused(json, LIMITS);
        assertEquals(reason, e.reason());
        assertEquals(reason, e.getMessage());
        assertEquals(FilterSyntaxException.Kind.INVALID, e.kind());
    }

    @Test
    void readsEveryField() throws FilterSyntaxException {
        Filter f = parse("{\"ids\":[\"" + A + "\"],\"authors\":[\"" + A + "\",\"" + B + "\"],\"kinds\":[0,1,65535],"
                + "\"#e\":[\"x\",\"y\"],\"#T\":[],\"since\":0,\"until\":9223372036854775807,\"limit\":10}");
        assertEquals(Set.of(EventId.ofHex(A)), f.ids());
        assertEquals(Set.of(PubKey.ofHex(A), PubKey.ofHex(B)), f.authors());
        assertEquals(Set.of(0, 1, 65535), f.kinds());
        assertEquals(Map.of("e", Set.of("x", "y"), "T", Set.of()), f.tags());
        assertEquals(0L, f.since());
        assertEquals(Long.MAX_VALUE, f.until());
        assertEquals(10, f.limit());
    }

    @Test
    void emptyObjectIsTheMatchAllFilter() throws FilterSyntaxException {
        assertEquals(Filter.ALL, parse("{}"));
        assertEquals(Filter.ALL, parse(" { } "));
    }

    @Test
    void absentFieldsStayNullAndEmptyListsStayEmpty() throws FilterSyntaxException {
        Filter f = parse("{\"ids\":[],\"kinds\":[]}");
        assertEquals(Set.of(), f.ids());
        assertEquals(Set.of(), f.kinds());
        assertNull(f.authors());
        assertNull(f.since());
        assertNull(f.limit());
        assertTrue(f.matchesNothingStored());
    }

    @Test
    void limitAboveMaxLimitIsClampedNotRefused() throws FilterSyntaxException {
        assertEquals(5000, parse("{\"limit\":9223372036854775807}").limit());
        assertEquals(100, FilterJson.parse("{\"limit\":1000}", new FilterJson.Limits(1000, 100)).limit());
        assertEquals(Integer.MAX_VALUE,
                FilterJson.parse("{\"limit\":9223372036854775807}", new FilterJson.Limits(1000, Integer.MAX_VALUE)).limit());
        assertEquals(0, parse("{\"limit\":0}").limit());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"kinds\":1}|kinds must be an array of integers",
            "{\"kinds\":[\"1\"]}|kinds must be integers between 0 and 65535",
            "{\"kinds\":[1.5]}|kinds must be integers between 0 and 65535",
            "{\"kinds\":[1.0]}|kinds must be integers between 0 and 65535",
            "{\"kinds\":[-1]}|kinds must be integers between 0 and 65535",
            "{\"kinds\":[65536]}|kinds must be integers between 0 and 65535",
            "{\"kinds\":[4294967296]}|kinds must be integers between 0 and 65535",
            "{\"kinds\":[null]}|kinds must be integers between 0 and 65535",
            "{\"kinds\":[[1]]}|kinds must be integers between 0 and 65535",
            "{\"ids\":1}|ids must be an array of strings",
            "{\"ids\":[1]}|ids must be an array of strings",
            "{\"authors\":{}}|authors must be an array of strings",
            "{\"#e\":\"x\"}|#e must be an array of strings",
            "{\"#e\":[1]}|#e must be an array of strings",
            "{\"#e\":[null]}|#e must be an array of strings",
            "{\"since\":-1}|since must be a non-negative integer",
            "{\"since\":1.5}|since must be a non-negative integer",
            "{\"since\":\"10\"}|since must be a non-negative integer",
            "{\"since\":null}|since must be a non-negative integer",
            "{\"until\":-1}|until must be a non-negative integer",
            "{\"until\":99999999999999999999}|until must be a non-negative integer",
            "{\"limit\":-1}|limit must be a non-negative integer",
            "{\"limit\":true}|limit must be a non-negative integer",
            "{\"foo\":1}|unknown filter field \"foo\"",
            "{\"#ab\":[\"x\"]}|unknown filter field \"#ab\"",
            "{\"#1\":[\"x\"]}|unknown filter field \"#1\"",
            "{\"#\":[\"x\"]}|unknown filter field \"#\"",
            "{\"e\":[\"x\"]}|unknown filter field \"e\"",
            "{\"IDS\":[]}|unknown filter field \"IDS\"",
            "{\"kinds\":[1],\"kinds\":[2]}|duplicate filter field \"kinds\"",
            "{\"#t\":[],\"#t\":[]}|duplicate filter field \"#t\"",
    })
    void malformedFieldsAreRefusedWithTheRule(String json, String reason) {
        invalid(json, reason);
    }

    @ParameterizedTest
    @ValueSource(strings = { "upper", "short", "long", "prefix", "nonhex" })
    void idsAndAuthorsMustBe64LowerCaseHex(String kind) {
        String v = switch (kind) {
            case "upper" -> A.toUpperCase();
            case "short" -> A.substring(1);
            case "long" -> A + "0";
            case "prefix" -> A.substring(0, 8);
            default -> "g".repeat(64);
        };
        invalid("{\"ids\":[\"" + B + "\",\"" + v + "\"]}", "ids must hold 64 lower-case hex characters");
        invalid("{\"authors\":[\"" + v + "\"]}", "authors must hold 64 lower-case hex characters");
    }

    @Test
    void nonAsciiTagLetterIsAnUnknownField() {
        String name = "#" + (char) 0xe9;
        invalid("{\"" + name + "\":[\"x\"]}", "unknown filter field " + NostrJson.quote(name));
    }

    @Test
    void longFieldNamesAreClippedInTheReason() {
        String name = "x".repeat(100);
        invalid("{\"" + name + "\":1}", "unknown filter field \"" + "x".repeat(80) + "...\"");
    }

    @Test
    void searchIsUnsupportedRatherThanUnknown() {
        FilterSyntaxException e = refused("{\"search\":\"nostr\"}", LIMITS);
        assertEquals(FilterSyntaxException.Kind.UNSUPPORTED, e.kind());
        assertEquals("NIP-50 search is not supported", e.reason());
    }

    @Test
    void tooManyValuesAreRefused() {
        FilterJson.Limits two = new FilterJson.Limits(2, 5000);
        assertEquals("too many values in #t (at most 2)", refused("{\"#t\":[\"a\",\"b\",\"c\"]}", two).reason());
        assertEquals("too many values in ids (at most 2)", refused("{\"ids\":[\"" + A + "\",\"" + A + "\",\"" + A + "\"]}", two).reason());
        assertEquals("too many kinds", refused("{\"kinds\":[1,2,3]}", two).reason());
    }

    @Test
    void valuesUpToTheLimitAreAccepted() throws FilterSyntaxException {
        FilterJson.Limits two = new FilterJson.Limits(2, 5000);
        assertEquals(Set.of("a", "b"), FilterJson.parse("{\"#t\":[\"a\",\"b\"]}", two).tags().get("t"));
        assertEquals(Set.of(1, 2), FilterJson.parse("{\"kinds\":[1,2]}", two).kinds());
        // a repeated kind is stored once, but any value after the set is full is refused
        assertEquals(Set.of(1), FilterJson.parse("{\"kinds\":[1,1]}", two).kinds());
        assertEquals("too many kinds", refused("{\"kinds\":[1,2,2]}", two).reason());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "[]|a filter must be a JSON object",
            "null|a filter must be a JSON object",
            "1|a filter must be a JSON object",
            "{}x|malformed JSON",
            "{} {}|trailing data after the filter",
            "{\"kinds\":[1]|malformed JSON",
            "not json|malformed JSON",
            "{\"kinds\":[1,]}|malformed JSON",
    })
    void textThatIsNotOneObjectIsNotAFilter(String json, String reasonStart) {
        FilterSyntaxException e = refused(json, LIMITS);
        assertEquals(FilterSyntaxException.Kind.NOT_A_FILTER, e.kind());
        assertTrue(e.reason().startsWith(reasonStart), e.reason());
    }

    @Test
    void emptyTextIsNotAFilter() {
        assertEquals(FilterSyntaxException.Kind.NOT_A_FILTER, refused("", LIMITS).kind());
        assertEquals(FilterSyntaxException.Kind.NOT_A_FILTER, refused("   ", LIMITS).kind());
    }

    @Test
    void readStopsAtTheEndOfTheObjectInsideALargerDocument() throws IOException, FilterSyntaxException {
        try (JsonParser p = new JsonFactory().createParser("[{\"kinds\":[1]},{\"since\":5}]")) {
            assertEquals(JsonToken.START_ARRAY, p.nextToken());
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            assertEquals(Set.of(1), FilterJson.read(p, LIMITS).kinds());
            assertEquals(JsonToken.END_OBJECT, p.currentToken());
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            assertEquals(5L, FilterJson.read(p, LIMITS).since());
            assertEquals(JsonToken.END_ARRAY, p.nextToken());
        }
    }

    @Test
    void readLeavesMalformedJsonToTheCaller() throws IOException {
        try (JsonParser p = new JsonFactory().createParser("[{\"kinds\":[1}]")) {
            p.nextToken();
            p.nextToken();
            assertThrows(IOException.class, () -> FilterJson.read(p, LIMITS));
        }
    }
}
