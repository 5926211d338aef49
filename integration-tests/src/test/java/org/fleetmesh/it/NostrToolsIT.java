package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Interop with a client nobody here wrote: nostr-tools from npm publishes, authenticates (NIP-42)
 * to publish a protected event (NIP-70), subscribes (stored events, EOSE, a live event), counts
 * and reads NIP-11 against a packaged node.
 */
class NostrToolsIT {
    private static final String SCRIPT = "nostr-tools-interop.mjs";

    static Path jsDir;
    static MeshnodeProcess node;

    @BeforeAll
    static void installNostrTools() throws Exception {
        jsDir = NodeJs.withNostrTools(SCRIPT);
        node = MeshnodeProcess.start("nostr-tools");
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void nostrToolsPublishesSubscribesCountsAndReadsNip11() throws Exception {
        String ws = "ws://127.0.0.1:" + node.port();
        String http = "http://127.0.0.1:" + node.port() + "/";
        NodeJs.Run r = NodeJs.run(jsDir, 90, "node", SCRIPT, ws, http);
        assertEquals(0, r.exit(), "the nostr-tools script failed:\n" + r.stdout() + r.stderr());
        String line = r.stdout().lines().filter(l -> l.startsWith("RESULT ")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no RESULT line:\n" + r.stdout() + r.stderr()));
        JsonNode res = NostrClient.tree(line.substring("RESULT ".length()));

        assertTrue(res.path("ok").asBoolean());
        List<String> published = strings(res.path("published"));
        assertEquals(3, published.size());
        assertEquals(new HashSet<>(published), new HashSet<>(strings(res.path("stored"))),
                "stored events before EOSE must be exactly the published ones");
        assertEquals(3, strings(res.path("stored")).size(), "each stored event once");
        assertTrue(res.path("eose").asBoolean(), "EOSE");
        assertEquals(List.of(res.path("liveId").asText()), strings(res.path("live")), "exactly the live event after EOSE");
        assertTrue(res.path("closedReason").isNull(), "the subscription was CLOSED: " + res.path("closedReason"));
        assertTrue(res.path("forgedReason").asText().contains("invalid"), "forged: " + res.path("forgedReason"));
        assertTrue(res.path("protectedBeforeAuth").asText().startsWith("auth-required:"),
                "NIP-70 before AUTH: " + res.path("protectedBeforeAuth"));
        assertTrue(res.path("authReason").isTextual(), "NIP-42 AUTH through nostr-tools: " + res.path("authReason"));
        assertEquals(5, res.path("count").asInt(), "COUNT after 3 stored + 1 protected + 1 live");

        JsonNode nip11 = res.path("nip11");
        assertTrue(nip11.path("contentType").asText().startsWith("application/nostr+json"));
        assertEquals("fleetmesh meshnode", nip11.path("name").asText());
        Set<Integer> nips = new HashSet<>();
        nip11.path("supported_nips").forEach(n -> nips.add(n.asInt()));
        assertTrue(nips.contains(1) && nips.contains(11), "supported_nips " + nips);
        JsonNode cors = nip11.path("cors");
        assertEquals("*", cors.path("origin").asText());
        assertTrue(cors.path("headers").isTextual() && !cors.path("headers").asText().isEmpty(), "CORS headers: " + cors);
        assertTrue(cors.path("methods").asText().contains("GET"), "CORS methods: " + cors);

        // what nostr-tools wrote, our own client reads back
        String pubkey = res.path("pubkey").asText();
        assertNotNull(pubkey);
        try (NostrClient c = NostrClient.connect(node)) {
            List<String> ids = NostrClient.ids(c.query("check", FilterSpec.of().authors(pubkey)));
            List<String> expected = new ArrayList<>(published);
            expected.add(res.path("liveId").asText());
            expected.add(res.path("protectedId").asText());
            assertEquals(new HashSet<>(expected), new HashSet<>(ids));
            assertEquals(5, ids.size());
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> l = new ArrayList<>();
        array.forEach(n -> l.add(n.asText()));
        return l;
    }
}
