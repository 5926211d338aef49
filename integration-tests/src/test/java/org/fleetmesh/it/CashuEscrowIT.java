package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * compute/1.0 over the Cashu rail (docs/spec/settlement-cashu.md) between meshnode processes on one SIMULATED mint
 * ({@link CashuMintSim}, input fee 100 ppk) and no Lightning: the buyer's wallet is funded with
 * {@code ./meshnode cashu mint}; a job is bought end to end (the worker's NUT-18 request, the buyer's proofs locked by
 * a NUT-14 HTLC to the payment hash, delivered by POST, claimed with k, k learned from the mint's NUT-07 witness);
 * a worker that withholds k leaves the buyer's proofs to come back after the locktime; the pay endpoint refuses
 * what it must without storing anything; readiness follows the mint; a buyer killed between delivery and the claim
 * learns k after its restart and pays once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CashuEscrowIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> FINAL = List.of("done", "refused", "failed", "expired");
    /** Every job costs 5 sat: no per-fuel price, a minimum of 5000 msat (a Cashu sat rail takes whole sats). */
    static final long PRICE_SAT = 5;
    /** The mint's input fee: 100 ppk, so ceil(n × 0.1) sat for n ≤ 10 inputs is 1 sat a swap. */
    static final String FEE_PPK = "100";

    static CashuMintSim mint;
    static String railId;
    static final Map<String, Node> nodes = new HashMap<>();
    static Node buyer;
    static Node worker;
    static Node withholder;

    /** A node: its process (replaced by a restart), its environment and a compute:run token. */
    static final class Node {
        final String name;
        MeshnodeProcess p;
        Map<String, String> env;
        String token;

        Node(String name, MeshnodeProcess p, Map<String, String> env) {
            this.name = name;
            this.p = p;
            this.env = env;
        }

        String did() {
            return PeeringIT.did(p);
        }
    }

    /** A private copy of the packaged node: others may repackage the checkout's while this runs. */
    static Path app;
    static String appProperty;

    @BeforeAll
    static void start() throws Exception {
        Path dir = MeshnodeProcess.newDataDir("cashu-escrow");
        app = copy(MeshnodeProcess.appDir(), dir.resolve("quarkus-app"));
        appProperty = System.getProperty("meshnode.app.dir");
        System.setProperty("meshnode.app.dir", app.toString());
        mint = CashuMintSim.start(dir.resolve("mint.json"), "--fee-ppk", FEE_PPK);
        railId = "cashu:" + mint.url();
        worker = node("ce-worker");
        // k withheld, and the whole escrow short: the request lives 8 s, the HTLC 4 s more, so the locktime passes soon
        withholder = node("ce-withholder", "FLEETMESH_COMPUTE_MARKET_TEST_WITHHOLD_KEY", "true",
                "FLEETMESH_COMPUTE_MARKET_INVOICE_EXPIRY", "8s", "FLEETMESH_CASHU_CLAIM_WINDOW", "4s",
                "FLEETMESH_CASHU_CLAIM_MARGIN", "1s", "FLEETMESH_CASHU_TICK", "500ms");
        // a payment answers pending after 2 s, so the refund is found by paying again (after the locktime)
        buyer = node("ce-buyer", "FLEETMESH_COMPUTE_MARKET_SELL", "false", "FLEETMESH_CASHU_TICK", "500ms",
                "FLEETMESH_CASHU_PAY_TIMEOUT", "2s");
        JsonNode minted = cashu(buyer, "mint", "200");
        assertEquals(200, minted.path("minted").asLong(), minted.toString());
        link(buyer, worker);
        link(buyer, withholder);
    }

    @AfterAll
    static void stop() throws Exception {
        for (Node n : nodes.values()) {
            n.p.close();
        }
        if (mint != null) {
            mint.close();
        }
        if (appProperty != null) {
            System.setProperty("meshnode.app.dir", appProperty);
        } else {
            System.clearProperty("meshnode.app.dir");
        }
        if (app != null) { // 170 MB a run
            try (var files = Files.walk(app)) {
                for (Path f : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    static Path copy(Path from, Path to) throws Exception {
        try (var files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(f, t);
                }
            }
        }
        return to.toAbsolutePath();
    }

    /** {@code ./meshnode <args>} on the node's data dir, on the copy of the node (never a rebuild of the checkout). */
    static Launcher.Run meshnode(Node n, String... args) throws Exception {
        return Launcher.runIn(MeshnodeProcess.projectRoot(), Map.of("FLEETMESH_DATA_DIR", n.p.dataDir().toString(),
                "FLEETMESH_CASHU_MINT_URL", mint.url(), "MESHNODE_APP", app.toString()), null, args);
    }

    static Node node(String name, String... more) throws Exception {
        Map<String, String> e = Delivered.env("[]");
        e.put("FLEETMESH_CASHU_ENABLED", "true");
        e.put("FLEETMESH_CASHU_MINT_URL", mint.url());
        e.put("FLEETMESH_COMPUTE_MARKET_PRICE_PER_KFUEL", "0");
        e.put("FLEETMESH_COMPUTE_MARKET_MIN_PRICE", Long.toString(PRICE_SAT * 1000));
        for (int i = 0; i + 1 < more.length; i += 2) {
            e.put(more[i], more[i + 1]);
        }
        Node n = new Node(name, MeshnodeProcess.start(name, e), e);
        nodes.put(name, n);
        Launcher.Run r = meshnode(n, "token", "issue", "--right", "compute:run", "--fuel-limit", "10000000000");
        assertEquals(0, r.exit(), r.stderr());
        n.token = r.stdout().strip();
        return n;
    }

    /** SIGKILL, then the node again on its data dir and port with {@code env} changed. */
    static void killAndRestart(Node n, String... env) {
        n.p.kill();
        restart(n, env);
    }

    static void restart(Node n, String... env) {
        Map<String, String> e = new HashMap<>(n.env);
        for (int i = 0; i + 1 < env.length; i += 2) {
            e.put(env[i], env[i + 1]);
        }
        n.p = MeshnodeProcess.startOn(n.name, n.p.dataDir(), e, n.p.port());
        n.env = e;
    }

    static void link(Node b, Node w) throws Exception {
        String bDid = b.did();
        String wDid = w.did();
        Launcher.Run t = meshnode(b, "token", "issue", "--right", "admin:write");
        assertEquals(0, t.exit(), t.stderr());
        HttpResponse<String> r = PeeringIT.addPeer(b.p, t.stdout().strip(), wDid, PeeringIT.mesh(w.p));
        assertEquals(201, r.statusCode(), r.body());
        PeeringIT.awaitLinked(b.p, bDid, w.p, wDid);
        await(() -> offers(b).findValues("worker").stream().anyMatch(x -> x.asText().equals(wDid)),
                "the worker's offer at the buyer");
    }

    /** {@code ./meshnode cashu <args>} on the node's data dir and mint (the node may be running): its JSON. */
    static JsonNode cashu(Node n, String... args) throws Exception {
        Launcher.Run r = cashuRun(n, args);
        assertEquals(0, r.exit(), "cashu " + String.join(" ", args) + ": " + r.stderr());
        String out = r.stdout();
        return JSON.readTree(out.substring(out.indexOf('{')));
    }

    static Launcher.Run cashuRun(Node n, String... args) throws Exception {
        String[] all = new String[args.length + 1];
        all[0] = "cashu";
        System.arraycopy(args, 0, all, 1, args.length);
        return meshnode(n, all);
    }

    // ---- HTTP ----

    static HttpResponse<String> call(Node n, String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(n.p.httpUri().resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + n.token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path, e);
        }
    }

    static HttpResponse<String> raw(Node n, String method, String path, HttpRequest.BodyPublisher body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(n.p.httpUri().resolve(path)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").method(method, body);
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path, e);
        }
    }

    static String putBlob(Node n, byte[] bytes) {
        HttpRequest.Builder b = HttpRequest.newBuilder(n.p.httpUri().resolve("/mesh/compute/blobs"))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + n.token)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes));
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            return NostrClient.tree(r.body()).path("sha256").asText();
        } catch (Exception e) {
            throw new AssertionError("PUT blob", e);
        }
    }

    static JsonNode offers(Node n) {
        HttpResponse<String> r = call(n, "GET", "/mesh/compute/offers", null);
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    /** A job of upper.wasm on {@code input} bought from {@code w} (the buyer picks the rail): its view. */
    static JsonNode submit(Node w, String input, boolean autoPay) throws Exception {
        String module = putBlob(buyer, ComputeNodes.module("upper.wasm"));
        String in = putBlob(buyer, input.getBytes(StandardCharsets.UTF_8));
        String json = "{\"worker\":\"" + w.did() + "\",\"module\":\"" + module + "\",\"input\":\"" + in
                + "\",\"fuel_limit\":100000000,\"memory_pages\":32,\"max_price_msat\":1000000,\"auto_pay\":" + autoPay
                + "}";
        HttpResponse<String> r = call(buyer, "POST", "/mesh/compute/jobs", json);
        assertEquals(201, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    static JsonNode job(String id) {
        HttpResponse<String> r = call(buyer, "GET", "/mesh/compute/jobs/" + id, null);
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    static JsonNode awaitJob(String id, Predicate<JsonNode> p, String what) {
        long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            JsonNode v = job(id);
            if (p.test(v)) {
                return v;
            }
            assertTrue(System.nanoTime() < until, what + ": job " + id + " is " + v);
            MeshnodeProcess.sleep(50);
        }
    }

    static JsonNode awaitEnded(String id) {
        return awaitJob(id, v -> FINAL.contains(v.path("state").asText()), "ended");
    }

    static String stdout(String id) {
        HttpResponse<String> r = call(buyer, "GET", "/mesh/compute/jobs/" + id + "/result", null);
        assertEquals(200, r.statusCode(), r.body());
        return new String(Base64.getDecoder().decode(NostrClient.tree(r.body()).path("stdout").asText()),
                StandardCharsets.UTF_8);
    }

    /** The {@code cashu} readiness check of a node: {"status", "data"}; null if the answer has none. */
    static JsonNode readiness(Node n) {
        HttpResponse<String> r = raw(n, "GET", "/q/health/ready", HttpRequest.BodyPublishers.noBody());
        for (JsonNode c : NostrClient.tree(r.body()).path("checks")) {
            if (c.path("name").asText().equals("cashu")) {
                return c;
            }
        }
        return null;
    }

    /** The node's spendable Cashu balance (sat), as its readiness check reports it. */
    static long balance(Node n) {
        JsonNode c = readiness(n);
        assertTrue(c != null && c.path("status").asText().equals("UP"), "cashu readiness of " + n.name + ": " + c);
        return c.path("data").path("balance").asLong(-1);
    }

    static void await(java.util.function.BooleanSupplier c, String what) {
        long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < until, "timed out waiting for " + what);
            MeshnodeProcess.sleep(100);
        }
    }

    static String sha256(String hex) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(HexFormat.of().parseHex(hex)));
    }

    // ---- the tests ----

    @Test
    @Order(1)
    void aJobIsBoughtOverCashuAndTheMintsWitnessCarriesK() throws Exception {
        long buyerBefore = balance(buyer);
        long workerBefore = balance(worker);
        JsonNode view = submit(worker, "a job paid in ecash", true);
        String id = view.path("id").asText();
        JsonNode done = awaitEnded(id);
        assertEquals("done", done.path("state").asText(), done.toString());
        assertEquals("A JOB PAID IN ECASH", stdout(id));
        assertEquals(railId, done.path("rail").asText(), "the job is billed on the Cashu rail: " + done);
        assertEquals(PRICE_SAT * 1000, done.path("price_msat").asLong());
        assertTrue(done.path("invoice").asText().startsWith("creqA"), done.toString());

        // the buyer locked 6 sat (4 + 2: the price and the worker's claim fee of ceil(2 × 0.1) = 1) with a swap of
        // its proofs (fee 1); the worker claimed the two proofs into exactly the price
        await(() -> balance(worker) == workerBefore + PRICE_SAT, "the worker's claim");
        assertEquals(buyerBefore - PRICE_SAT - 1 - 1, balance(buyer), "the buyer paid the price and two fees, once");

        // the mint holds k in the witness of the spent HTLC proofs (NUT-07)
        String hash = done.path("payment_hash").asText();
        List<String> ys = new ArrayList<>();
        JsonNode spent = JSON.readTree(Files.readString(mint.stateFile())).path("spent");
        spent.properties().forEach(f -> {
            String w = f.getValue().path("witness").asText("");
            if (!w.isEmpty() && NostrClient.tree(w).has("preimage")) {
                try {
                    if (sha256(NostrClient.tree(w).path("preimage").asText()).equals(hash)) {
                        ys.add(f.getKey());
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        });
        assertEquals(2, ys.size(), "the two locked proofs were spent with k");
        ObjectNode ask = JSON.createObjectNode();
        ys.forEach(ask.putArray("Ys")::add);
        JsonNode states = mint.post("/v1/checkstate", ask.toString()).path("states");
        assertEquals(2, states.size(), states.toString());
        for (JsonNode s : states) {
            assertEquals("SPENT", s.path("state").asText(), s.toString());
            String k = NostrClient.tree(s.path("witness").asText()).path("preimage").asText();
            assertEquals(hash, sha256(k), "SHA-256 of the witness' preimage is the job's payment hash");
        }
    }

    @Test
    @Order(2)
    void thePayEndpointRefusesWhatItMustAndStoresNothing() throws Exception {
        String pay = "/cashu/v1/pay";
        HttpResponse<String> r = raw(worker, "POST", pay, HttpRequest.BodyPublishers.ofString("{not json"));
        assertEquals(400, r.statusCode(), r.body());
        assertEquals("invalid: not a NUT-18 payment payload: the body is not JSON",
                NostrClient.tree(r.body()).path("detail").asText());
        r = raw(worker, "POST", pay, HttpRequest.BodyPublishers.ofString("{\"id\":\"x\",\"proofs\":{\"a\":1}}"));
        assertEquals(400, r.statusCode(), r.body());
        String detail = NostrClient.tree(r.body()).path("detail").asText();
        assertTrue(detail.startsWith("invalid: not a NUT-18 payment payload: \"proofs"), detail);
        assertTrue(!detail.contains("java") && !detail.contains("Payload"), "named by its member, no class: " + detail);
        assertEquals(405, raw(worker, "GET", pay, HttpRequest.BodyPublishers.noBody()).statusCode());
        byte[] big = new byte[256 * 1024 + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        assertEquals(413, raw(worker, "POST", pay, HttpRequest.BodyPublishers.ofByteArray(big)).statusCode());
        r = raw(worker, "POST", pay, HttpRequest.BodyPublishers.ofString("null"));
        assertEquals(400, r.statusCode(), r.body());
        assertEquals("invalid: not a NUT-18 payment payload: the body is null, not an object",
                NostrClient.tree(r.body()).path("detail").asText());
        // a multipart upload is read as a body, never written to a file
        String boundary = "b0undary";
        String form = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n" + "x".repeat(100_000) + "\r\n--" + boundary + "--\r\n";
        r = HTTP.send(HttpRequest.newBuilder(worker.p.httpUri().resolve(pay)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, r.statusCode(), r.body());
        java.nio.file.Path uploads = worker.p.dataDir().resolve("file-uploads");
        assertTrue(!java.nio.file.Files.exists(uploads) || java.nio.file.Files.list(uploads).findAny().isEmpty(),
                "nothing left in " + uploads);
        // a body that does not come in time gives its slot back: 408, and the connection closed
        try (java.net.Socket slow = new java.net.Socket("127.0.0.1", worker.p.port())) {
            slow.setSoTimeout(30_000);
            slow.getOutputStream().write(("POST " + pay + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                    + "\r\nContent-Length: 1000\r\n\r\n{").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            slow.getOutputStream().flush();
            String answer = new String(slow.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
            assertTrue(answer.contains("the payment's body did not arrive within 10 s"), answer);
        }

        // a real open request: a job sealed but not paid
        JsonNode view = submit(worker, "paid by hand", false);
        String id = view.path("id").asText();
        JsonNode sealed = awaitJob(id, v -> v.path("state").asText().equals("sealed"), "sealed");
        String hash = sealed.path("payment_hash").asText();
        String requestId = hash.substring(0, 16); // the worker's NUT-18 request id
        String workerKey = cashu(worker, "key").path("key").asText();
        long locktime = System.currentTimeMillis() / 1000 + 86_400;
        String wrongHash = sha256(hash);

        ArrayNode wrong = proofs(cashuLock(6, wrongHash, workerKey, locktime));
        r = payTo(requestId, wrong);
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("locked to another hash"), r.body());

        ArrayNode unknown = proofs(cashuLock(6, hash, workerKey, locktime));
        r = payTo("00112233aabbccdd", unknown);
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("no open request"), r.body());

        ArrayNode right = unknown;
        ArrayNode noDleq = right.deepCopy();
        noDleq.forEach(p -> ((ObjectNode) p).remove("dleq"));
        r = payTo(requestId, noDleq);
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("DLEQ"), r.body());
        assertEquals("sealed", job(id).path("state").asText());

        // nothing was stored: the same proofs with their DLEQ are accepted, and the job completes on them
        r = payTo(requestId, right);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode done = awaitEnded(id);
        assertEquals("done", done.path("state").asText(), done.toString());
        assertEquals("PAID BY HAND", stdout(id));
    }

    /** {@code cashu lock} on the buyer's wallet: a V3 token of proofs locked by an HTLC. */
    static String cashuLock(long amount, String hash, String to, long locktime) throws Exception {
        Launcher.Run r = cashuRun(buyer, "lock", Long.toString(amount), "--hash", hash, "--to", to, "--locktime",
                Long.toString(locktime), "--v3");
        assertEquals(0, r.exit(), r.stderr());
        return r.stdout().strip();
    }

    /** The proofs of a V3 ({@code cashuA}) token. */
    static ArrayNode proofs(String token) throws Exception {
        assertTrue(token.startsWith("cashuA"), token);
        JsonNode t = JSON.readTree(Base64.getUrlDecoder().decode(token.substring(6).replace('+', '-').replace('/', '_')));
        ArrayNode out = JSON.createArrayNode();
        for (JsonNode e : t.path("token")) {
            e.path("proofs").forEach(out::add);
        }
        assertFalse(out.isEmpty(), t.toString());
        return out;
    }

    static HttpResponse<String> payTo(String requestId, ArrayNode proofs) {
        ObjectNode body = JSON.createObjectNode();
        body.put("id", requestId);
        body.put("mint", mint.url());
        body.put("unit", "sat");
        body.set("proofs", proofs);
        return raw(worker, "POST", "/cashu/v1/pay", HttpRequest.BodyPublishers.ofString(body.toString()));
    }

    @Test
    @Order(3)
    void aWorkerThatWithholdsKLetsTheBuyerRefundAfterTheLocktime() throws Exception {
        long before = balance(buyer);
        JsonNode view = submit(withholder, "withheld", true);
        String id = view.path("id").asText();
        awaitJob(id, v -> v.path("state").asText().equals("paying"), "paying");
        await(() -> PeeringIT.status(withholder.p).path("compute").path("worker_jobs").path("paid").asInt() >= 1,
                "the payment accepted at the worker");
        JsonNode end = awaitEnded(id);
        assertEquals("expired", end.path("state").asText(), end.toString());
        assertEquals(410, call(buyer, "GET", "/mesh/compute/jobs/" + id + "/result", null).statusCode());
        // back: the 6 sat locked, less the lock's swap fee (1) and the refund's (2 inputs: 1)
        await(() -> balance(buyer) == before - 2, "the refund (balance " + balance(buyer) + ", was " + before + ")");
        assertEquals(before - 2, balance(buyer));
    }

    @Test
    @Order(4)
    void readinessFollowsTheMint() throws Exception {
        JsonNode c = readiness(buyer);
        assertEquals("UP", c.path("status").asText(), c.toString());
        assertEquals(railId, c.path("data").path("rail").asText(), c.toString());
        mint.kill();
        try {
            await(() -> {
                JsonNode x = readiness(buyer);
                return x != null && x.path("status").asText().equals("DOWN");
            }, "the cashu check down with the mint");
            assertEquals(503, raw(buyer, "GET", "/q/health/ready", HttpRequest.BodyPublishers.noBody()).statusCode());
        } finally {
            mint.restart();
        }
        await(() -> {
            JsonNode x = readiness(buyer);
            return x != null && x.path("status").asText().equals("UP");
        }, "the cashu check up again");
        assertEquals(200, raw(buyer, "GET", "/q/health/ready", HttpRequest.BodyPublishers.noBody()).statusCode());
    }

    @Test
    @Order(5)
    void aBuyerKilledBeforeItLearnedKLearnsItAfterItsRestartAndPaysOnce() throws Exception {
        killAndRestart(worker, "FLEETMESH_COMPUTE_MARKET_TEST_WITHHOLD_KEY", "true");
        PeeringIT.awaitLinked(buyer.p, buyer.did(), worker.p, worker.did());
        long buyerBefore = balance(buyer);
        long workerBefore = balance(worker);
        int doneBefore = buyerJobs().path("done").asInt();
        JsonNode view = submit(worker, "crash before k", true);
        String id = view.path("id").asText();
        awaitJob(id, v -> v.path("state").asText().equals("paying"), "paying");
        await(() -> PeeringIT.status(worker.p).path("compute").path("worker_jobs").path("paid").asInt() >= 1,
                "the proofs delivered and accepted at the worker");
        buyer.p.kill();
        // the worker comes back releasing k: it claims the proofs while the buyer is down
        killAndRestart(worker, "FLEETMESH_COMPUTE_MARKET_TEST_WITHHOLD_KEY", "false");
        await(() -> balance(worker) == workerBefore + PRICE_SAT, "the worker's claim");
        restart(buyer);
        // the agent API forgets who submitted a job across a restart (compute-agent.md): the status counts show it
        await(() -> buyerJobs().path("done").asInt() == doneBefore + 1 && buyerJobs().path("paying").asInt() == 0,
                "the job done after the restart: " + buyerJobs());
        assertEquals(buyerBefore - PRICE_SAT - 2, balance(buyer), "paid once");
    }

    @Test
    @Order(6)
    void aBuyerDownUntilAfterTheLocktimeRefundsAndEndsTheJobWhenItComesBack() throws Exception {
        long before = balance(buyer);
        int expiredBefore = buyerJobs().path("expired").asInt();
        JsonNode view = submit(withholder, "down past the locktime", true);
        String id = view.path("id").asText();
        awaitJob(id, v -> v.path("state").asText().equals("paying"), "paying");
        await(() -> PeeringIT.status(withholder.p).path("compute").path("worker_jobs").path("paid").asInt() >= 1,
                "the payment accepted at the worker");
        buyer.p.kill();
        // the request lived 8 s and its HTLC 4 s more: wait that out with the buyer down
        MeshnodeProcess.sleep(13_000);
        restart(buyer);
        await(() -> buyerJobs().path("expired").asInt() == expiredBefore + 1 && buyerJobs().path("paying").asInt() == 0,
                "the job expired after the restart: " + buyerJobs());
        await(() -> balance(buyer) == before - 2, "the refund (balance " + balance(buyer) + ", was " + before + ")");
    }

    static JsonNode buyerJobs() {
        return PeeringIT.status(buyer.p).path("compute").path("buyer_jobs");
    }
}
