package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.fleetmesh.settlement.lightning.sim.SimulatedLightningNetwork;
import org.fleetmesh.settlement.lightning.sim.SimulatedLnd;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Meshnodes that buy and sell compute over a {@link SimulatedLightningNetwork} started in this JVM: each node gets its
 * own simulated LND ({@code fleetmesh.lightning.*}), and big grants so that blobs are not throttled. Jobs go through
 * the agent API (docs/spec/compute-agent.md) with a compute:run token of the node.
 */
final class ComputeNodes implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final List<String> FINAL = List.of("done", "refused", "failed", "expired");

    final SimulatedLightningNetwork net;
    final Map<String, MeshnodeProcess> nodes = new HashMap<>();
    final Map<String, SimulatedLnd> lnds = new HashMap<>();
    final Map<String, String> tokens = new HashMap<>();
    final Map<String, Map<String, String>> envs = new HashMap<>();

    ComputeNodes(String name) {
        Path dir = MeshnodeProcess.newDataDir(name + "-lnd");
        net = new SimulatedLightningNetwork(dir);
    }

    /** Adds to {@code e} what a node needs to buy and sell compute over {@code lnd}: the rail and the default prices. */
    static void sellingOverLnd(Map<String, String> e, SimulatedLnd lnd) {
        e.put("FLEETMESH_LIGHTNING_ENABLED", "true");
        e.put("FLEETMESH_LIGHTNING_LND_HOST", lnd.host());
        e.put("FLEETMESH_LIGHTNING_LND_PORT", Integer.toString(lnd.port()));
        e.put("FLEETMESH_LIGHTNING_LND_TLS_CERT_PATH", lnd.tlsCertPath().toString());
        e.put("FLEETMESH_LIGHTNING_LND_MACAROON_PATH", lnd.adminMacaroonPath().toString());
        e.put("FLEETMESH_COMPUTE_MARKET_PRICE_PER_KFUEL", "10");
        e.put("FLEETMESH_COMPUTE_MARKET_MIN_PRICE", "1000");
    }

    /** Starts a node with its own simulated LND; {@code env} pairs add to the defaults. */
    MeshnodeProcess node(String name, String... env) throws Exception {
        SimulatedLnd lnd = net.startNode(name);
        Map<String, String> e = Delivered.env("[]");
        sellingOverLnd(e, lnd);
        for (int i = 0; i + 1 < env.length; i += 2) {
            e.put(env[i], env[i + 1]);
        }
        MeshnodeProcess n = MeshnodeProcess.start(name, e);
        nodes.put(name, n);
        envs.put(name, e);
        lnds.put(name, lnd);
        Launcher.Run r = Launcher.run(n.dataDir(), null, "token", "issue", "--right", "compute:run", "--fuel-limit",
                "10000000000");
        assertEquals(0, r.exit(), r.stderr());
        tokens.put(name, r.stdout().strip());
        return n;
    }

    /** Links {@code buyer} to {@code worker} and waits until each has the other's offer or link. */
    void link(MeshnodeProcess buyer, MeshnodeProcess worker) throws Exception {
        link(buyer, worker, PeeringIT.mesh(worker));
    }

    /** The same, the buyer dialling the worker at {@code url} (a {@link TcpProxy} in front of its mesh endpoint). */
    void link(MeshnodeProcess buyer, MeshnodeProcess worker, java.net.URI url) throws Exception {
        String bDid = PeeringIT.did(buyer);
        String wDid = PeeringIT.did(worker);
        HttpResponse<String> r = PeeringIT.addPeer(buyer, PeeringIT.token(buyer, "admin:write"), wDid, url);
        assertEquals(201, r.statusCode(), r.body());
        PeeringIT.awaitLinked(buyer, bDid, worker, wDid);
        await(() -> offers(buyer).findValues("worker").stream().anyMatch(w -> w.asText().equals(wDid)),
                "the worker's offer at the buyer");
    }

    /** Kills {@code name} (SIGKILL) and starts it again on its data dir and port with {@code env} changed. */
    MeshnodeProcess killAndRestart(String name, String... env) {
        MeshnodeProcess old = nodes.get(name);
        int port = old.port();
        old.kill();
        Map<String, String> e = new HashMap<>(envs.get(name));
        for (int i = 0; i + 1 < env.length; i += 2) {
            e.put(env[i], env[i + 1]);
        }
        MeshnodeProcess n = MeshnodeProcess.startOn(name, old.dataDir(), e, port);
        nodes.put(name, n);
        envs.put(name, e);
        return n;
    }

    String token(MeshnodeProcess n) {
        for (Map.Entry<String, MeshnodeProcess> e : nodes.entrySet()) {
            if (e.getValue() == n) {
                return tokens.get(e.getKey());
            }
        }
        throw new IllegalArgumentException(n.toString());
    }

    static byte[] module(String name) throws Exception {
        try (InputStream in = ComputeNodes.class.getResourceAsStream("/wasm/" + name)) {
            return in.readAllBytes();
        }
    }

    HttpResponse<String> call(MeshnodeProcess n, String method, String path, HttpRequest.BodyPublisher body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(n.httpUri().resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token(n))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : body);
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(method + " " + path, e);
        }
    }

    String putBlob(MeshnodeProcess n, byte[] bytes) {
        HttpResponse<String> r = call(n, "PUT", "/mesh/compute/blobs", HttpRequest.BodyPublishers.ofByteArray(bytes));
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body()).path("sha256").asText();
    }

    JsonNode offers(MeshnodeProcess n) {
        HttpResponse<String> r = call(n, "GET", "/mesh/compute/offers", null);
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    /** Submits {@code {"worker", "module", "input", "fuel_limit", "memory_pages": 32, ...}}; gives the job view. */
    JsonNode submit(MeshnodeProcess n, String worker, String module, String input, long fuel, long maxPrice,
            boolean autoPay) {
        String json = "{\"worker\":\"" + worker + "\",\"module\":\"" + module + "\",\"input\":\"" + input
                + "\",\"fuel_limit\":" + fuel + ",\"memory_pages\":32,\"max_price_msat\":" + maxPrice
                + ",\"rail\":\"ln\",\"auto_pay\":" + autoPay + "}";
        HttpResponse<String> r = call(n, "POST", "/mesh/compute/jobs", HttpRequest.BodyPublishers.ofString(json));
        assertEquals(201, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    JsonNode job(MeshnodeProcess n, String id) {
        HttpResponse<String> r = call(n, "GET", "/mesh/compute/jobs/" + id, null);
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    JsonNode awaitJob(MeshnodeProcess n, String id, Predicate<JsonNode> p, String what) {
        long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            JsonNode v = job(n, id);
            if (p.test(v)) {
                return v;
            }
            assertTrue(System.nanoTime() < until, what + ": job " + id + " is " + v);
            MeshnodeProcess.sleep(10);
        }
    }

    JsonNode awaitEnded(MeshnodeProcess n, String id) {
        return awaitJob(n, id, v -> FINAL.contains(v.path("state").asText()), "ended");
    }

    JsonNode result(MeshnodeProcess n, String id) {
        HttpResponse<String> r = call(n, "GET", "/mesh/compute/jobs/" + id + "/result", null);
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    static JsonNode compute(MeshnodeProcess n) {
        return PeeringIT.status(n).path("compute");
    }

    static void await(java.util.function.BooleanSupplier c, String what) {
        long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < until, "timed out waiting for " + what);
            MeshnodeProcess.sleep(100);
        }
    }

    @Override
    public void close() {
        for (MeshnodeProcess n : nodes.values()) {
            n.close();
        }
        net.close();
    }
}
