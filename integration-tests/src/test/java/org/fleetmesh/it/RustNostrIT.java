package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Interop with a client from another ecosystem: rust-nostr (@rust-nostr/nostr-sdk from npm, the Rust crates
 * compiled to WebAssembly, run in Node) against a packaged node: publishing notes, metadata, contact lists and
 * addressable events and reading them back by authors, kinds, {@code #e}/{@code #p}/{@code #t}, since/until, limit
 * and ids; a live subscription; NIP-09 deletion by id and by {@code a} coordinate; NIP-40; NIP-45 COUNT; the SDK's
 * automatic NIP-42 authentication with NIP-70 ({@code auth-required:} without it, {@code restricted:} for someone
 * else's protected event); a NIP-17/59 private message to oneself, stored as kind 1059 and served only to its
 * authenticated recipient, unwrapped by the SDK; and NIP-77 {@code client.sync} against the relay in both
 * directions with a few thousand events, compared with what a REQ returns.
 * <p>
 * The script works around two things of the SDK in Node (see its head): a ws subclass that keeps the relay's
 * {@code AUTH} challenge, which the SDK otherwise loses about half the time when it arrives with the WebSocket
 * handshake (an SDK bug: NIP-42 lets a relay send the challenge as the client connects), and fake-indexeddb for
 * a local database that stores events.
 */
class RustNostrIT {
    private static final String SCRIPT = "rust-nostr-interop.mjs";

    static Path jsDir;
    static MeshnodeProcess node;

    @BeforeAll
    static void install() throws Exception {
        jsDir = NodeJs.withRustNostr(SCRIPT);
        node = MeshnodeProcess.start("rust-nostr"); // client limits off: one address publishes thousands
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void rustNostrPublishesReadsAuthenticatesUnwrapsAndSyncs() throws Exception {
        NodeJs.Run r = NodeJs.run(jsDir, 300, "node", SCRIPT, node.wsUri().toString());
        assertEquals(0, r.exit(), "the rust-nostr script failed:\n" + r.stdout() + r.stderr());
        String line = r.stdout().lines().filter(l -> l.startsWith("RESULT ")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no RESULT line:\n" + r.stdout() + r.stderr()));
        JsonNode res = NostrClient.tree(line.substring("RESULT ".length()));

        JsonNode read = res.path("read");
        assertEquals(List.of("note 0", "note 1", "note 2", "note 3", "note 4", "reply"), strings(read.path("kind1")));
        assertEquals(List.of("note 0", "note 2", "note 4"), strings(read.path("tagEven")));
        assertEquals(List.of("1", "1", "1", "1", "1", "3"), strings(read.path("tagP")), "#p: five notes and the contact list");
        assertEquals(List.of("reply"), strings(read.path("tagE")));
        assertEquals(List.of("note 1", "note 2", "note 3"), strings(read.path("sinceUntil")), "since and until inclusive");
        assertEquals(List.of("note 4", "reply"), strings(read.path("limit2")), "limit takes the newest");
        assertEquals(List.of("note 1", "note 3"), strings(read.path("ids")));
        assertEquals("rust-nostr tester", read.path("metadataName").asText());
        assertEquals(1, read.path("contacts").size(), "one contact list (replaceable)");
        assertEquals("bob2", read.path("contacts").get(0).get(0).get(3).asText(), "the newer contact list");
        assertEquals(List.of("article v2"), strings(read.path("article")), "the newer version of the addressable event");
        assertTrue(read.path("allValid").asBoolean(), "every event read back verifies in rust-nostr");

        JsonNode live = res.path("live");
        assertTrue(live.path("eose").asBoolean(), "EOSE");
        assertEquals(List.of(live.path("expected").asText()), strings(live.path("received")), "exactly the live event");

        JsonNode del = res.path("deletion");
        assertEquals(List.of("live note", "note 0", "note 1", "note 2", "note 3", "reply"), strings(del.path("kind1")),
                "note 4 deleted by id");
        assertEquals(0, del.path("articles").asInt(), "the article deleted by its a coordinate");
        assertEquals(2, del.path("deletions").asInt(), "the deletion requests stay visible");
        assertTrue(first(del.path("resentDeleted")).startsWith("blocked:"), "a deleted event sent again: " + del);
        assertTrue(first(del.path("olderArticle")).startsWith("blocked:"), "an older version after an a deletion: " + del);
        assertEquals(0, del.path("newerArticle").size(), "a version newer than the a deletion is taken: " + del);
        assertEquals(List.of("article v3"), strings(del.path("articlesAfter")));

        JsonNode exp = res.path("expiration");
        assertEquals(0, exp.path("sent").size(), exp.toString());
        assertEquals(1, exp.path("before").asInt(), "served before its expiration");
        assertEquals(0, exp.path("after").asInt(), "not served after it");
        assertTrue(first(exp.path("expired")).startsWith("invalid:"), "an expired event: " + exp);

        // notes 0-3, reply, live note, metadata, contact list, article v3, two deletions
        assertEquals(11, res.path("count").asInt(), "NIP-45 COUNT through rust-nostr");
        assertEquals(6, res.path("countKind1").asInt());

        JsonNode nip70 = res.path("nip70");
        assertEquals(0, nip70.path("own").size(), "own protected event after automatic AUTH: " + nip70);
        assertTrue(nip70.path("authOk").asBoolean(), "the SDK's AUTH was accepted");
        assertEquals(List.of("protected"), strings(nip70.path("ownRead")));
        assertTrue(first(nip70.path("foreign")).startsWith("restricted:"), "someone else's protected event: " + nip70);
        assertTrue(first(nip70.path("withoutAuth")).startsWith("auth-required:"), "without AUTH: " + nip70);

        JsonNode gift = res.path("giftWrap");
        assertEquals(0, gift.path("sent").size(), gift.toString());
        assertEquals(List.of(gift.path("id").asText()), strings(gift.path("fetched")), "the gift wrap, served to its recipient");
        assertEquals(List.of("1059"), strings(gift.path("kinds")));
        JsonNode opened = gift.path("opened").get(0);
        assertEquals(res.path("pubkey").asText(), opened.path("sender").asText(), "the seal's signer");
        assertEquals(14, opened.path("kind").asInt(), "a NIP-17 chat message");
        assertEquals("a secret for myself", opened.path("content").asText());
        assertTrue(gift.path("recipientAuthOk").asBoolean(), "the recipient authenticated when asked: " + gift);
        assertEquals(0, gift.path("stranger").size(), "an authenticated stranger gets no gift wrap");
        assertEquals(0, gift.path("unauthenticated").size(), "nor does an unauthenticated connection");
        assertTrue(first(gift.path("unauthenticatedClosed")).contains("\"auth-required:"), gift.toString());
        assertEquals(1, gift.path("count").asInt(), "COUNT of the recipient's gift wraps");
        assertEquals(List.of("a live secret"), strings(gift.path("live")), "a gift wrap delivered live");

        JsonNode sync = res.path("sync");
        assertEquals(2, sync.size());
        for (JsonNode c : sync) {
            String name = c.path("name").asText();
            assertEquals(0, c.path("refused").size(), name + ": " + c);
            assertTrue(c.path("dryHave").asBoolean() && c.path("dryNeed").asBoolean(), name + ": dry run " + c);
            for (JsonNode step : c.path("steps")) {
                assertEquals(0, step.path("failed").size(), name + ": " + step);
                assertTrue(step.path("sentExactly").asBoolean(), name + ": sent " + step);
                assertTrue(step.path("receivedExactly").asBoolean(), name + ": received " + step);
            }
            assertTrue(c.path("relayMatchesUnion").asBoolean(), name + ": REQ after the sync " + c);
            assertTrue(c.path("localMatchesUnion").asBoolean(), name + ": the SDK's database after the sync " + c);
            assertTrue(c.path("relayKeptOutside").asBoolean() && c.path("localKeptOutside").asBoolean(),
                    name + ": nothing outside the filter moved " + c);
            assertEquals(List.of("0", "0"), strings(c.path("afterwards")), name + ": a second sync finds nothing");
            assertEquals(c.path("union").asInt(), c.path("sdkCount").asInt(), name + ": COUNT");
        }
        assertEquals(3000, sync.get(0).path("union").asInt());
        assertEquals(List.of("1000", "1000", "0", "0"), strings(sync.get(0).path("dryCounts")));

        // what rust-nostr wrote and synced, our own client reads back
        try (NostrClient c = NostrClient.connect(node)) {
            // the six counted above and the protected note
            assertEquals(7, c.countNow("k1", FilterSpec.of().authors(res.path("pubkey").asText()).kinds(1)));
            // the filter-scoped case also has 90 kind 1 events on the relay outside its filter (other tag, before
            // since, after until)
            long[] outsideKind1 = { 0, 90 };
            for (int i = 0; i < sync.size(); i++) {
                JsonNode s = sync.get(i);
                assertEquals(s.path("union").asLong() + outsideKind1[i],
                        c.countNow("s" + i, FilterSpec.of().authors(s.path("author").asText()).kinds(1)), s.path("name").asText());
            }
        }
        assertTrue(node.isAlive());
    }

    private static String first(JsonNode array) {
        return array.size() > 0 ? array.get(0).asText() : "";
    }

    private static List<String> strings(JsonNode array) {
        List<String> l = new ArrayList<>();
        array.forEach(n -> l.add(n.asText()));
        return l;
    }
}
