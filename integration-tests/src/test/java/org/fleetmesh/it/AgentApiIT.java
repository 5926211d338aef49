package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The agent API on a running node (docs/spec/compute-agent.md): a job stored, submitted, followed and its result
 * fetched over HTTP with a compute:run token; the token's refusals; the body bounds; and the OpenAPI document the
 * node serves lists exactly what answers under /mesh/compute/.
 */
class AgentApiIT {
    static final int MAX_BLOB = 65_536;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static MeshnodeProcess node;
    static String token;

    @BeforeAll
    static void start() throws Exception {
        node = MeshnodeProcess.start("agent-api", Map.of("FLEETMESH_COMPUTE_AGENT_MAX_BLOB_BYTES",
                Integer.toString(MAX_BLOB), "FLEETMESH_COMPUTE_MARKET_QUEUE", "2"));
        token = token("--right", "compute:run", "--fuel-limit", "100000000");
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    static String token(String... rights) throws Exception {
        String[] args = new String[2 + rights.length];
        args[0] = "token";
        args[1] = "issue";
        System.arraycopy(rights, 0, args, 2, rights.length);
        Launcher.Run r = Launcher.run(node.dataDir(), null, args);
        assertEquals(0, r.exit(), r.stderr());
        return r.stdout().strip();
    }

    static byte[] module(String name) throws Exception {
        try (InputStream in = AgentApiIT.class.getResourceAsStream("/wasm/" + name)) {
            return in.readAllBytes();
        }
    }

    static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    static HttpResponse<String> call(String method, String path, String bearer, HttpRequest.BodyPublisher body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(node.httpUri().resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : body);
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path, e);
        }
    }

    static String putBlob(byte[] bytes) {
        HttpResponse<String> r = call("PUT", "/mesh/compute/blobs", token, HttpRequest.BodyPublishers.ofByteArray(bytes));
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body()).path("sha256").asText();
    }

    static JsonNode submit(String json) {
        HttpResponse<String> r = call("POST", "/mesh/compute/jobs", token, HttpRequest.BodyPublishers.ofString(json));
        assertEquals(201, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    static JsonNode awaitEnded(String id) {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            HttpResponse<String> r = call("GET", "/mesh/compute/jobs/" + id, token, null);
            assertEquals(200, r.statusCode(), r.body());
            JsonNode v = NostrClient.tree(r.body());
            String state = v.path("state").asText();
            if (List.of("done", "refused", "failed", "expired").contains(state)) {
                return v;
            }
            assertTrue(System.nanoTime() < until, "job " + id + " still " + state);
            MeshnodeProcess.sleep(100);
        }
    }

    @Test
    void localJobIsStoredSubmittedFollowedAndItsResultFetched() throws Exception {
        byte[] upper = module("upper.wasm");
        String moduleHash = putBlob(upper);
        assertEquals(sha256(upper), moduleHash);
        String input = putBlob("hello, agent".getBytes(StandardCharsets.UTF_8));
        JsonNode view = submit("{\"worker\":\"local\",\"module\":\"" + moduleHash + "\",\"input\":\"" + input
                + "\",\"fuel_limit\":10000000,\"memory_pages\":32}");
        String id = view.path("id").asText();
        assertTrue(id.matches("[0-9a-f]{64}"), view.toString());

        JsonNode ended = awaitEnded(id);
        assertEquals("done", ended.path("state").asText(), ended.toString());
        HttpResponse<String> r = call("GET", "/mesh/compute/jobs/" + id + "/result", token, null);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode res = NostrClient.tree(r.body());
        byte[] stdout = Base64.getDecoder().decode(res.path("stdout").asText());
        assertEquals("HELLO, AGENT", new String(stdout, StandardCharsets.UTF_8));
        assertEquals(0, res.path("exit_code").asInt());
        assertEquals(moduleHash, res.path("module_hash").asText());
        assertEquals(input, res.path("input_digest").asText());
        assertEquals(sha256(stdout), res.path("output_digest").asText());
        assertTrue(res.path("fuel_used").asLong() > 0, res.toString());

        // the same spec again: the same fuel (deterministic)
        String again = submit("{\"worker\":\"local\",\"module\":\"" + moduleHash + "\",\"input\":\"" + input
                + "\",\"fuel_limit\":10000000,\"memory_pages\":32}").path("id").asText();
        awaitEnded(again);
        JsonNode res2 = NostrClient.tree(call("GET", "/mesh/compute/jobs/" + again + "/result", token, null).body());
        assertEquals(res.path("fuel_used").asLong(), res2.path("fuel_used").asLong());
        assertEquals(res.path("output_digest").asText(), res2.path("output_digest").asText());

        JsonNode list = NostrClient.tree(call("GET", "/mesh/compute/jobs", token, null).body()).path("jobs");
        List<String> ids = new ArrayList<>();
        list.forEach(j -> ids.add(j.path("id").asText()));
        assertTrue(ids.contains(id) && ids.contains(again), list.toString());
    }

    @Test
    void aJobAndItsBlobsStayWithItsTokenAcrossARestartOfTheNode() throws Exception {
        String upper = putBlob(module("upper.wasm"));
        String input = putBlob("before the restart".getBytes(StandardCharsets.UTF_8));
        String id = submit("{\"worker\":\"local\",\"module\":\"" + upper + "\",\"input\":\"" + input
                + "\",\"fuel_limit\":10000000,\"memory_pages\":32}").path("id").asText();
        assertEquals("done", awaitEnded(id).path("state").asText());
        String other = token("--right", "compute:run", "--fuel-limit", "100000000");
        node.stop(); // SIGTERM
        node.startAgain();
        HttpResponse<String> v = call("GET", "/mesh/compute/jobs/" + id, token, null);
        assertEquals(200, v.statusCode(), v.body());
        assertEquals("done", NostrClient.tree(v.body()).path("state").asText());
        HttpResponse<String> r = call("GET", "/mesh/compute/jobs/" + id + "/result", token, null);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("BEFORE THE RESTART", new String(Base64.getDecoder().decode(NostrClient.tree(r.body())
                .path("stdout").asText()), StandardCharsets.UTF_8));
        assertTrue(call("GET", "/mesh/compute/jobs", token, null).body().contains(id));
        assertEquals(404, call("GET", "/mesh/compute/jobs/" + id, other, null).statusCode(),
                "still only to the token that submitted it");
        // the blobs are kept on disk: the same module and input run again without being PUT again
        String again = submit("{\"worker\":\"local\",\"module\":\"" + upper + "\",\"input\":\"" + input
                + "\",\"fuel_limit\":10000000,\"memory_pages\":32}").path("id").asText();
        assertEquals("done", awaitEnded(again).path("state").asText());
    }

    @Test
    void jobThatRunsOutOfFuelHasNoResultAndSaysWhy() throws Exception {
        String spin = putBlob(module("spin.wasm"));
        String id = submit("{\"worker\":\"local\",\"module\":\"" + spin + "\",\"fuel_limit\":100000}").path("id")
                .asText();
        JsonNode ended = awaitEnded(id);
        assertEquals("failed", ended.path("state").asText(), ended.toString());
        assertTrue(ended.path("error").asText().contains("fuel exhausted"), ended.toString());
        HttpResponse<String> r = call("GET", "/mesh/compute/jobs/" + id + "/result", token, null);
        assertEquals(410, r.statusCode(), r.body());
        assertTrue(r.body().contains("fuel exhausted"), r.body());
    }

    /**
     * A local job runs on the market's bounded job pool, not in the request: its POST answers 201 as it starts, another
     * token's calls are answered while it runs (they used to wait behind every job on the event loop's ordered worker
     * queue), and past the pool's queue (2 here) a submission is refused 429 busy with nothing kept.
     */
    @Test
    void localJobsRunOnTheBoundedPoolWhileOtherCallsAreAnswered() throws Exception {
        String a = token("--right", "compute:run", "--fuel-limit", "3000000000");
        String b = token("--right", "compute:run", "--fuel-limit", "1000");
        String spin = putBlob(module("spin.wasm"));
        String job = "{\"worker\":\"local\",\"module\":\"" + spin + "\",\"fuel_limit\":1000000000}";
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // one running, two waiting
            HttpResponse<String> r = call("POST", "/mesh/compute/jobs", a, HttpRequest.BodyPublishers.ofString(job));
            assertEquals(201, r.statusCode(), r.body());
            assertEquals("running", NostrClient.tree(r.body()).path("state").asText(), r.body());
            ids.add(NostrClient.tree(r.body()).path("id").asText());
        }
        HttpResponse<String> busy = call("POST", "/mesh/compute/jobs", a, HttpRequest.BodyPublishers.ofString(job));
        assertEquals(429, busy.statusCode(), busy.body());
        assertTrue(NostrClient.tree(busy.body()).path("error").asText().startsWith("busy:"), busy.body());
        assertEquals(3, NostrClient.tree(call("GET", "/mesh/compute/jobs", a, null).body()).path("jobs").size(),
                "the refused one is not kept");

        HttpResponse<String> other = call("GET", "/mesh/compute/jobs", b, null);
        assertEquals(200, other.statusCode(), other.body());
        HttpResponse<String> last = call("GET", "/mesh/compute/jobs/" + ids.get(2), a, null);
        assertEquals("running", NostrClient.tree(last.body()).path("state").asText(),
                "another token was answered while the jobs before it had not ended: " + last.body());
        for (String id : ids) {
            HttpResponse<String> r = call("GET", "/mesh/compute/jobs/" + id, a, null);
            long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!NostrClient.tree(r.body()).path("state").asText().equals("failed")) {
                assertTrue(System.nanoTime() < until, r.body());
                MeshnodeProcess.sleep(200);
                r = call("GET", "/mesh/compute/jobs/" + id, a, null);
            }
            assertTrue(r.body().contains("fuel exhausted"), r.body());
        }
    }

    /**
     * {@code ./meshnode token revoke} while the node runs: the token is refused revoked within a few seconds, on the
     * agent API and on an admin route alike, another token is not; revoking it again says so.
     */
    @Test
    void aTokenRevokedWhileTheNodeRunsIsRefused() throws Exception {
        String doomed = token("--right", "compute:run", "--right", "admin:read", "--fuel-limit", "1000");
        String kept = token("--right", "compute:run", "--fuel-limit", "1000");
        assertEquals(200, call("GET", "/mesh/compute/offers", doomed, null).statusCode());
        Launcher.Run r = Launcher.run(node.dataDir(), null, "token", "revoke", doomed, "--note", "a test");
        assertEquals(0, r.exit(), r.stderr());
        assertTrue(r.stdout().strip().matches("[0-9a-f]{128}"), r.stdout());
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        HttpResponse<String> refused = call("GET", "/mesh/compute/offers", doomed, null);
        while (refused.statusCode() == 200 && System.nanoTime() < until) {
            MeshnodeProcess.sleep(200);
            refused = call("GET", "/mesh/compute/offers", doomed, null);
        }
        assertEquals(401, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("revoked"), refused.body());
        HttpResponse<String> admin = call("GET", "/mesh/peers", doomed, null);
        assertEquals(401, admin.statusCode(), admin.body());
        assertTrue(admin.body().contains("revoked"), admin.body());
        assertEquals(200, call("GET", "/mesh/compute/offers", kept, null).statusCode());
        // two Authorization headers (one a proxy's, say): neither is taken
        for (String path : List.of("/mesh/compute/offers", "/mesh/peers")) {
            HttpResponse<String> two = HTTP.send(HttpRequest.newBuilder(node.httpUri().resolve(path))
                    .header("Authorization", "Bearer " + kept).header("Authorization", "Bearer " + doomed).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(400, two.statusCode(), path + " " + two.body());
            assertTrue(two.body().contains("more than one Authorization header"), two.body());
        }
        Launcher.Run again = Launcher.run(node.dataDir(), null, "token", "revoke", doomed);
        assertEquals(0, again.exit(), again.stderr());
        assertTrue(again.stdout().contains("already revoked"), again.stdout());
    }

    /** A GET over a fresh connection from {@code from} (a loopback address): the status line and headers, then the body. */
    static String rawGet(String from, String path, String bearer) throws Exception {
        try (java.net.Socket s = new java.net.Socket()) {
            s.bind(new java.net.InetSocketAddress(from, 0));
            s.connect(new java.net.InetSocketAddress("127.0.0.1", node.port()));
            s.setSoTimeout(30_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + bearer
                    + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Test
    void anAddressWhoseTokensKeepBeingRefusedIsToldToWaitWhileOthersAreServed() throws Exception {
        // a token of this node with its signature altered: each check of it costs signature verification
        String forged = token.substring(0, token.length() - 8) + (token.endsWith("AAAAAAAA") ? "BBBBBBBB" : "AAAAAAAA");
        int refused = 0;
        String limited = null;
        for (int i = 0; i < 60 && limited == null; i++) {
            String r = rawGet("127.0.0.3", "/mesh/compute/offers", forged);
            if (r.startsWith("HTTP/1.1 401")) {
                refused++;
            } else {
                assertTrue(r.startsWith("HTTP/1.1 429"), r);
                limited = r;
            }
        }
        assertTrue(limited != null, "60 forged tokens from one address were all checked");
        assertTrue(refused >= 30 && refused <= 40, "checked before the limit: " + refused);
        assertTrue(limited.contains("rate-limited: too many refused tokens from your address"), limited);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)\r\nRetry-After: (\\d+)\r\n").matcher(limited);
        assertTrue(m.find() && Integer.parseInt(m.group(1)) >= 1, limited);
        // the address waits whatever it sends, here the admin routes too; another address is served meanwhile
        assertTrue(rawGet("127.0.0.3", "/mesh/compute/offers", token).startsWith("HTTP/1.1 429"));
        assertTrue(rawGet("127.0.0.3", "/mesh/status", token("--right", "admin:read")).startsWith("HTTP/1.1 429"));
        assertTrue(rawGet("127.0.0.4", "/mesh/compute/offers", token).startsWith("HTTP/1.1 200"));
        assertTrue(rawGet("127.0.0.4", "/mesh/compute/offers", forged).startsWith("HTTP/1.1 401"));
        assertTrue(Metrics.scrape(node).value("fleetmesh_token_checks_refused_total", "why", "rate-limited") >= 2);
    }

    @Test
    void tokensAreChecked() throws Exception {
        HttpResponse<String> none = call("GET", "/mesh/compute/offers", null, null);
        assertEquals(401, none.statusCode(), none.body());
        assertEquals("Bearer", none.headers().firstValue("WWW-Authenticate").orElse(""));
        assertTrue(NostrClient.tree(none.body()).path("error").asText().contains("compute:run"), none.body());

        HttpResponse<String> admin = call("GET", "/mesh/compute/offers", token("--right", "admin:read"), null);
        assertEquals(403, admin.statusCode(), admin.body());
        assertTrue(admin.body().contains("right-not-granted"), admin.body());

        String small = token("--right", "compute:run", "--fuel-limit", "1000");
        String module = putBlob(module("upper.wasm"));
        HttpResponse<String> over = call("POST", "/mesh/compute/jobs", small, HttpRequest.BodyPublishers.ofString(
                "{\"worker\":\"local\",\"module\":\"" + module + "\",\"fuel_limit\":1001}"));
        assertEquals(403, over.statusCode(), over.body());
        assertTrue(over.body().contains("fuel-over-limit"), over.body());
        assertEquals(0, NostrClient.tree(call("GET", "/mesh/compute/jobs", small, null).body()).path("jobs").size(),
                "nothing was submitted");

        // another token does not see this token's jobs
        String id = submit("{\"worker\":\"local\",\"module\":\"" + module + "\",\"fuel_limit\":1000000}").path("id")
                .asText();
        assertEquals(404, call("GET", "/mesh/compute/jobs/" + id, small, null).statusCode());
        assertEquals(200, call("GET", "/mesh/compute/jobs/" + id, token, null).statusCode());
    }

    @Test
    void bodiesAreBoundedAndTheTokenComesFirst() {
        byte[] big = new byte[MAX_BLOB + 1];
        HttpResponse<String> stranger = call("PUT", "/mesh/compute/blobs", null,
                HttpRequest.BodyPublishers.ofByteArray(big));
        assertEquals(401, stranger.statusCode(), "no token: refused before the body is read");
        HttpResponse<String> tooBig = call("PUT", "/mesh/compute/blobs", token,
                HttpRequest.BodyPublishers.ofByteArray(big));
        assertEquals(413, tooBig.statusCode(), tooBig.body());
        assertTrue(NostrClient.tree(tooBig.body()).path("error").asText().startsWith("too large"), tooBig.body());
        assertEquals(200, call("PUT", "/mesh/compute/blobs", token,
                HttpRequest.BodyPublishers.ofByteArray(new byte[MAX_BLOB])).statusCode(), "at the bound: taken");
        // without Content-Length (chunked) the bound holds as the bytes arrive
        HttpResponse<String> chunked = call("PUT", "/mesh/compute/blobs", token, HttpRequest.BodyPublishers
                .ofInputStream(() -> new java.io.ByteArrayInputStream(big)));
        assertEquals(413, chunked.statusCode(), chunked.body());
        assertEquals(200, call("PUT", "/mesh/compute/blobs", token, HttpRequest.BodyPublishers
                .ofInputStream(() -> new java.io.ByteArrayInputStream(new byte[100]))).statusCode(), "chunked, small");

        HttpResponse<String> bigJson = call("POST", "/mesh/compute/jobs", token,
                HttpRequest.BodyPublishers.ofString("{\"worker\":\"" + "x".repeat(70_000) + "\"}"));
        assertEquals(413, bigJson.statusCode(), bigJson.body());
        HttpResponse<String> bad = call("POST", "/mesh/compute/jobs", token,
                HttpRequest.BodyPublishers.ofString("{\"worker\":\"local\",\"module\":\"nope\",\"fuel_limit\":1}"));
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("module"), bad.body());
    }

    private static final Pattern PATH = Pattern.compile("^  (/\\S+):\\s*$");
    private static final Pattern METHOD = Pattern.compile("^    (get|put|post|delete|patch):\\s*$");

    @Test
    void everyDocumentedOperationAnswersAndNothingElseIsServed() throws Exception {
        HttpResponse<String> doc = call("GET", "/mesh/compute/openapi.yaml", null, null);
        assertEquals(200, doc.statusCode());
        assertTrue(doc.headers().firstValue("Content-Type").orElse("").contains("yaml"));
        List<String[]> ops = new ArrayList<>();
        boolean inPaths = false;
        String path = null;
        for (String line : doc.body().split("\n")) {
            if (!line.startsWith(" ") && !line.isBlank()) {
                inPaths = line.startsWith("paths:");
                continue;
            }
            Matcher p = PATH.matcher(line);
            Matcher m = METHOD.matcher(line);
            if (inPaths && p.matches()) {
                path = p.group(1);
            } else if (inPaths && m.matches()) {
                ops.add(new String[] {m.group(1).toUpperCase(java.util.Locale.ROOT), path});
            }
        }
        assertEquals(8, ops.size(), "the document's operations");
        String module = putBlob(module("upper.wasm"));
        String id = submit("{\"worker\":\"local\",\"module\":\"" + module + "\",\"fuel_limit\":1000000}").path("id")
                .asText();
        awaitEnded(id);
        for (String[] op : ops) {
            String p = op[1].replace("{id}", id);
            HttpRequest.BodyPublisher body = op[0].equals("GET") ? null
                    : HttpRequest.BodyPublishers.ofString(p.endsWith("/jobs")
                            ? "{\"worker\":\"local\",\"module\":\"" + module + "\",\"fuel_limit\":1000}" : "x");
            HttpResponse<String> r = call(op[0], p, token, body);
            assertNotEquals(404, r.statusCode(), op[0] + " " + p + ": " + r.body());
            assertNotEquals(405, r.statusCode(), op[0] + " " + p);
            assertTrue(r.statusCode() < 500, op[0] + " " + p + ": " + r.statusCode() + " " + r.body());
        }
        for (String[] undocumented : new String[][] {{"GET", "/mesh/compute/"}, {"GET", "/mesh/compute/blobs"},
                {"DELETE", "/mesh/compute/jobs/" + id}, {"GET", "/mesh/compute/jobs/" + id + "/key"},
                {"GET", "/mesh/compute/openapi.json"}, {"POST", "/mesh/compute/offers"}}) {
            HttpResponse<String> r = call(undocumented[0], undocumented[1], token,
                    undocumented[0].equals("GET") ? null : HttpRequest.BodyPublishers.ofString("{}"));
            assertTrue(r.statusCode() == 404 || r.statusCode() == 405,
                    undocumented[0] + " " + undocumented[1] + " is not documented, yet answered " + r.statusCode());
        }
    }

    static URI uri(String path) {
        return node.httpUri().resolve(path);
    }
}
