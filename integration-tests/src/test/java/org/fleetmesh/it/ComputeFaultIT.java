package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.settlement.lightning.sim.SimulatedLnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * compute/1.0 faults over the simulated LND (docs/spec/compute.md): a worker that never releases k (the test switch
 * {@code test-withhold-key}) leaves the buyer's payment locked until the held HTLCs time out, then the job ends
 * {@code expired} and nothing is paid; a worker that falsifies half its results ({@code test-cheat-rate} 0.5) is
 * caught by the buyer's sampled re-execution (rate 0.5) on exactly the sampled jobs it falsified, at about the
 * predicted f·s, and the mismatches become compute findings; a request lost on a link that died unnoticed is sent
 * again when the link opens again, and the job ends done, paid once.
 */
class ComputeFaultIT {
    static final double CHEAT = 0.5;
    static final double SAMPLE = 0.5;
    static ComputeNodes c;
    static MeshnodeProcess buyer;
    static MeshnodeProcess withholder;
    static MeshnodeProcess cheater;

    @BeforeAll
    static void start() throws Exception {
        c = new ComputeNodes("compute-fault");
        // a held payment fails back 15 s after it locked in (the hold invoice's CLTV running out, shortened)
        c.net.setHeldHtlcLifetime(Duration.ofSeconds(15));
        withholder = c.node("cf-withholder", "FLEETMESH_COMPUTE_MARKET_TEST_WITHHOLD_KEY", "true");
        cheater = c.node("cf-cheater", "FLEETMESH_COMPUTE_MARKET_TEST_CHEAT_RATE", Double.toString(CHEAT),
                "FLEETMESH_COMPUTE_MARKET_QUEUE", "64");
        buyer = c.node("cf-buyer", "FLEETMESH_COMPUTE_MARKET_SELL", "false",
                "FLEETMESH_COMPUTE_MARKET_SAMPLE_RATE", Double.toString(SAMPLE),
                "FLEETMESH_COMPUTE_MARKET_ALWAYS_SAMPLE_TIER0", "false",
                "FLEETMESH_COMPUTE_MARKET_ALWAYS_SAMPLE_BELOW", "0",
                "FLEETMESH_COMPUTE_AGENT_ACTIVE_JOBS_PER_TOKEN", "64");
        c.link(buyer, withholder);
        c.link(buyer, cheater);
    }

    @AfterAll
    static void stop() {
        if (c != null) {
            c.close();
        }
    }

    @Test
    void aWorkerKilledAfterThePaymentLockedInReleasesTheKeyWhenItComesBackAndIsPaidOnce() throws Exception {
        // the held HTLCs wait long enough for a restart
        c.net.setHeldHtlcLifetime(Duration.ofMinutes(10));
        MeshnodeProcess crasher = c.node("cf-crasher", "FLEETMESH_COMPUTE_MARKET_TEST_WITHHOLD_KEY", "true");
        c.link(buyer, crasher);
        String did = PeeringIT.did(crasher);
        SimulatedLnd lb = c.lnds.get("cf-buyer");
        SimulatedLnd lw = c.lnds.get("cf-crasher");
        long before = c.net.channelBalanceMsat(lb, lw);
        String module = c.putBlob(buyer, ComputeNodes.module("upper.wasm"));
        String in = c.putBlob(buyer, "crash after paid".getBytes(StandardCharsets.UTF_8));
        String id = c.submit(buyer, did, module, in, 100_000_000, 1_000_000, true).path("id").asText();
        c.awaitJob(buyer, id, v -> v.path("state").asText().equals("paying"), "paying");
        ComputeNodes.await(() -> ComputeNodes.compute(crasher).path("worker_jobs").path("paid").asInt() >= 1,
                "the payment locked in at the worker");
        // SIGKILL with k unreleased; back on the same data dir without the switch: the escrow's resume releases k
        MeshnodeProcess back = c.killAndRestart("cf-crasher", "FLEETMESH_COMPUTE_MARKET_TEST_WITHHOLD_KEY", "false");
        JsonNode done = c.awaitEnded(buyer, id);
        assertEquals("done", done.path("state").asText(), done.toString());
        assertEquals("CRASH AFTER PAID", new String(java.util.Base64.getDecoder().decode(
                c.result(buyer, id).path("stdout").asText()), StandardCharsets.UTF_8));
        long price = done.path("price_msat").asLong();
        assertEquals(before - price, c.net.channelBalanceMsat(lb, lw), "paid once");
        ComputeNodes.await(() -> ComputeNodes.compute(back).path("income_msat").asLong() == price,
                "the income in the worker's ledger after the restart");
        assertEquals(1, ComputeNodes.compute(back).path("worker_jobs").path("done").asInt());
        c.net.setHeldHtlcLifetime(Duration.ofSeconds(15));
    }

    @Test
    void aRequestLostOnALinkThatDiedUnnoticedIsSentAgainWhenTheLinkOpensAndIsPaidOnce() throws Exception {
        MeshnodeProcess lossy = c.node("cf-lossy");
        try (TcpProxy door = new TcpProxy().target(lossy.port())) {
            c.link(buyer, lossy, java.net.URI.create("ws://127.0.0.1:" + door.port() + "/mesh"));
            String did = PeeringIT.did(lossy);
            SimulatedLnd lb = c.lnds.get("cf-buyer");
            SimulatedLnd lw = c.lnds.get("cf-lossy");
            long before = c.net.channelBalanceMsat(lb, lw);
            String module = c.putBlob(buyer, ComputeNodes.module("upper.wasm"));
            String in = c.putBlob(buyer, "sent into a dead link".getBytes(StandardCharsets.UTF_8));
            // the link dies without either node knowing: the request is taken by the buyer's link and lost
            door.stall();
            String id = c.submit(buyer, did, module, in, 100_000_000, 1_000_000, true).path("id").asText();
            MeshnodeProcess.sleep(1500);
            assertEquals("requested", c.job(buyer, id).path("state").asText());
            assertEquals(0, ComputeNodes.compute(lossy).path("worker_jobs").path("requested").asInt()
                    + ComputeNodes.compute(lossy).path("worker_jobs").path("fetching").asInt(), "the worker never heard"
                    + " of it");
            // now both sides see the link drop; the buyer dials again and sends what waits on the worker again
            door.cut();
            door.restore();
            JsonNode done = c.awaitEnded(buyer, id);
            assertEquals("done", done.path("state").asText(), done.toString());
            assertEquals("SENT INTO A DEAD LINK", new String(java.util.Base64.getDecoder().decode(
                    c.result(buyer, id).path("stdout").asText()), StandardCharsets.UTF_8));
            long price = done.path("price_msat").asLong();
            assertTrue(price > 0);
            assertEquals(before - price, c.net.channelBalanceMsat(lb, lw), "paid once");
            ComputeNodes.await(() -> ComputeNodes.compute(lossy).path("income_msat").asLong() == price,
                    "the income in the worker's ledger");
            assertEquals(1, ComputeNodes.compute(lossy).path("worker_jobs").path("done").asInt());
        }
    }

    @Test
    void aWorkerThatNeverReleasesTheKeyIsPaidNothingAndTheJobExpires() throws Exception {
        c.net.setHeldHtlcLifetime(Duration.ofSeconds(15));
        SimulatedLnd lb = c.lnds.get("cf-buyer");
        SimulatedLnd lw = c.lnds.get("cf-withholder");
        long before = c.net.channelBalanceMsat(lb, lw);
        String module = c.putBlob(buyer, ComputeNodes.module("upper.wasm"));
        String in = c.putBlob(buyer, "withheld".getBytes(StandardCharsets.UTF_8));
        JsonNode view = c.submit(buyer, PeeringIT.did(withholder), module, in, 100_000_000, 1_000_000, true);
        String id = view.path("id").asText();
        c.awaitJob(buyer, id, v -> v.path("state").asText().equals("paying"), "paying");
        ComputeNodes.await(() -> ComputeNodes.compute(withholder).path("worker_jobs").path("paid").asInt() >= 1,
                "the payment locked in at the worker");
        JsonNode end = c.awaitEnded(buyer, id);
        assertEquals("expired", end.path("state").asText(), end.toString());
        // ended without a result: 410 (docs/spec/compute-agent.md)
        assertEquals(410, c.call(buyer, "GET", "/mesh/compute/jobs/" + id + "/result", null).statusCode());
        assertEquals(before, c.net.channelBalanceMsat(lb, lw), "the HTLCs failed back: nothing paid");
        assertEquals(0, ComputeNodes.compute(withholder).path("income_msat").asLong());
        ComputeNodes.await(() -> ComputeNodes.compute(withholder).path("worker_jobs").path("expired").asInt() >= 1,
                "the worker's job ends unpaid");
    }

    @Test
    void aCheatingWorkerIsCaughtOnTheSampledJobsItFalsified() throws Exception {
        String cheaterDid = PeeringIT.did(cheater);
        String module = c.putBlob(buyer, ComputeNodes.module("upper.wasm"));
        int n = 24;
        List<String> ids = new ArrayList<>();
        List<String> inputs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String in = c.putBlob(buyer, ("job number " + i).getBytes(StandardCharsets.UTF_8));
            inputs.add(in);
            ids.add(c.submit(buyer, cheaterDid, module, in, 100_000_000, 1_000_000, true).path("id").asText());
        }
        List<JsonNode> done = new ArrayList<>();
        for (String id : ids) {
            JsonNode v = c.awaitEnded(buyer, id);
            assertEquals("done", v.path("state").asText(), v.toString());
            done.add(v);
        }
        // every job is done, so every choice is made: wait for the chosen ones' re-executions to end
        long chosen = ComputeNodes.compute(buyer).path("reexecutions_chosen").asLong();
        ComputeNodes.await(() -> ids.stream().filter(id -> !c.job(buyer, id).path("reexecution").isNull()).count()
                == chosen, "the re-executions");
        int cheated = 0;
        int caught = 0;
        int sampled = 0;
        for (int i = 0; i < n; i++) {
            JsonNode v = c.job(buyer, ids.get(i));
            JsonNode got = c.result(buyer, ids.get(i));
            String local = c.submit(buyer, "local", module, inputs.get(i), 100_000_000, 0, false).path("id").asText();
            c.awaitEnded(buyer, local);
            boolean lied = !c.result(buyer, local).path("output_digest").equals(got.path("output_digest"));
            cheated += lied ? 1 : 0;
            if (v.path("reexecuted").asBoolean()) {
                sampled++;
                assertEquals(lied ? "mismatch" : "match", v.path("reexecution").asText(), v.toString());
                caught += lied ? 1 : 0;
            } else {
                assertTrue(v.path("reexecution").isNull(), v.toString());
            }
        }
        assertEquals(ComputeNodes.compute(cheater).path("cheated").asInt(), cheated, "the worker's own count");
        assertEquals(caught, ComputeNodes.compute(buyer).path("reexecution_mismatches").asInt());
        // the math: a job is caught with probability f·s; 3 standard deviations of the binomial around n·f·s
        double p = CHEAT * SAMPLE;
        double sd = Math.sqrt(n * p * (1 - p));
        String line = String.format("cheating worker: %d jobs, f=%.2f (falsified %d), s=%.2f (re-executed %d):"
                + " caught %d (%.3f per job), predicted f*s = %.3f", n, CHEAT, cheated, SAMPLE, sampled, caught,
                caught / (double) n, p);
        System.out.println(line);
        Files.writeString(MeshnodeProcess.targetDir().resolve("compute-cheat-rate.txt"), line + "\n");
        assertTrue(Math.abs(caught - n * p) <= 3 * sd, line);
        assertTrue(caught > 0, "at least one caught (the chance of none is 0.75^24 = 0.1%): " + line);

        // the mismatches are compute findings of the buyer about the worker
        JsonNode s = Standings.awaitSubject(buyer, cheaterDid, x -> Standings.details(x,
                d -> d.path("rule").asText().equals("reexecution")).size() >= 1, "a re-execution finding");
        List<JsonNode> f = Standings.details(s, d -> d.path("rule").asText().equals("reexecution"));
        assertEquals("S2", f.get(0).path("severity").asText(), f.toString());
        assertFalse(f.isEmpty());
    }
    /**
     * Each side's PostgreSQL killed ({@code kill -9}, as the OOM killer would) while jobs stream from one node to the
     * other: each node starts its postmaster again itself, every job submitted ends, and the buyer paid for exactly the
     * jobs that ended done, once each (its channel moved by the sum of their prices, the worker's ledger has that
     * income). Before, a job whose step met the dead store could stay {@code paying} until the node restarted (found by
     * the chaos suite).
     */
    @Test
    void jobsUnderWayWhenEitherSidesPostgresqlIsKilledAllEndAndArePaidOnce() throws Exception {
        c.net.setHeldHtlcLifetime(Duration.ofMinutes(10)); // no payment fails back for its time running out
        try {
            MeshnodeProcess pb = c.node("cf-pgbuyer", "FLEETMESH_COMPUTE_MARKET_SELL", "false",
                    "FLEETMESH_COMPUTE_AGENT_ACTIVE_JOBS_PER_TOKEN", "64");
            MeshnodeProcess pw = c.node("cf-pgworker", "FLEETMESH_COMPUTE_MARKET_QUEUE", "64");
            c.link(pb, pw);
            String did = PeeringIT.did(pw);
            SimulatedLnd lb = c.lnds.get("cf-pgbuyer");
            SimulatedLnd lw = c.lnds.get("cf-pgworker");
            long before = c.net.channelBalanceMsat(lb, lw);
            String module = c.putBlob(pb, ComputeNodes.module("upper.wasm"));
            List<String> ids = new ArrayList<>();
            int notTaken = 0;
            List<Long> killed = new ArrayList<>();
            // bursts: the jobs of a burst are under way at both sides (queued, running, sealed, paying) when a
            // postmaster dies right after it; a job submitted while the buyer's store is down is refused (503)
            for (int i = 0; i < 36; i++) {
                java.net.http.HttpResponse<String> r;
                try {
                    String in = c.putBlob(pb, ("store outage " + i).getBytes(StandardCharsets.UTF_8));
                    String json = "{\"worker\":\"" + did + "\",\"module\":\"" + module + "\",\"input\":\"" + in
                            + "\",\"fuel_limit\":100000000,\"memory_pages\":32,\"max_price_msat\":1000000,"
                            + "\"rail\":\"ln\",\"auto_pay\":true}";
                    r = c.call(pb, "POST", "/mesh/compute/jobs", java.net.http.HttpRequest.BodyPublishers.ofString(json));
                } catch (AssertionError e) {
                    r = null; // the blob's PUT refused, or no answer: nothing submitted
                }
                if (r == null) {
                    notTaken++;
                } else if (r.statusCode() == 201) {
                    ids.add(NostrClient.tree(r.body()).path("id").asText());
                } else {
                    // the store down under the request: a 503 to send it again, not an anonymous 500
                    assertEquals(503, r.statusCode(), r.body());
                    assertTrue(r.headers().firstValue("Retry-After").isPresent(), r.headers().toString());
                    assertTrue(NostrClient.tree(r.body()).path("error").asText().startsWith("unavailable: "),
                            r.body());
                    notTaken++;
                }
                if (i == 9) {
                    killed.add(killPostmaster(pb));
                } else if (i == 21) {
                    killed.add(killPostmaster(pw));
                }
                if (i % 12 == 11) {
                    MeshnodeProcess.sleep(3000);
                }
            }
            for (MeshnodeProcess n : List.of(pb, pw)) {
                ComputeNodes.await(() -> n.livePostmasterFromPidFile().isPresent()
                        && !killed.contains(n.livePostmasterFromPidFile().getAsLong()) && ready(n),
                        n + " started its postmaster again and is ready");
            }
            long paid = 0;
            int done = 0;
            List<String> ended = new ArrayList<>();
            for (String id : ids) {
                JsonNode v = c.awaitEnded(pb, id);
                ended.add(v.path("state").asText());
                if (v.path("state").asText().equals("done")) {
                    done++;
                    paid += v.path("price_msat").asLong();
                }
            }
            assertTrue(ids.size() >= 24, "jobs taken: " + ids.size() + ", refused while the store was down: "
                    + notTaken);
            assertTrue(done >= ids.size() / 2, "jobs ended " + ended);
            assertEquals(before - paid, c.net.channelBalanceMsat(lb, lw), "the done jobs were paid, once: " + ended);
            long income = paid;
            ComputeNodes.await(() -> ComputeNodes.compute(pw).path("income_msat").asLong() == income,
                    "the worker's ledger has the income of the done jobs");
        } finally {
            c.net.setHeldHtlcLifetime(Duration.ofSeconds(15));
        }
    }

    /** kill -9 of the node's postmaster; its pid. */
    static long killPostmaster(MeshnodeProcess n) throws Exception {
        long pid = n.livePostmasterFromPidFile().orElseThrow();
        assertEquals(0, new ProcessBuilder("kill", "-KILL", Long.toString(pid)).inheritIO().start().waitFor());
        return pid;
    }

    static boolean ready(MeshnodeProcess n) {
        try {
            return PeeringIT.send(java.net.http.HttpRequest.newBuilder(n.httpUri().resolve("/q/health/ready"))
                    .GET()).statusCode() == 200;
        } catch (Exception | AssertionError e) {
            return false;
        }
    }
}
