package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The status page in a real browser (docs/OPERATING.md, "Reading the status page"): a node with two peers, Debian's
 * chromium driven by playwright-core loads {@code GET /mesh/}, sees both peers up by their DIDs, and sees one change
 * state without a reload when that peer is stopped; screenshots land in target/it-artifacts. Also: the page, its
 * assets and its stream follow the access rule of {@code /mesh/status}, and open streams are bounded.
 */
class StatusPageIT {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final int MAX_STREAMS = 2;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void thePageShowsBothPeersUpAndUpdatesLiveWhenOneStops() throws Exception {
        if (!Files.isExecutable(CHROMIUM)) {
            Assumptions.abort("chromium is not at " + CHROMIUM + " (apt-get install chromium; .ci/run does): the"
                    + " status page's browser test cannot run");
        }
        Path js = NodeJs.withPlaywright("status-page.mjs");
        Path shots = MeshnodeProcess.targetDir().resolve("it-artifacts");
        Files.createDirectories(shots);
        Files.deleteIfExists(shots.resolve("status-page.png"));
        try (MeshnodeProcess b = MeshnodeProcess.start("page-b"); MeshnodeProcess c = MeshnodeProcess.start("page-c")) {
            String bDid = PeeringIT.did(b);
            String cDid = PeeringIT.did(c);
            try (MeshnodeProcess a = MeshnodeProcess.start("page-a", Map.of(
                    "FLEETMESH_PEERS", bDid + "@" + PeeringIT.mesh(b) + "," + cDid + "@" + PeeringIT.mesh(c),
                    "FLEETMESH_STATUS_MAX_STREAMS", Integer.toString(MAX_STREAMS),
                    "FLEETMESH_STATUS_SAMPLE_INTERVAL", "1s",
                    // reachable on the host's own address too, where /mesh/status needs a token
                    "QUARKUS_HTTP_HOST", "0.0.0.0"))) {
                String aDid = PeeringIT.did(a);
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                PeeringIT.awaitLinked(a, aDid, c, cDid);

                Path err = MeshnodeProcess.outputFile("status-page-", ".err");
                Process browser = new ProcessBuilder("node", "status-page.mjs", a.httpUri().resolve("/mesh/").toString(),
                        shots.toString(), bDid, cDid).directory(js.toFile()).redirectError(err.toFile()).start();
                try (BufferedReader out = new BufferedReader(
                        new InputStreamReader(browser.getInputStream(), StandardCharsets.UTF_8));
                        Writer in = new java.io.OutputStreamWriter(browser.getOutputStream(), StandardCharsets.UTF_8)) {
                    String up = out.readLine();
                    assertTrue(up != null && up.startsWith("UP "), "the browser did not see both peers up: " + up
                            + "\n" + browserErrors(browser, err) + "\n" + a.logTail(30));
                    c.stop();
                    in.write("STOPPED\n");
                    in.flush();
                    String changed = out.readLine();
                    assertTrue(changed != null && changed.startsWith("CHANGED "),
                            "the page did not show the stopped peer change state: " + changed + "\n"
                                    + browserErrors(browser, err) + "\n" + PeeringIT.status(a));
                    String shown = changed.substring("CHANGED ".length());
                    assertTrue(List.of("down", "connecting").contains(shown), "shown: " + shown);
                } finally {
                    if (!browser.waitFor(60, TimeUnit.SECONDS)) {
                        browser.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
                assertEquals(0, browser.exitValue(), browserErrors(browser, err));
                assertTrue(Files.size(shots.resolve("status-page.png")) > 10_000, "a screenshot was kept");
                // the node's own document agrees with what the page showed
                JsonNode gone = PeeringIT.peer(PeeringIT.status(a), cDid).orElseThrow();
                assertTrue(!gone.path("state").asText().equals("up"), gone.toString());
                assertEquals("up", PeeringIT.peer(PeeringIT.status(a), bDid).orElseThrow().path("state").asText());

                openStreamsAreBoundedWithAClearRefusal(a);
                thePageFollowsTheAccessRuleOfStatus(a);
            }
        }
    }

    private static String browserErrors(Process browser, Path err) {
        try {
            browser.waitFor(5, TimeUnit.SECONDS);
            return "browser (" + err + "):\n" + Files.readString(err);
        } catch (Exception e) {
            return "(the browser's stderr is in " + err + ": " + e + ")";
        }
    }

    /** {@code MAX_STREAMS} streams open; one more is 503 with the reason; when one ends, a new one gets in. */
    private static void openStreamsAreBoundedWithAClearRefusal(MeshnodeProcess a) throws Exception {
        URI stream = a.httpUri().resolve("/mesh/status/stream");
        List<InputStream> open = new ArrayList<>();
        try {
            // the browser's stream ends with the browser; its slot comes back once the node sees the close
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (open.size() < MAX_STREAMS) {
                HttpResponse<InputStream> r = get(stream, null);
                if (r.statusCode() == 200) {
                    assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"),
                            r.headers().toString());
                    assertTrue(firstSnapshot(r.body()).path("status").path("did").asText().startsWith("did:peer:"));
                    open.add(r.body());
                } else {
                    assertEquals(503, r.statusCode());
                    r.body().close();
                    assertTrue(System.nanoTime() < deadline, "a stream slot was never given back");
                    MeshnodeProcess.sleep(200);
                }
            }
            HttpResponse<InputStream> refused = get(stream, null);
            String body = new String(refused.body().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(503, refused.statusCode(), body);
            assertTrue(body.contains("busy: " + MAX_STREAMS + " status streams are open"), body);
            assertTrue(body.contains("fleetmesh.status.max-streams"), body);
            assertEquals(Optional.of("5"), refused.headers().firstValue("retry-after"));

            open.remove(0).close();
            deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                HttpResponse<InputStream> again = get(stream, null);
                if (again.statusCode() == 200) {
                    assertTrue(firstSnapshot(again.body()).has("rates"));
                    open.add(again.body());
                    break;
                }
                again.body().close();
                assertTrue(System.nanoTime() < deadline, "the closed stream's slot was never given back");
                MeshnodeProcess.sleep(200);
            }
            HttpResponse<InputStream> stillRefused = get(stream, null);
            stillRefused.body().close();
            assertEquals(503, stillRefused.statusCode(), "the bound holds after a slot was reused");
        } finally {
            for (InputStream s : open) {
                s.close();
            }
        }
    }

    /** From an address that is not loopback: 401 as /mesh/status without a token, the page with one. */
    private static void thePageFollowsTheAccessRuleOfStatus(MeshnodeProcess a) throws Exception {
        java.util.Optional<java.net.InetAddress> own = MeshnodeProcess.nonLoopbackAddress();
        Assumptions.assumeTrue(own.isPresent(), "this host has no address but loopback");
        {
            String base = "http://" + own.get().getHostAddress() + ":" + a.port();
            HttpResponse<String> status = PeeringIT.send(HttpRequest.newBuilder(URI.create(base + "/mesh/status")).GET());
            assertEquals(401, status.statusCode(), status.body());
            for (String path : List.of("/mesh/", "/mesh/page.js", "/mesh/page.css", "/mesh/status/stream")) {
                HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(URI.create(base + path)).GET());
                assertEquals(401, r.statusCode(), path + ": " + r.body());
                assertEquals(status.body(), r.body(), path + " refuses as /mesh/status does");
                assertEquals(Optional.of("Bearer"), r.headers().firstValue("www-authenticate"), path);
            }
            String token = PeeringIT.token(a, "admin:read");
            HttpResponse<String> page = PeeringIT.send(HttpRequest.newBuilder(URI.create(base + "/mesh/"))
                    .header("Authorization", "Bearer " + token).GET());
            assertEquals(200, page.statusCode(), page.body());
            assertTrue(page.body().contains("<script src=\"page.js\""), page.body());
            assertTrue(page.headers().firstValue("content-security-policy").orElse("").contains("default-src 'none'"));
            HttpResponse<InputStream> stream = get(URI.create(base + "/mesh/status/stream"), token);
            try (InputStream body = stream.body()) {
                assertEquals(200, stream.statusCode());
                assertEquals(PeeringIT.did(a), firstSnapshot(body).path("status").path("did").asText());
            }
            HttpResponse<String> forged = PeeringIT.send(HttpRequest.newBuilder(URI.create(base + "/mesh/"))
                    .header("Authorization", "Bearer " + token.substring(0, token.length() - 4) + "AAAA").GET());
            assertTrue(forged.statusCode() == 401 || forged.statusCode() == 403, forged.body());
        }
    }

    /**
     * A stream lasts {@code fleetmesh.status.stream-max-age}: a reader sees it end (its EventSource opens another), and
     * a client that never reads holds its slot no longer than that.
     */
    @Test
    void aStreamEndsAtItsMaximumAgeAndGivesItsSlotBackEvenUnread() throws Exception {
        try (MeshnodeProcess d = MeshnodeProcess.start("page-d", Map.of("FLEETMESH_STATUS_MAX_STREAMS", "1",
                "FLEETMESH_STATUS_STREAM_MAX_AGE", "4s"))) {
            URI stream = d.httpUri().resolve("/mesh/status/stream");
            // a reader: the stream ends by itself, after several snapshots, with its connection
            long t0 = System.nanoTime();
            HttpResponse<InputStream> read = get(stream, null);
            assertEquals(200, read.statusCode());
            assertEquals(Optional.of("close"), read.headers().firstValue("connection"));
            String all = new String(read.body().readAllBytes(), StandardCharsets.UTF_8);
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            assertTrue(took >= 3, "ended after " + took + " s, before its age");
            assertTrue(all.split("event: status\n", -1).length - 1 >= 2, all.length() + " chars: " + all.substring(0,
                    Math.min(200, all.length())));
            // a client that never reads past the status line: its slot is held, then given back at its age
            java.net.Socket silent = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            try {
                while (silent == null) {
                    java.net.Socket s = new java.net.Socket();
                    s.setReceiveBufferSize(4096);
                    s.connect(new java.net.InetSocketAddress("127.0.0.1", d.port()));
                    s.getOutputStream().write(("GET /mesh/status/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    String status = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
                    if (status.equals("HTTP/1.1 200")) {
                        silent = s;
                    } else {
                        s.close(); // the reader's slot comes back once the node has seen its end
                        assertTrue(System.nanoTime() < deadline, "the reader's slot was never given back: " + status);
                        MeshnodeProcess.sleep(200);
                    }
                }
                HttpResponse<InputStream> refused = get(stream, null);
                refused.body().close();
                assertEquals(503, refused.statusCode(), "the silent client holds the one slot");
                deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (true) {
                    HttpResponse<InputStream> again = get(stream, null);
                    again.body().close();
                    if (again.statusCode() == 200) {
                        break;
                    }
                    assertTrue(System.nanoTime() < deadline, "the silent client's slot was never given back");
                    MeshnodeProcess.sleep(250);
                }
            } finally {
                if (silent != null) {
                    silent.close();
                }
            }
        }
    }

    private static HttpResponse<InputStream> get(URI uri, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).GET();
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    /** Reads server-sent events up to the first {@code status} event and returns its data. */
    static JsonNode firstSnapshot(InputStream body) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        String event = null;
        StringBuilder data = new StringBuilder();
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            if (line.isEmpty()) {
                if ("status".equals(event)) {
                    return NostrClient.tree(data.toString());
                }
                event = null;
                data.setLength(0);
            } else if (line.startsWith("event: ")) {
                event = line.substring(7);
            } else if (line.startsWith("data: ")) {
                data.append(line, 6, line.length());
            }
        }
        throw new AssertionError("the stream ended before a status event");
    }
}
