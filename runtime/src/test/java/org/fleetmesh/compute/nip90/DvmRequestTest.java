package org.fleetmesh.compute.nip90;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

class DvmRequestTest {
    static final byte[] KEY = DvmTest.key(9);
    /** benthecarman/wasm-dvm's README example request, as its i tag carries it. */
    static final String WASM_DVM_EXAMPLE = "{\"url\":\"https://github.com/extism/plugins/releases/download/v0.5.0/"
            + "count_vowels.wasm\",\"function\":\"count_vowels\",\"input\":\"Hello World\",\"time\": 1000, "
            + "\"checksum\": \"93898457953d30d016f712ccf4336ce7e9971db5f7f3aff1edd252764f75d5d7\"}";

    static Event event(List<List<String>> tags) {
        return Events.sign(KEY, 1_700_000_000L, 5600, tags, "");
    }

    @Test
    void readsTheWasmDvmShapeWithStartFunction() throws Exception {
        String j = WASM_DVM_EXAMPLE.replace("\"function\":\"count_vowels\"", "\"function\":\"_start\"");
        DvmRequest r = DvmRequest.parse(event(List.of(List.of("i", j, "text"), List.of("bid", "2000"),
                List.of("param", "arg", "a"), List.of("param", "arg", "b"), List.of("param", "memory_pages", "4"))));
        assertEquals("https://github.com/extism/plugins/releases/download/v0.5.0/count_vowels.wasm", r.url());
        assertEquals("93898457953d30d016f712ccf4336ce7e9971db5f7f3aff1edd252764f75d5d7", r.checksum());
        assertEquals("Hello World", r.input());
        assertEquals(1000, r.timeMillis());
        assertEquals(List.of("a", "b"), r.args());
        assertEquals(4, r.memoryPages().getAsInt());
        assertEquals(2000, r.bidMsat().getAsLong());
        assertEquals(j, r.inputTag());
    }

    @Test
    void absentFunctionAndTwoElementITagAreAccepted() throws Exception {
        String j = WASM_DVM_EXAMPLE.replace("\"function\":\"count_vowels\",", "");
        DvmRequest r = DvmRequest.parse(event(List.of(List.of("i", j))));
        assertEquals(1000, r.timeMillis());
    }

    @Test
    void anExtismFunctionIsRefusedWithTheReason() {
        DvmException e = assertThrows(DvmException.class,
                () -> DvmRequest.parse(event(List.of(List.of("i", WASM_DVM_EXAMPLE, "text")))));
        assertTrue(e.getMessage().contains("count_vowels"), e.getMessage());
        assertTrue(e.getMessage().contains("_start"), e.getMessage());
    }

    @Test
    void refusals() {
        String ok = WASM_DVM_EXAMPLE.replace("\"function\":\"count_vowels\",", "");
        assertRefused("no i tag", List.of());
        assertRefused("the i tag is", List.of(List.of("i", ok, "url")));
        assertRefused("one i tag", List.of(List.of("i", ok, "text"), List.of("i", ok, "text")));
        assertRefused("JSON object", List.of(List.of("i", "[1]", "text")));
        assertRefused("checksum", List.of(List.of("i", ok.replace("93898457", "zz"), "text")));
        assertRefused("time", List.of(List.of("i", ok.replace("\"time\": 1000", "\"time\": 0"), "text")));
        assertRefused("unknown param", List.of(List.of("i", ok, "text"), List.of("param", "env", "X=1")));
        assertRefused("param fuel", List.of(List.of("i", ok, "text"), List.of("param", "fuel", "-1")));
        assertRefused("bid", List.of(List.of("i", ok, "text"), List.of("bid", "lots")));
        assertRefused("encrypted", List.of(List.of("i", ok, "text"), List.of("encrypted")));
    }

    @Test
    void providersNameWhoTheRequestIsFor() throws Exception {
        String ok = WASM_DVM_EXAMPLE.replace("\"function\":\"count_vowels\",", "");
        DvmRequest r = DvmRequest.parse(event(List.of(List.of("i", ok, "text"), List.of("p", "aa"))));
        assertTrue(r.forSomeoneElse("bb"));
        assertTrue(!r.forSomeoneElse("aa"));
        assertTrue(!DvmRequest.parse(event(List.of(List.of("i", ok, "text")))).forSomeoneElse("bb"));
    }

    private static void assertRefused(String reason, List<List<String>> tags) {
        DvmException e = assertThrows(DvmException.class, () -> DvmRequest.parse(event(tags)));
        assertTrue(e.getMessage().contains(reason), reason + " in: " + e.getMessage());
    }
}
