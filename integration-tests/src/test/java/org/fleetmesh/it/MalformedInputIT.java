package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Whatever a client sends, the relay answers with the right message type and an {@code invalid:}
 * reason, keeps the connection open, and keeps the events it accepted before. A client that stops
 * reading is dropped without hurting the others.
 */
class MalformedInputIT {
    private static final int MAX_MESSAGE = 4096;
    private static final int SEND_QUEUE = 256 * 1024;

    static MeshnodeProcess node;
    static Keys witnessKeys = Keys.fresh();
    static Event witness;

    @BeforeAll
    static void startNode() {
        node = MeshnodeProcess.start("malformed", Map.of(
                "FLEETMESH_RELAY_MAX_MESSAGE_LENGTH", Integer.toString(MAX_MESSAGE),
                "FLEETMESH_RELAY_SEND_QUEUE_BYTES", Integer.toString(SEND_QUEUE)));
        witness = witnessKeys.note(now() - 60, "accepted before any garbage");
        try (NostrClient c = NostrClient.connect(node)) {
            c.publishAndWait(witness).assertAccepted();
        }
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    /**
     * Opens a connection, stores an event, runs the abuse, then proves that the same connection
     * still answers a REQ and that both the event and the class's witness are still served.
     */
    private static void survives(Consumer<NostrClient> abuse) {
        Keys k = Keys.fresh();
        Event before = k.note(now() - 5, "before the garbage");
        try (NostrClient c = NostrClient.connect(node)) {
            c.publishAndWait(before).assertAccepted();
            abuse.accept(c);
            assertTrue(c.isOpen(), "the relay closed the connection: " + c.state());
            List<JsonNode> got = c.query("alive", FilterSpec.of().ids(before.id().hex(), witness.id().hex()));
            assertEquals(2, got.size(), "events accepted before must still be served: " + got);
            List<JsonNode> rest = c.drain();
            assertTrue(rest.isEmpty(), "unexpected extra messages: " + rest);
        }
    }

    private static String notice(NostrClient c) {
        String text = c.expectNotice();
        assertTrue(text.startsWith("invalid:"), "NOTICE should say invalid: ... but said: " + text);
        return text;
    }

    private static void closed(NostrClient c, String subId) {
        String reason = c.expectClosed(subId);
        assertTrue(reason.startsWith("invalid:"), "CLOSED should say invalid: ... but said: " + reason);
    }

    private static void refusedOk(NostrClient c, String eventId) {
        c.expectOk(eventId).assertRefused("invalid:");
    }

    /** The first NOTICE, OK or CLOSED, for cases where the relay may pick between them. */
    private static JsonNode anyRefusal(NostrClient c) {
        JsonNode m = c.take(n -> NostrClient.isVerb(n, "NOTICE") || NostrClient.isVerb(n, "OK")
                || NostrClient.isVerb(n, "CLOSED"), "a NOTICE, OK or CLOSED");
        String reason = m.get(m.size() - 1).asText();
        assertTrue(reason.startsWith("invalid:"), "refusal should say invalid: ... but was " + m);
        if (NostrClient.isVerb(m, "OK")) {
            assertEquals(false, m.get(2).asBoolean(true), "must be refused: " + m);
        }
        return m;
    }

    @Test
    void notJson() {
        survives(c -> {
            c.send("this is not json");
            notice(c);
            c.send("[\"REQ\", \"x\", {\"kinds\": [1]");
            anyRefusal(c);
            c.send("");
            notice(c);
        });
    }

    @Test
    void notAnArrayOrNoVerb() {
        survives(c -> {
            c.send("{\"EVENT\": {}}");
            notice(c);
            c.send("[]");
            notice(c);
            c.send("[1, 2, 3]");
            notice(c);
            c.send("\"REQ\"");
            notice(c);
        });
    }

    @Test
    void unknownVerb() {
        survives(c -> {
            c.send("[\"PUBLISH\", {}]");
            notice(c);
            c.send("[\"event\", {}]"); // verbs are case-sensitive
            notice(c);
        });
    }

    @Test
    void wrongArity() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "arity");
        survives(c -> {
            c.send("[\"EVENT\"]");
            notice(c);
            c.send("[\"EVENT\"," + e.json() + "," + e.json() + "]");
            refusedOk(c, e.id().hex());
            c.send("[\"REQ\"]");
            notice(c);
            c.send("[\"REQ\",\"nofilter\"]");
            closed(c, "nofilter");
            c.send("[\"COUNT\",\"nofilter2\"]");
            closed(c, "nofilter2");
            c.send("[\"CLOSE\"]");
            notice(c);
            c.send("[\"CLOSE\",\"a\",\"b\"]");
            notice(c);
            c.send("[\"REQ\",\"notobj\",[1]]");
            closed(c, "notobj");
        });
        // the event sent with an extra argument was not stored
        try (NostrClient c = NostrClient.connect(node)) {
            assertEquals(List.of(), c.query("arity", FilterSpec.of().ids(e)));
        }
    }

    @Test
    void badHex() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "hex");
        String id = e.id().hex();
        survives(c -> {
            // an id that is not lower-case hex is refused in an OK that names it as sent (NIP-01: an EVENT gets an OK)
            c.send("[\"EVENT\"," + e.json().replace(id, id.toUpperCase()) + "]");
            refusedOk(c, id.toUpperCase());
            c.send("[\"EVENT\"," + e.json().replace(id, id.substring(2)) + "]");
            refusedOk(c, id.substring(2));
            // one that is not a string cannot be named: a NOTICE
            c.send("[\"EVENT\"," + e.json().replace("\"" + id + "\"", "7") + "]");
            notice(c);
            // a readable id with a bad pubkey or sig: OK false for that id
            c.send("[\"EVENT\"," + e.json().replace(k.pubkey(), "zz" + k.pubkey().substring(2)) + "]");
            refusedOk(c, id);
            c.send("[\"EVENT\"," + e.json().replace(e.sig().hex(), e.sig().hex().substring(0, 100)) + "]");
            refusedOk(c, id);
            c.send("[\"REQ\",\"hexsub\",{\"authors\":[\"" + k.pubkey().toUpperCase() + "\"]}]");
            closed(c, "hexsub");
            c.send("[\"REQ\",\"hexsub2\",{\"ids\":[\"abc\"]}]");
            closed(c, "hexsub2");
        });
    }

    @Test
    void wrongFieldTypes() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "types");
        String id = e.id().hex();
        survives(c -> {
            c.send("[\"EVENT\"," + e.json().replace("\"kind\":1", "\"kind\":\"1\"") + "]");
            refusedOk(c, id);
            c.send("[\"EVENT\"," + e.json().replace("\"created_at\":" + e.createdAt(), "\"created_at\":-1") + "]");
            refusedOk(c, id);
            c.send("[\"EVENT\"," + e.json().replace("\"tags\":[]", "\"tags\":[\"t\"]") + "]");
            refusedOk(c, id);
            c.send("[\"EVENT\"," + e.json().replace("\"tags\":[]", "\"tags\":[[1]]") + "]");
            refusedOk(c, id);
            c.send("[\"EVENT\"," + e.json().replace("\"content\":\"types\"", "\"content\":null") + "]");
            refusedOk(c, id);
            c.send("[\"EVENT\"," + e.json().replace("\"content\":\"types\",", "") + "]");
            refusedOk(c, id);
            c.send("[\"REQ\",\"typesub\",{\"limit\":\"ten\"}]");
            closed(c, "typesub");
            c.send("[\"REQ\",\"typesub2\",{\"since\":1.5}]");
            closed(c, "typesub2");
        });
        try (NostrClient c = NostrClient.connect(node)) {
            assertEquals(List.of(), c.query("types", FilterSpec.of().authors(k)));
        }
    }

    @Test
    void badSignature() {
        Keys k = Keys.fresh();
        Event e = k.note(now(), "forged");
        survives(c -> {
            c.send("[\"EVENT\"," + Keys.withBrokenSignature(e) + "]");
            refusedOk(c, e.id().hex());
            // a signature by another key over the same id
            Event sameByOther = Keys.fresh().note(e.createdAt(), e.content());
            c.send("[\"EVENT\"," + e.json().replace(e.sig().hex(), sameByOther.sig().hex()) + "]");
            refusedOk(c, e.id().hex());
        });
        try (NostrClient c = NostrClient.connect(node)) {
            assertEquals(List.of(), c.query("forged", FilterSpec.of().ids(e)));
        }
    }

    @Test
    void oversizeMessage() {
        Keys k = Keys.fresh();
        long t = now();
        // an EVENT message of exactly the limit is accepted; one character more is refused
        int base = ("[\"EVENT\"," + k.note(t, "").json() + "]").length();
        Event fits = k.note(t, "a".repeat(MAX_MESSAGE - base));
        Event tooBig = k.note(t, "b".repeat(MAX_MESSAGE - base + 1));
        assertEquals(MAX_MESSAGE, ("[\"EVENT\"," + fits.json() + "]").length());
        survives(c -> {
            c.publishAndWait(fits).assertAccepted();
            // NIP-01: an EVENT gets its OK, too large or not; a REQ its CLOSED
            assertEquals("invalid: message too large (at most " + MAX_MESSAGE + " bytes)",
                    c.publishAndWait(tooBig).assertRefused("invalid:").message());
            c.send("[\"REQ\",\"big\",{\"#t\":[\"" + "x".repeat(MAX_MESSAGE) + "\"]}]");
            assertEquals("invalid: message too large (at most " + MAX_MESSAGE + " bytes)", c.expectClosed("big"));
            c.send("[\"HELLO\",\"" + "x".repeat(MAX_MESSAGE) + "\"]");
            notice(c);
        });
        try (NostrClient c = NostrClient.connect(node)) {
            assertEquals(List.of(), c.query("big", FilterSpec.of().ids(tooBig)));
            assertEquals(1, c.query("fits", FilterSpec.of().ids(fits)).size());
        }
    }

    /**
     * A message over the WebSocket server's most (2 MiB), on the relay and on /mesh, in one frame or in fragments: the
     * connection is closed 1009 with the reason as the frame header announces it (RFC 6455 7.4.1), where the server
     * alone dropped the TCP connection without a word (one frame) or read every fragment and answered nothing
     * (fragments); the node goes on serving.
     */
    @Test
    void aMessageOverTheTransportsMostIsClosed1009InOneFrameOrInFragments() throws Exception {
        String reason = "1009 too large: a message is at most 2097152 bytes";
        for (String path : List.of("/", "/mesh")) {
            for (boolean fragmented : List.of(false, true)) {
                java.util.concurrent.CompletableFuture<String> closed = new java.util.concurrent.CompletableFuture<>();
                java.net.http.WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                        .buildAsync(node.wsUri().resolve(path), new java.net.http.WebSocket.Listener() {
                            @Override
                            public java.util.concurrent.CompletionStage<?> onClose(java.net.http.WebSocket w, int code,
                                    String why) {
                                closed.complete(code + " " + why);
                                return null;
                            }

                            @Override
                            public void onError(java.net.http.WebSocket w, Throwable error) {
                                closed.complete("error " + error);
                            }
                        }).get(10, java.util.concurrent.TimeUnit.SECONDS);
                try {
                    if (fragmented) {
                        String mib = "x".repeat(1 << 20);
                        ws.sendText(mib, false).get(20, java.util.concurrent.TimeUnit.SECONDS);
                        ws.sendText(mib, false).get(20, java.util.concurrent.TimeUnit.SECONDS);
                        ws.sendText("x".repeat(1000), true).get(20, java.util.concurrent.TimeUnit.SECONDS);
                    } else {
                        ws.sendText("x".repeat((2 << 20) + 1000), true).get(20, java.util.concurrent.TimeUnit.SECONDS);
                    }
                } catch (java.util.concurrent.ExecutionException sendFailed) {
                    // the node may close before the last bytes are written: its close frame is what counts
                }
                assertEquals(reason, closed.get(20, java.util.concurrent.TimeUnit.SECONDS),
                        path + (fragmented ? " in fragments" : " in one frame"));
                ws.abort();
            }
        }
        survives(c -> c.publishAndWait(Keys.fresh().note(now(), "after the large ones")).assertAccepted());
    }

    /** Opens a WebSocket on {@code path} by hand: the 101 read up to its blank line. */
    private static java.net.Socket raw(String path) throws java.io.IOException {
        java.net.Socket s = new java.net.Socket("127.0.0.1", node.port());
        s.setSoTimeout(15_000);
        s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: node\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        java.io.InputStream in = s.getInputStream();
        int matched = 0;
        while (matched < 4) { // up to the blank line after the 101's headers
            int b = in.read();
            assertTrue(b >= 0, "the upgrade's answer");
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return s;
    }

    /** A client frame: FIN as given, opcode, masked with a zero key (a payload under 126 bytes). */
    private static byte[] frame(boolean fin, int opcode, byte[] payload) {
        byte[] f = new byte[6 + payload.length];
        f[0] = (byte) ((fin ? 0x80 : 0) | opcode);
        f[1] = (byte) (0x80 | payload.length);
        System.arraycopy(payload, 0, f, 6, payload.length);
        return f;
    }

    /** The server's frames on {@code s} up to its close: the text ones' payloads but its AUTH, then "close CODE REASON". */
    private static List<String> framesUntilClose(java.net.Socket s) throws java.io.IOException {
        java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
        List<String> out = new java.util.ArrayList<>();
        while (true) {
            int b0 = in.readUnsignedByte();
            int len = in.readUnsignedByte() & 0x7f;
            long n = len == 126 ? in.readUnsignedShort() : len == 127 ? in.readLong() : len;
            byte[] p = new byte[(int) n];
            in.readFully(p);
            if ((b0 & 0x0f) == 8) {
                out.add("close " + (((p[0] & 0xff) << 8) | (p[1] & 0xff)) + " "
                        + new String(p, 2, p.length - 2, java.nio.charset.StandardCharsets.UTF_8));
                return out;
            }
            String text = new String(p, java.nio.charset.StandardCharsets.UTF_8);
            if (!text.startsWith("[\"AUTH\"")) {
                out.add(text);
            }
        }
    }

    /**
     * RFC 6455 section 8.1: a text message that is not UTF-8 fails the connection, close 1007, on the relay and on
     * /mesh, in one frame or with the bad byte in a continuation frame; the server used to read it with U+FFFD in place
     * of the bad bytes. A character cut between two frames is fine: that REQ is answered, and the connection closed
     * after it for the bad message behind it.
     */
    @Test
    void aTextMessageThatIsNotUtf8IsClosed1007() throws Exception {
        byte[] bad = "[\"REQ\",\"s\u00e9\",{\"limit\":0}]".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        bad[9] = (byte) 0xC0; // "é" is C3 A9; C0 A9 is an overlong form
        String closed = "close 1007 invalid: a text message must be UTF-8";
        for (String path : List.of("/", "/mesh")) {
            try (java.net.Socket s = raw(path)) {
                s.getOutputStream().write(frame(true, 1, bad));
                List<String> got = framesUntilClose(s); // on /mesh, the node's MESH-HELLO first
                assertEquals(closed, got.get(got.size() - 1), path + " in one frame");
                assertTrue(got.stream().noneMatch(f -> f.contains("\uFFFD")), path + ": nothing read in place of it");
            }
        }
        byte[] good = "[\"REQ\",\"s\u00e9\",{\"limit\":0}]".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (java.net.Socket s = raw("/")) {
            java.io.OutputStream out = s.getOutputStream();
            out.write(frame(false, 1, java.util.Arrays.copyOf(good, 10))); // ends between C3 and A9
            out.write(frame(true, 0, java.util.Arrays.copyOfRange(good, 10, good.length)));
            java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
            String answer;
            do { // the AUTH challenge first
                in.readUnsignedByte();
                byte[] p = new byte[in.readUnsignedByte() & 0x7f];
                in.readFully(p);
                answer = new String(p, java.nio.charset.StandardCharsets.UTF_8);
            } while (answer.startsWith("[\"AUTH\""));
            assertEquals("[\"EOSE\",\"s\u00e9\"]", answer, "a character cut between two frames");
            out.write(frame(false, 1, java.util.Arrays.copyOf(good, 10)));
            out.write(frame(true, 0, new byte[] {(byte) 0xFF}));
            assertEquals(List.of(closed), framesUntilClose(s), "the bad byte in a continuation frame");
        }
        assertTrue(Metrics.scrape(node).value("fleetmesh_websocket_receive_not_utf8_total") >= 3.0);
        survives(c -> c.publishAndWait(Keys.fresh().note(now(), "after the bad bytes")).assertAccepted());
    }

    /**
     * A request without {@code Host} is the client's mistake: 400 with the reason and the connection closed, nothing in
     * the log above debug. Quarkus's error handler logged an ERROR with an error id for each (one stranger on a
     * keep-alive connection wrote 5.6 MB of log in 5 s) and answered 500 with JSON logs.
     */
    @Test
    void aRequestWithoutHostIs400UnloggedAndClosed() throws Exception {
        for (int i = 0; i < 3; i++) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", node.port())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(("GET /no-host-" + i + " HTTP/1.1\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                // read to the end: the node closes the connection (a keep-alive one would time this read out)
                String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(answer.startsWith("HTTP/1.1 400 "), answer);
                assertTrue(answer.endsWith("bad request: an HTTP/1.1 request needs a Host header\n"), answer);
            }
        }
        assertTrue(Metrics.scrape(node).value("fleetmesh_http_bad_requests_total") >= 3.0);
        assertTrue(!node.logText().contains("no-host-"), "not logged");
    }

    @Test
    void nip11AdvertisesTheConfiguredMessageLimit() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(node.httpUri())
                .header("Accept", "application/nostr+json").timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode doc = NostrClient.tree(r.body());
        assertEquals(MAX_MESSAGE, doc.path("limitation").path("max_message_length").asInt());
        assertTrue(doc.path("software").isMissingNode(), "no software URL unless configured: " + doc);
    }

    @Test
    void subscriptionIdOf65Characters() {
        String sub64 = "s".repeat(64);
        String sub65 = "s".repeat(65);
        survives(c -> {
            // NIP-01: a refused REQ or COUNT is CLOSED, with the id as sent
            c.sendMessage("REQ", sub65, FilterSpec.of().kinds(1).limit(1).node());
            closed(c, sub65);
            c.sendMessage("COUNT", sub65, FilterSpec.of().kinds(1).node());
            closed(c, sub65);
            c.sendMessage("REQ", "", FilterSpec.of().kinds(1).limit(1).node());
            closed(c, "");
            // 64 is still fine
            c.query(sub64, FilterSpec.of().authors(Keys.fresh()));
            c.closeSub(sub64);
        });
    }

    @Test
    void deeplyNestedJson() {
        survives(c -> {
            c.send("[\"REQ\",\"deep\",{\"#t\":" + "[".repeat(200) + "]".repeat(200) + "}]");
            anyRefusal(c);
            c.send("[".repeat(3000)); // deeper than any parser should follow, and never closed
            notice(c);
        });
    }

    @Test
    void aBurstOfGarbageIsAnsweredOneByOne() {
        survives(c -> {
            for (int i = 0; i < 200; i++) {
                c.send(i % 2 == 0 ? "garbage " + i : "[\"NOPE\"," + i + "]");
            }
            for (int i = 0; i < 200; i++) {
                notice(c);
            }
        });
    }

    @Test
    void aClientThatStopsReadingIsDroppedAndOthersAreUnaffected() {
        Keys k = Keys.fresh();
        long t = now() - 5000;
        int base = ("[\"EVENT\"," + k.note(t, "").json() + "]").length();
        List<Event> bulky = new java.util.ArrayList<>();
        for (int i = 0; i < 250; i++) {
            bulky.add(k.note(t + i, String.format("%05d", i) + "z".repeat(MAX_MESSAGE - base - 100)));
        }
        try (NostrClient writer = NostrClient.connect(node); NostrClient slow = NostrClient.connect(node)) {
            bulky.forEach(writer::publish);
            for (Event e : bulky) {
                writer.expectOk(e.id().hex()).assertAccepted();
            }
            // about 30 MB of answers to a client that reads nothing: far beyond socket buffers and the budget
            slow.pauseReading();
            for (int i = 0; i < 30; i++) {
                slow.req("flood" + i, FilterSpec.of().authors(k));
            }
            MeshnodeProcess.sleep(3000);

            // meanwhile everybody else is served as usual
            try (NostrClient other = NostrClient.connect(node)) {
                assertEquals(2, other.query("others", FilterSpec.of().ids(bulky.get(0).id().hex(), witness.id().hex())).size());
                other.publishAndWait(Keys.fresh().note(now(), "still writable")).assertAccepted();
            }

            // a client that reads again before the node has dropped it may drain its queue and never be dropped: wait
            // until the node has logged the drop (up to 60 s on a loaded machine), not a fixed time
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!node.logText().contains("dropping slow client")) {
                assertTrue(System.nanoTime() < deadline, "the node kept a client that read nothing:\n" + node.logTail(30));
                MeshnodeProcess.sleep(200);
            }
            slow.resumeReading();
            assertTrue(slow.awaitClosed(Duration.ofSeconds(60)), "the relay kept a client that stopped reading");
            List<JsonNode> got = slow.drain();
            long eoses = got.stream().filter(m -> NostrClient.isVerb(m, "EOSE")).count();
            boolean told = got.stream().anyMatch(m -> NostrClient.isVerb(m, "NOTICE")
                    && m.get(1).asText().startsWith("error: you are reading too slowly"));
            assertTrue(told || String.valueOf(slow.closeReason()).startsWith("1008"),
                    "dropped without the NOTICE or close status 1008: " + slow.state());
            assertTrue(eoses < 30, "all 30 answers were delivered in full, so nothing was dropped");
        }
    }
}
