package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * permessage-deflate decided per message (docs/OPERATING.md, "WebSocket compression"), seen on the wire by a client
 * written against RFC 6455 and RFC 7692 ({@link RawWebSocket}): small messages go uncompressed, large ones compressed
 * with the context kept across the skipped ones, and an incoming frame that would inflate past the bound ends the
 * connection (1009) without harming the node or what it stored.
 */
class WebSocketCompressionIT {
    private static final String OFFER = "permessage-deflate; client_max_window_bits";
    private static final int MAX_INFLATED = 262_144;
    private static MeshnodeProcess node;

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("deflate", Map.of("QUARKUS_WEBSOCKETS_NEXT_SERVER_PER_MESSAGE_COMPRESSION_SUPPORTED", "true",
                "FLEETMESH_RELAY_DEFLATE_MAX_INFLATED_BYTES", Integer.toString(MAX_INFLATED)));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    private static String text(int bytes, long seed) {
        java.util.Random r = new java.util.Random(seed);
        String[] words = { "relay", "mesh", "custody", "receipt", "shard", "negentropy", "grant", "finding", "the", "of" };
        StringBuilder b = new StringBuilder();
        while (b.length() < bytes) {
            b.append(words[r.nextInt(words.length)]).append(' ');
        }
        return b.substring(0, bytes);
    }

    /** Connects and takes the NIP-42 challenge the relay sends first (small: never compressed). */
    private static RawWebSocket connect(String offer) throws Exception {
        RawWebSocket ws = RawWebSocket.connect(node.port(), "/", offer);
        RawWebSocket.Message auth = ws.read();
        assertNotNull(auth, "no AUTH challenge");
        assertTrue(auth.text().startsWith("[\"AUTH\""), auth.text());
        assertFalse(auth.compressed(), "the AUTH challenge came compressed");
        return ws;
    }

    @Test
    void smallMessagesGoPlainAndLargeOnesCompressedWithTheContextKept() throws Exception {
        Keys k = Keys.fresh();
        long now = Keys.now();
        Event small = k.note(now, "hi");
        Event big1 = k.note(now - 1, text(8000, 1));
        Event big2 = k.note(now - 2, text(8000, 2));
        try (RawWebSocket ws = connect(OFFER)) {
            assertTrue(ws.deflateAgreed(), "agreed: " + ws.agreed);
            // the client compresses what it sends (as browsers do): the node inflates it
            for (Event e : List.of(small, big1, big2)) {
                ws.sendText(NostrClient.message("EVENT", e), true);
                RawWebSocket.Message ok = ws.read();
                assertNotNull(ok);
                assertFalse(ok.compressed(), "an OK of " + ok.payload().length + " bytes came compressed");
                JsonNode m = NostrClient.tree(ok.text());
                assertEquals("OK", m.get(0).asText());
                assertEquals(e.id().toString(), m.get(1).asText());
                assertTrue(m.get(2).asBoolean(), ok.text());
            }
            for (int round = 0; round < 2; round++) {
                ws.sendText(NostrClient.message("REQ", "s" + round, NostrClient.tree("{\"authors\":[\"" + k.pubkey() + "\"]}")),
                        round == 0);
                List<RawWebSocket.Message> got = new ArrayList<>();
                for (RawWebSocket.Message m = ws.read(); ; m = ws.read()) {
                    assertNotNull(m, "the socket ended");
                    got.add(m);
                    if (m.text().startsWith("[\"EOSE\"")) {
                        break;
                    }
                }
                assertEquals(4, got.size(), got.toString());
                // newest first: small, big1, big2, then EOSE
                assertFalse(got.get(0).compressed(), "a " + got.get(0).payload().length + "-byte EVENT came compressed");
                for (int i = 1; i <= 2; i++) {
                    RawWebSocket.Message m = got.get(i);
                    assertTrue(m.compressed(), "an " + m.payload().length + "-byte EVENT came uncompressed");
                    assertTrue(m.wireBytes() < m.payload().length / 2, m.wireBytes() + " wire bytes for " + m.payload().length);
                    JsonNode ev = NostrClient.tree(m.text()).get(2);
                    assertEquals((i == 1 ? big1 : big2).id().toString(), ev.get("id").asText());
                    assertEquals(8000, ev.get("content").asText().length());
                }
                assertFalse(got.get(3).compressed(), "EOSE came compressed");
            }
        }
    }

    @Test
    void aFrameThatInflatesPastTheBoundEndsItsConnectionAndNothingElse() throws Exception {
        Keys k = Keys.fresh();
        Event kept = k.note(Keys.now(), "stored before the bomb");
        try (NostrClient c = NostrClient.connect(node)) {
            assertTrue(c.publishAndWait(kept).accepted());
        }
        try (RawWebSocket ws = connect(OFFER)) {
            assertTrue(ws.deflateAgreed());
            // 1 MiB of spaces deflate to about 1 KB: four times the bound, yet under the 2 MiB message size Vert.x
            // checks after inflating (without the bound this is a message like any other, answered by the relay)
            byte[] bomb = new byte[1 << 20];
            java.util.Arrays.fill(bomb, (byte) ' ');
            byte[] deflated = ws.deflate(bomb);
            assertTrue(deflated.length < 65_536, deflated.length + " bytes");
            ws.sendCompressed(deflated);
            RawWebSocket.Message m = ws.read();
            assertNotNull(m, "the node dropped the connection without a close frame");
            assertEquals(8, m.opcode(), "the node answered a bomb with " + m.text());
            assertEquals(1009, m.closeCode(), "close code: " + m.text());
        }
        // the node serves on, with what it had
        try (NostrClient c = NostrClient.connect(node)) {
            assertEquals(1, c.query("after", FilterSpec.of().ids(kept)).size());
        }
    }

    @Test
    void aClientThatOffersNothingGetsPlainMessages() throws Exception {
        try (RawWebSocket ws = connect(null)) {
            assertNull(ws.agreed);
            Event e = Keys.fresh().note(Keys.now(), text(4000, 3));
            ws.sendText(NostrClient.message("EVENT", e), false);
            assertFalse(ws.read().compressed());
            ws.sendText(NostrClient.message("REQ", "x", NostrClient.tree("{\"ids\":[\"" + e.id() + "\"]}")), false);
            RawWebSocket.Message ev = ws.read();
            assertFalse(ev.compressed());
            assertEquals(e.id().toString(), NostrClient.tree(ev.text()).get(2).get("id").asText());
        }
    }

    /**
     * Messages that inflate a thousandfold arrive far faster than they are handled: the connection's reading pauses while
     * 1 MiB of them waits (not an ever-growing queue), and every one is still answered, in order.
     */
    @Test
    void aFloodOfSmallCompressedMessagesIsReadAsFastAsItIsHandledAndAllAreAnswered() throws Exception {
        double before = Metrics.scrape(node).value("fleetmesh_websocket_receive_paused_total");
        String content = "a".repeat(200_000);
        int n = 100;
        try (RawWebSocket ws = connect(OFFER)) {
            assertTrue(ws.deflateAgreed());
            for (int i = 0; i < n; i++) {
                String id = String.format("%064x", i);
                ws.sendText("[\"EVENT\",{\"id\":\"" + id + "\",\"pubkey\":\"" + "b".repeat(64) + "\",\"created_at\":1,"
                        + "\"kind\":1,\"tags\":[],\"content\":\"" + content + "\",\"sig\":\"" + "c".repeat(128) + "\"}]", true);
            }
            for (int i = 0; i < n; i++) {
                String answer = ws.read().text();
                assertTrue(answer.startsWith("[\"OK\",\"" + String.format("%064x", i) + "\",false,\""), i + ": " + answer);
            }
        }
        assertTrue(Metrics.scrape(node).value("fleetmesh_websocket_receive_paused_total") > before,
                "the reading paused while the messages waited");
    }

    /**
     * The UTF-8 check reads a compressed message after it is inflated (RFC 6455 section 8.1 with RFC 7692): a valid
     * compressed REQ with a non-ASCII id is answered, a compressed text message that inflates to bytes that are not
     * UTF-8 is closed 1007.
     */
    @Test
    void aCompressedMessageIsCheckedForUtf8AfterItIsInflated() throws Exception {
        try (RawWebSocket ws = connect(OFFER)) {
            assertTrue(ws.deflateAgreed());
            ws.sendText("[\"REQ\",\"\u00e9t\u00e9\",{\"limit\":0}]", true);
            assertEquals("[\"EOSE\",\"\u00e9t\u00e9\"]", ws.read().text());
            byte[] bad = "[\"REQ\",\"x\",{\"limit\":0}]".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            bad[8] = (byte) 0xED; // with the bytes after it, not a character
            ws.sendCompressed(ws.deflate(bad));
            RawWebSocket.Message close = ws.read();
            assertEquals(8, close.opcode());
            assertEquals(1007, ((close.payload()[0] & 0xff) << 8) | (close.payload()[1] & 0xff));
        }
    }
}
