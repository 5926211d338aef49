package org.fleetmesh.settlement.lightning.l402;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;

import org.fleetmesh.nostr.Filter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class L402FiltersTest {
    static final String A = "aa".repeat(32), B = "bb".repeat(32);

    @Test
    void canonicalFormIsSortedAndLeavesOutTheLimit() {
        Filter f = L402Filters.parse("{\"until\":20,\"#t\":[\"z\",\"a\",\"a\"],\"kinds\":[7,1],\"authors\":[\"" + B + "\",\"" + A
                + "\"],\"limit\":3,\"#E\":[\"x\"],\"since\":10,\"ids\":[\"" + A + "\"]}");
        assertEquals(Integer.valueOf(3), f.limit());
        assertEquals(Set.of(1, 7), f.kinds());
        assertEquals("{\"ids\":[\"" + A + "\"],\"authors\":[\"" + A + "\",\"" + B
                + "\"],\"kinds\":[1,7],\"#E\":[\"x\"],\"#t\":[\"a\",\"z\"],\"since\":10,\"until\":20}", L402Filters.canonical(f));
    }

    @Test
    void sameSelectionSameHash() {
        String h1 = L402Filters.hash(L402Filters.parse("{\"kinds\":[1,7],\"authors\":[\"" + A + "\"]}"));
        String h2 = L402Filters.hash(L402Filters.parse(" { \"authors\" : [\"" + A + "\"], \"kinds\":[7,1,7], \"limit\": 9 } "));
        assertEquals(h1, h2);
        assertEquals(64, h1.length());
        assertNotEquals(h1, L402Filters.hash(L402Filters.parse("{\"kinds\":[1],\"authors\":[\"" + A + "\"]}")));
        // absent matches anything, empty matches nothing: different selections
        assertNotEquals(L402Filters.hash(L402Filters.parse("{}")), L402Filters.hash(L402Filters.parse("{\"kinds\":[]}")));
        assertEquals("{}", L402Filters.canonical(L402Filters.parse("{\"limit\":5}")));
    }

    @ParameterizedTest
    @ValueSource(strings = { "", " ", "not json", "[]", "{\"kinds\":[1]", "{\"kinds\":[1]}x", "{\"kinds\":1}",
            "{\"kinds\":[70000]}", "{\"kinds\":[-1]}", "{\"kinds\":[1.5]}", "{\"kinds\":[\"1\"]}", "{\"since\":-1}",
            "{\"until\":\"now\"}", "{\"limit\":99999999999999999999999}", "{\"ids\":[\"ABCD\"]}",
            "{\"authors\":[\"AA" + "aa" + "\"]}", "{\"search\":\"x\"}", "{\"kinds\":[1],\"kinds\":[2]}", "{\"#tt\":[\"x\"]}",
            "{\"#1\":[\"x\"]}", "{\"#t\":[1]}", "{\"foo\":1}", "null", "{\"kinds\":[[1]]}" })
    void malformedFiltersAreBadRequests(String json) {
        assertEquals(L402Refusal.Code.BAD_FILTER, assertThrows(L402Refusal.class, () -> L402Filters.parse(json)).code());
    }

    @Test
    void nullAndOversizedAreBadRequests() {
        assertEquals(L402Refusal.Code.BAD_FILTER, assertThrows(L402Refusal.class, () -> L402Filters.parse(null)).code());
        String huge = "{\"#t\":[\"" + "x".repeat(L402Filters.MAX_LENGTH) + "\"]}";
        assertEquals(L402Refusal.Code.BAD_FILTER, assertThrows(L402Refusal.class, () -> L402Filters.parse(huge)).code());
        StringBuilder many = new StringBuilder("{\"kinds\":[");
        for (int i = 0; i <= L402Filters.MAX_VALUES; i++) {
            many.append(i == 0 ? "" : ",").append(i);
        }
        String tooMany = many.append("]}").toString();
        assertEquals(L402Refusal.Code.BAD_FILTER, assertThrows(L402Refusal.class, () -> L402Filters.parse(tooMany)).code());
    }

    @Test
    void refusalsCarryTheRelayReaderReason() {
        assertEquals("bad filter: NIP-50 search is not supported",
                assertThrows(L402Refusal.class, () -> L402Filters.parse("{\"search\":\"x\"}")).getMessage());
        assertEquals("bad filter: kinds must be integers between 0 and 65535",
                assertThrows(L402Refusal.class, () -> L402Filters.parse("{\"kinds\":[70000]}")).getMessage());
        assertEquals("bad filter: a filter must be a JSON object",
                assertThrows(L402Refusal.class, () -> L402Filters.parse("[]")).getMessage());
    }

    @Test
    void limitIsNotClampedForExports() {
        assertEquals(Integer.valueOf(100_000), L402Filters.parse("{\"limit\":100000}").limit());
    }
}
