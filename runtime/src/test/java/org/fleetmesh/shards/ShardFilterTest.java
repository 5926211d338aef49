package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.PubKey;
import org.junit.jupiter.api.Test;

class ShardFilterTest {
    static final String A = "aa".repeat(32), B = "0b".repeat(32), C = "ff".repeat(32);

    static String canonical(String json) throws FilterSyntaxException {
        return ShardFilter.canonicalJson(ShardFilter.parse(json));
    }

    @Test
    void keysComeInTheFixedOrderWithValuesSortedAndWithoutSpaces() throws Exception {
        String messy = "{ \"until\": 200, \"#t\": [\"b\", \"a\"], \"kinds\": [7, 1, 30023], \"since\": 100,"
                + " \"#e\": [\"" + C + "\"], \"authors\": [\"" + A + "\", \"" + B + "\"], \"ids\": [\"" + C + "\"],"
                + " \"#E\": [\"x\"] }";
        assertEquals("{\"ids\":[\"" + C + "\"],\"authors\":[\"" + B + "\",\"" + A + "\"],\"kinds\":[1,7,30023],"
                + "\"#E\":[\"x\"],\"#e\":[\"" + C + "\"],\"#t\":[\"a\",\"b\"],\"since\":100,\"until\":200}", canonical(messy));
    }

    /** The examples table of docs/spec/shards.md §2. */
    @Test
    void matchesTheExamplesInTheSpec() throws Exception {
        String spec = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "spec", "shards.md"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\| `(\\{.*\\})` \\| (.*) \\|$").matcher(spec);
        int rows = 0;
        while (m.find()) {
            String input = m.group(1), answer = m.group(2);
            if (answer.startsWith("refused: `")) {
                String reason = answer.substring("refused: `".length(), answer.length() - 1);
                assertEquals(reason, assertThrows(FilterSyntaxException.class, () -> ShardFilter.parse(input)).reason());
            } else {
                assertEquals(answer, "`" + canonical(input) + "`", input);
            }
            rows++;
        }
        assertEquals(6, rows, "the table's rows");
    }

    @Test
    void kindsSortNumericallyNotAsText() throws Exception {
        assertEquals("{\"kinds\":[2,10,100]}", canonical("{\"kinds\":[100,10,2]}"));
    }

    @Test
    void duplicatesCollapse() throws Exception {
        assertEquals("{\"kinds\":[1],\"#t\":[\"x\"]}", canonical("{\"kinds\":[1,1,1],\"#t\":[\"x\",\"x\"]}"));
    }

    @Test
    void theEmptyFilterAndEmptyArraysAreKept() throws Exception {
        assertEquals("{}", canonical("{}"));
        assertEquals("{\"kinds\":[]}", canonical("{\"kinds\":[]}"), "an empty set matches nothing: not the same as absent");
    }

    @Test
    void tagValuesSortByCodePointAndEscapeLikeNostrJson() throws Exception {
        // U+1F600 (a surrogate pair in UTF-16) sorts after U+FFFD by code point, before it by UTF-16 unit
        String json = "{\"#t\":[\"\\ufffd\",\"\\ud83d\\ude00\",\"q\\\"uote\",\"tab\\t\",\"ctl\\u0001\"]}";
        assertEquals("{\"#t\":[\"ctl\\u0001\",\"q\\\"uote\",\"tab\\t\",\"\ufffd\",\"\ud83d\ude00\"]}", canonical(json));
    }

    @Test
    void aLimitIsRefusedWhenReadAndLeftOutWhenWritten() {
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class, () -> ShardFilter.parse("{\"kinds\":[1],\"limit\":5}"));
        assertEquals("a shard filter has no limit", e.reason());
        assertEquals("{\"kinds\":[1]}", ShardFilter.canonicalJson(new Filter(null, null, Set.of(1), Map.of(), null, null, 5)));
    }

    @Test
    void filterJsonRulesApply() {
        assertThrows(FilterSyntaxException.class, () -> ShardFilter.parse("{\"kinds\":[\"1\"]}"));
        assertThrows(FilterSyntaxException.class, () -> ShardFilter.parse("{\"authors\":[\"AB\"]}"));
        assertThrows(FilterSyntaxException.class, () -> ShardFilter.parse("{\"search\":\"x\"}"));
        assertThrows(FilterSyntaxException.class, () -> ShardFilter.parse("[]"));
    }

    @Test
    void isCanonicalAcceptsOnlyTheExactText() {
        assertTrue(ShardFilter.isCanonical("{\"kinds\":[1,7]}"));
        assertFalse(ShardFilter.isCanonical("{\"kinds\":[7,1]}"));
        assertFalse(ShardFilter.isCanonical("{\"kinds\": [1,7]}"));
        assertFalse(ShardFilter.isCanonical("{\"kinds\":[1],\"limit\":1}"));
    }

    /** Any filter, written in any order, reads back to the same canonical text, and that text is a fixed point. */
    @Test
    void randomFiltersRoundTripInAnyOrder() throws Exception {
        Random r = new Random(13);
        for (int trial = 0; trial < 500; trial++) {
            Filter f = randomFilter(r);
            String canon = ShardFilter.canonicalJson(f);
            assertEquals(canon, canonical(canon), "a fixed point");
            assertEquals(canon, canonical(shuffled(f, r)), "order and duplicates do not matter");
            assertEquals(ShardFilter.parse(canon), f.withLimit(null), "the same filter");
        }
    }

    static Filter randomFilter(Random r) {
        Set<EventId> ids = r.nextInt(3) == 0 ? null : new HashSet<>();
        Set<PubKey> authors = r.nextInt(3) == 0 ? null : new HashSet<>();
        Set<Integer> kinds = r.nextInt(3) == 0 ? null : new HashSet<>();
        for (int i = r.nextInt(4); i > 0; i--) {
            if (ids != null) {
                ids.add(EventId.ofHex(hex(r)));
            }
            if (authors != null) {
                authors.add(PubKey.ofHex(hex(r)));
            }
            if (kinds != null) {
                kinds.add(r.nextInt(40000));
            }
        }
        Map<String, Set<String>> tags = new HashMap<>();
        for (int i = r.nextInt(3); i > 0; i--) {
            Set<String> v = new HashSet<>();
            for (int j = r.nextInt(3) + 1; j > 0; j--) {
                v.add(Integer.toString(r.nextInt(1000), 36));
            }
            tags.put(String.valueOf((char) ((r.nextBoolean() ? 'a' : 'A') + r.nextInt(26))), v);
        }
        Long since = r.nextBoolean() ? (long) r.nextInt(1 << 30) : null;
        Long until = r.nextBoolean() ? (long) r.nextInt(1 << 30) : null;
        return new Filter(ids, authors, kinds, tags, since, until, null);
    }

    static String hex(Random r) {
        byte[] b = new byte[32];
        r.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** The filter as JSON with its keys in random order and each array shuffled with a repeated value. */
    static String shuffled(Filter f, Random r) {
        List<String> members = new ArrayList<>();
        if (f.ids() != null) {
            members.add("\"ids\":" + array(f.ids().stream().map(i -> "\"" + i.hex() + "\"").toList(), r));
        }
        if (f.authors() != null) {
            members.add("\"authors\":" + array(f.authors().stream().map(i -> "\"" + i.hex() + "\"").toList(), r));
        }
        if (f.kinds() != null) {
            members.add("\"kinds\":" + array(f.kinds().stream().map(String::valueOf).toList(), r));
        }
        f.tags().forEach((k, v) -> members.add("\"#" + k + "\":" + array(v.stream().map(s -> "\"" + s + "\"").toList(), r)));
        if (f.since() != null) {
            members.add("\"since\": " + f.since());
        }
        if (f.until() != null) {
            members.add("\"until\" :" + f.until());
        }
        Collections.shuffle(members, r);
        return "{ " + String.join(" , ", members) + " }";
    }

    static String array(List<String> values, Random r) {
        List<String> v = new ArrayList<>(values);
        if (!v.isEmpty()) {
            v.add(v.get(r.nextInt(v.size())));
        }
        Collections.shuffle(v, r);
        return "[" + String.join(",", v) + "]";
    }
}
