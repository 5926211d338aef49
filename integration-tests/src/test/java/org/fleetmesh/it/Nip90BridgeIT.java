package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.settlement.lightning.lnd.LndConnection;
import org.fleetmesh.settlement.lightning.lnd.LndRail;
import org.fleetmesh.settlement.lightning.sim.SimulatedLnd;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;

/**
 * The NIP-90 bridge with a customer nobody here wrote: nostr-tools posts kind 5600 requests (benthecarman/wasm-dvm's
 * shape) to the node's relay and reads the kind 7000 feedback and kind 6600 result (docs/spec/compute-agent.md).
 * The module comes from a web server of this test's own (listed in fetch-hosts) or from the node's blob store.
 */
class Nip90BridgeIT {
    private static final String SCRIPT = "nip90-dvm-client.mjs";
    static Path jsDir;
    static MeshnodeProcess node;
    static HttpServer modules;
    static byte[] upper;
    static String self;

    @BeforeAll
    static void start() throws Exception {
        jsDir = NodeJs.withNostrTools(SCRIPT);
        upper = AgentApiIT.module("upper.wasm");
        modules = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        modules.createContext("/upper.wasm", x -> {
            x.sendResponseHeaders(200, upper.length);
            x.getResponseBody().write(upper);
            x.close();
        });
        modules.start();
        node = MeshnodeProcess.start("nip90", Map.of("FLEETMESH_COMPUTE_NIP90_ENABLED", "true",
                "FLEETMESH_COMPUTE_NIP90_FETCH_HOSTS", "127.0.0.1", "FLEETMESH_COMPUTE_NIP90_FUEL", "10000000"));
        HttpResponse<String> nip11 = HttpClient.newHttpClient().send(HttpRequest.newBuilder(node.httpUri())
                .header("Accept", "application/nostr+json").GET().build(), HttpResponse.BodyHandlers.ofString());
        self = NostrClient.tree(nip11.body()).path("self").asText();
        assertTrue(self.matches("[0-9a-f]{64}"), nip11.body());
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
        if (modules != null) {
            modules.stop(0);
        }
    }

    static String iJson(String url, String function, String input, String checksum) {
        return NostrClient.JSON.createObjectNode().put("url", url).put("function", function).put("input", input)
                .put("time", 30000).put("checksum", checksum).toString();
    }

    static JsonNode customer(String iJson, String extraTags, String provider) throws Exception {
        return customer(node, iJson, extraTags, provider);
    }

    static JsonNode customer(MeshnodeProcess n, String iJson, String extraTags, String provider) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", SCRIPT, "ws://127.0.0.1:" + n.port(), iJson,
                extraTags == null ? "[]" : extraTags));
        if (provider != null) {
            cmd.add(provider);
        }
        NodeJs.Run r = NodeJs.run(jsDir, 90, cmd.toArray(new String[0]));
        assertEquals(0, r.exit(), "the DVM client failed:\n" + r.stdout() + r.stderr());
        String line = r.stdout().lines().filter(l -> l.startsWith("RESULT ")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no RESULT line:\n" + r.stdout() + r.stderr()));
        return NostrClient.tree(line.substring("RESULT ".length()));
    }

    static String tag(JsonNode event, String name, int i) {
        for (JsonNode t : event.path("tags")) {
            if (t.path(0).asText().equals(name)) {
                return t.path(i).asText(null);
            }
        }
        return null;
    }

    static List<String> statuses(JsonNode run) {
        List<String> s = new ArrayList<>();
        for (JsonNode e : run.path("events")) {
            s.add(e.path("kind").asInt() == 7000 ? tag(e, "status", 1) : "result:" + e.path("kind").asInt());
        }
        return s;
    }

    @Test
    void wasmDvmRequestWithAFetchedModuleGetsFeedbackAndTheResult() throws Exception {
        String url = "http://127.0.0.1:" + modules.getAddress().getPort() + "/upper.wasm";
        String i = iJson(url, "_start", "hello dvm", AgentApiIT.sha256(upper));
        JsonNode run = customer(i, "[[\"param\",\"fuel\",\"5000000\"]]", self);
        assertEquals(List.of("processing", "result:6600", "success"), statuses(run), run.toString());
        JsonNode request = run.path("request");
        JsonNode result = run.path("events").get(1);
        assertEquals("HELLO DVM", result.path("content").asText());
        assertEquals(self, result.path("pubkey").asText(), "signed by the node's Nostr key");
        assertEquals(request.path("id").asText(), tag(result, "e", 1));
        assertEquals(run.path("customer").asText(), tag(result, "p", 1));
        assertEquals(i, tag(result, "i", 1));
        assertEquals(request.path("id").asText(), NostrClient.tree(tag(result, "request", 1)).path("id").asText());
        assertEquals("0", tag(result, "exit_code", 1));
        assertTrue(Long.parseLong(tag(result, "fuel", 1)) > 0);
        assertEquals(AgentApiIT.sha256("HELLO DVM".getBytes()), tag(result, "output", 1));
        assertEquals(null, tag(result, "amount", 1), "a free job asks for nothing");
        for (JsonNode e : run.path("events")) {
            assertEquals(request.path("id").asText(), tag(e, "e", 1));
        }
    }

    @Test
    void moduleInTheBlobStoreRunsByChecksumWithoutUrl() throws Exception {
        String token = token();
        HttpResponse<String> put = HttpClient.newHttpClient().send(HttpRequest.newBuilder(node.httpUri()
                .resolve("/mesh/compute/blobs")).header("Authorization", "Bearer " + token)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(upper)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, put.statusCode(), put.body());
        JsonNode run = customer(iJson("", "_start", "stored", AgentApiIT.sha256(upper)), null, null);
        assertEquals(List.of("processing", "result:6600", "success"), statuses(run), run.toString());
        assertEquals("STORED", run.path("events").get(1).path("content").asText());
    }

    @Test
    void refusalsAreErrorFeedbackWithTheReason() throws Exception {
        JsonNode extism = customer(iJson("", "count_vowels", "x", AgentApiIT.sha256(upper)), null, null);
        assertEquals(List.of("error"), statuses(extism));
        assertTrue(tag(extism.path("events").get(0), "status", 2).contains("WASI commands"), extism.toString());

        String elsewhere = "http://localhost:" + modules.getAddress().getPort() + "/other.wasm";
        JsonNode notAllowed = customer(iJson(elsewhere, "_start", "x", "ab".repeat(32)), null, null);
        assertEquals(List.of("error"), statuses(notAllowed));
        assertTrue(tag(notAllowed.path("events").get(0), "status", 2).contains("not one this node fetches from"),
                notAllowed.toString());

        String url = "http://127.0.0.1:" + modules.getAddress().getPort() + "/upper.wasm";
        JsonNode mismatch = customer(iJson(url, "_start", "x", "cd".repeat(32)), null, null);
        assertEquals(List.of("error"), statuses(mismatch));
        assertTrue(tag(mismatch.path("events").get(0), "status", 2).startsWith("checksum mismatch"),
                mismatch.toString());
    }

    @Test
    void requestForAnotherProviderIsNotAnswered() throws Exception {
        Keys customer = Keys.fresh();
        String i = iJson("", "_start", "not for us", AgentApiIT.sha256(upper));
        Event other = customer.sign(5600, Keys.now(), "", Keys.tag("i", i, "text"), Keys.tag("p", "ee".repeat(32)));
        try (NostrClient c = NostrClient.connect(node)) {
            assertTrue(c.publishAndWait(other).accepted());
        }
        // requests are taken one at a time in order: once a later one is answered, the earlier was seen
        JsonNode later = customer(iJson("", "_start", "barrier", AgentApiIT.sha256(upper)), null, self);
        assertTrue(statuses(later).contains("success") || statuses(later).contains("error"), later.toString());
        try (NostrClient c = NostrClient.connect(node)) {
            List<JsonNode> answers = c.query("answers", FilterSpec.of().kinds(7000, 6600).tag('e', other.id().hex()));
            assertEquals(List.of(), answers, "nothing answers a request for another provider");
        }
    }

    @Test
    void pricedJobIsBilledAndItsResultPublishedOnlyAfterTheCustomerPaid() throws Exception {
        try (ComputeNodes net = new ComputeNodes("nip90-paid")) {
            MeshnodeProcess dvm = net.node("nip90-paid", "FLEETMESH_COMPUTE_NIP90_ENABLED", "true",
                    "FLEETMESH_COMPUTE_NIP90_PRICE_PER_KFUEL", "10", "FLEETMESH_COMPUTE_NIP90_FUEL", "10000000");
            net.putBlob(dvm, upper);
            JsonNode result = paidRun(net, dvm, "pay me");
            assertEquals("PAY ME", result.path("content").asText());
            long fuel = Long.parseLong(tag(result, "fuel", 1));
            assertEquals((fuel + 999) / 1000 * 10, Long.parseLong(tag(result, "amount", 1)),
                    "10 msat per 1000 fuel, rounded up");
        }
    }

    /**
     * A bill the customer pays after the node restarted (and so forgot the request) is not taken: the bill is a hold
     * invoice, which only the bridge holding the request settles; the customer's payment stays held and returns when
     * its HTLC times out. Before, a plain invoice took the money and nothing was ever published (outside audit F3).
     */
    @Test
    void aBillPaidAfterTheNodeForgotTheRequestIsNotTaken() throws Exception {
        try (ComputeNodes net = new ComputeNodes("nip90-forgot")) {
            MeshnodeProcess dvm = net.node("nip90-forgot", "FLEETMESH_COMPUTE_NIP90_ENABLED", "true",
                    "FLEETMESH_COMPUTE_NIP90_PRICE_PER_KFUEL", "10", "FLEETMESH_COMPUTE_NIP90_FUEL", "10000000");
            net.putBlob(dvm, upper);
            HttpResponse<String> nip11 = HttpClient.newHttpClient().send(HttpRequest.newBuilder(dvm.httpUri())
                    .header("Accept", "application/nostr+json").GET().build(), HttpResponse.BodyHandlers.ofString());
            String dvmSelf = NostrClient.tree(nip11.body()).path("self").asText();
            SimulatedLnd wallet = net.net.startNode("customer");
            SimulatedLnd dvmLnd = net.net.node("nip90-forgot").orElseThrow();
            LndRail.Options opts = new LndRail.Options(Duration.ofSeconds(30), Duration.ofSeconds(120), 80,
                    Optional.empty(), Duration.ofMillis(200));
            String bolt11;
            try (NostrClient watch = NostrClient.connect(dvm)) {
                watch.req("bills", FilterSpec.of().kinds(7000).authors(dvmSelf).since(Keys.now() - 5));
                String i = iJson("", "_start", "forgotten", AgentApiIT.sha256(upper));
                CompletableFuture.runAsync(() -> {
                    try {
                        customer(dvm, i, null, null);
                    } catch (Exception | AssertionError e) {
                        // the customer's client loses its connection at the restart: what it saw is not the point
                    }
                });
                JsonNode feedback = watch.take(m -> m.path(0).asText().equals("EVENT")
                        && List.of("payment-required", "error").contains(tag(m.path(2), "status", 1)),
                        Duration.ofSeconds(90), "payment-required feedback").path(2);
                assertEquals("payment-required", tag(feedback, "status", 1), feedback.toString());
                bolt11 = tag(feedback, "amount", 2);
            }
            dvm.stop();
            dvm.startAgain();
            long before = net.net.channelBalanceMsat(wallet, dvmLnd);
            try (LndRail customerRail = new LndRail(LndConnection.open(wallet.host(), wallet.port(),
                    wallet.tlsCertPath(), wallet.adminMacaroonPath(), Duration.ZERO), opts, Clock.systemUTC())) {
                CompletableFuture<PaymentResult> pay = CompletableFuture.supplyAsync(() -> customerRail.pay(bolt11, 1000));
                Thread.sleep(5000);
                assertTrue(!pay.isDone() || pay.get().status() != PaymentResult.Status.SUCCEEDED,
                        "the restarted node took the payment of a bill it forgot: " + (pay.isDone() ? pay.get() : ""));
                // the held HTLC's lifetime runs out: the payment fails back to the customer
                net.net.clock().advance(Duration.ofDays(2));
                PaymentResult r = pay.get(120, TimeUnit.SECONDS);
                assertTrue(r.status() != PaymentResult.Status.SUCCEEDED, r.toString());
            }
            assertEquals(before, net.net.channelBalanceMsat(wallet, dvmLnd), "the customer kept its money");
        }
    }

    @Test
    void remoteWorkerIsPaidByTheBridgeAfterTheCustomerPaidIt() throws Exception {
        try (ComputeNodes net = new ComputeNodes("nip90-remote")) {
            MeshnodeProcess worker = net.node("nip90-worker");
            MeshnodeProcess dvm = net.node("nip90-buyer", "FLEETMESH_COMPUTE_NIP90_ENABLED", "true",
                    "FLEETMESH_COMPUTE_NIP90_WORKER", "any", "FLEETMESH_COMPUTE_NIP90_FUEL", "10000000");
            net.link(dvm, worker);
            net.putBlob(dvm, upper);
            JsonNode result = paidRun(net, dvm, "far away");
            assertEquals("FAR AWAY", result.path("content").asText());
            // the customer's bill was the worker's price, and the worker was paid it once
            long amount = Long.parseLong(tag(result, "amount", 1));
            ComputeNodes.await(() -> ComputeNodes.compute(worker).path("income_msat").asLong() == amount,
                    "the worker's income of " + amount + " msat");
        }
    }

    /**
     * Posts a request for {@code input} to {@code dvm} with nostr-tools, pays the {@code payment-required} bolt11 from
     * an LND node of this test's own, and returns the kind 6600 result (checked to come after the payment).
     */
    static JsonNode paidRun(ComputeNodes net, MeshnodeProcess dvm, String input) throws Exception {
        HttpResponse<String> nip11 = HttpClient.newHttpClient().send(HttpRequest.newBuilder(dvm.httpUri())
                .header("Accept", "application/nostr+json").GET().build(), HttpResponse.BodyHandlers.ofString());
        String dvmSelf = NostrClient.tree(nip11.body()).path("self").asText();
        SimulatedLnd wallet = net.net.startNode("customer");
        LndRail.Options opts = new LndRail.Options(Duration.ofSeconds(30), Duration.ofSeconds(60), 80,
                Optional.empty(), Duration.ofMillis(200));
        try (LndRail customerRail = new LndRail(LndConnection.open(wallet.host(), wallet.port(), wallet.tlsCertPath(),
                wallet.adminMacaroonPath(), Duration.ZERO), opts, Clock.systemUTC());
                NostrClient watch = NostrClient.connect(dvm)) {
            watch.req("bills", FilterSpec.of().kinds(7000).authors(dvmSelf).since(Keys.now() - 5));
            String i = iJson("", "_start", input, AgentApiIT.sha256(upper));
            CompletableFuture<JsonNode> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return customer(dvm, i, null, null);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            JsonNode feedback = watch.take(m -> m.path(0).asText().equals("EVENT")
                    && List.of("payment-required", "error").contains(tag(m.path(2), "status", 1)),
                    Duration.ofSeconds(90), "payment-required feedback").path(2);
            assertEquals("payment-required", tag(feedback, "status", 1), feedback.toString());
            long amount = Long.parseLong(tag(feedback, "amount", 1));
            String bolt11 = tag(feedback, "amount", 2);
            assertTrue(amount > 0 && bolt11.startsWith("ln"), feedback.toString());
            assertTrue(!run.isDone(), "no result before payment");
            PaymentResult paid = customerRail.pay(bolt11, 1000);
            assertEquals(PaymentResult.Status.SUCCEEDED, paid.status(), paid.toString());

            JsonNode done = run.get(120, TimeUnit.SECONDS);
            assertEquals(List.of("processing", "payment-required", "result:6600", "success"), statuses(done),
                    done.toString());
            JsonNode result = done.path("events").get(2);
            assertEquals(Long.toString(amount), tag(result, "amount", 1));
            assertEquals(bolt11, tag(result, "amount", 2));
            return result;
        }
    }

    static String token() throws Exception {
        Launcher.Run r = Launcher.run(node.dataDir(), null, "token", "issue", "--right", "compute:run", "--fuel-limit",
                "1000000");
        assertEquals(0, r.exit(), r.stderr());
        return r.stdout().strip();
    }
}
