package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ShardsSettingTest {

    static String refusal(String json) {
        return assertThrows(IllegalArgumentException.class, () -> ShardsSetting.parse(json)).getMessage();
    }

    @Test
    void readsTheDeclaredShardsInOrder() {
        List<Shard> s = ShardsSetting.parse("[{\"id\":\"uk-events-2026Q3\",\"filter\":{\"kinds\":[1,7]},\"mode\":\"asserted\"},"
                + "{\"id\":\"notes\",\"filter\":\"{\\\"kinds\\\":[1]}\",\"mode\":\"replicated\"}]");
        assertEquals(2, s.size());
        assertEquals("uk-events-2026Q3", s.get(0).id());
        assertEquals(Shard.Mode.ASSERTED, s.get(0).mode());
        assertEquals(Set.of(1, 7), s.get(0).filter().kinds());
        assertEquals("notes", s.get(1).id());
        assertEquals(Shard.Mode.REPLICATED, s.get(1).mode());
        assertEquals("{\"kinds\":[1]}", ShardFilter.canonicalJson(s.get(1).filter()), "a filter may be given as its JSON text");
    }

    @Test
    void blankDeclaresNone() {
        assertEquals(List.of(), ShardsSetting.parse(""));
        assertEquals(List.of(), ShardsSetting.parse("[]"));
    }

    @Test
    void aBadModeIsNamedWithItsShard() {
        assertEquals("shard 2: mode must be \"asserted\" or \"replicated\"", refusal(
                "[{\"id\":\"a\",\"filter\":{},\"mode\":\"asserted\"},{\"id\":\"b\",\"filter\":{},\"mode\":\"complete\"}]"));
        assertEquals("shard 1: mode must be \"asserted\" or \"replicated\"", refusal("[{\"id\":\"a\",\"filter\":{}}]"));
    }

    @Test
    void aDuplicateIdIsRefused() {
        assertEquals("shard 2: duplicate id \"a\"", refusal(
                "[{\"id\":\"a\",\"filter\":{},\"mode\":\"asserted\"},{\"id\":\"a\",\"filter\":{\"kinds\":[1]},\"mode\":\"asserted\"}]"));
    }

    @Test
    void idSyntaxIsOneToSixtyFourSafeCharacters() {
        ShardsSetting.parse("[{\"id\":\"" + "a".repeat(64) + "\",\"filter\":{},\"mode\":\"asserted\"}]");
        ShardsSetting.parse("[{\"id\":\"A.z_0:9-\",\"filter\":{},\"mode\":\"asserted\"}]");
        for (String bad : List.of("", "a".repeat(65), "with space", "slash/", "ümlaut", "quote\\\"")) {
            String msg = refusal("[{\"id\":\"" + bad + "\",\"filter\":{},\"mode\":\"asserted\"}]");
            assertEquals(true, msg.startsWith("shard 1: id must be 1 to 64 characters of [A-Za-z0-9._:-]"), msg);
        }
        assertEquals("shard 1: id must be a string", refusal("[{\"id\":7,\"filter\":{},\"mode\":\"asserted\"}]"));
    }

    @Test
    void atMostSixtyFourShards() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < 65; i++) {
            sb.append(i > 0 ? "," : "").append("{\"id\":\"s").append(i).append("\",\"filter\":{},\"mode\":\"replicated\"}");
        }
        String over = sb.append(']').toString();
        assertEquals("declares 65 shards, at most 64", refusal(over));
        String sixtyFour = over.substring(0, over.lastIndexOf(",{")) + "]";
        assertEquals(64, ShardsSetting.parse(sixtyFour).size());
    }

    @Test
    void filterRulesAreNamed() {
        assertEquals("shard 1: filter: a shard filter has no limit",
                refusal("[{\"id\":\"a\",\"filter\":{\"limit\":10},\"mode\":\"asserted\"}]"));
        assertEquals("shard 1: filter: kinds must be integers between 0 and 65535",
                refusal("[{\"id\":\"a\",\"filter\":{\"kinds\":[-1]},\"mode\":\"asserted\"}]"));
        assertEquals("shard 1: filter must be a NIP-01 filter object",
                refusal("[{\"id\":\"a\",\"filter\":[],\"mode\":\"asserted\"}]"));
    }

    @Test
    void theShapeIsChecked() {
        assertEquals("is not JSON: a JSON array of {\"id\", \"filter\", \"mode\"}", refusal("[{"));
        assertEquals("is a JSON array of {\"id\", \"filter\", \"mode\"}", refusal("{\"id\":\"a\"}"));
        assertEquals("shard 1: a shard is an object {\"id\", \"filter\", \"mode\"}", refusal("[\"a\"]"));
        assertEquals("shard 1: unknown field \"limit\" (a shard has id, filter, mode)",
                refusal("[{\"id\":\"a\",\"filter\":{},\"mode\":\"asserted\",\"limit\":1}]"));
    }
}
