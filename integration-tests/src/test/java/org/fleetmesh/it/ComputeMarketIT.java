package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.fleetmesh.settlement.lightning.sim.SimulatedLnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * compute/1.0 between two meshnodes over the simulated LND (docs/spec/compute.md): the worker's offer reaches the
 * buyer; a job is requested, its module and input fetched, run, sealed, invoiced on SHA-256(k), paid, k released and
 * the seal opened; the buyer's result equals a run on its own sandbox; the worker's ledger shows the income and the
 * buyer's channel paid it once; the final job record is served by the worker's relay. Also: an infinite loop ends
 * {@code failed} with fuel exhausted and nothing invoiced; a buyer that never pays leaves the worker with k and the
 * hold invoice expired. And the job overhead (escrow + transport + sealing) next to the bare run, same nodes.
 */
class ComputeMarketIT {
    static ComputeNodes c;
    static MeshnodeProcess worker;
    static MeshnodeProcess buyer;
    static String workerDid;

    @BeforeAll
    static void start() throws Exception {
        c = new ComputeNodes("compute-market");
        // the worker's hold invoices last 20 s, so the unpaid one expires within the test
        worker = c.node("cm-worker", "FLEETMESH_COMPUTE_MARKET_INVOICE_EXPIRY", "20s");
        buyer = c.node("cm-buyer", "FLEETMESH_COMPUTE_MARKET_SELL", "false");
        c.link(buyer, worker);
        workerDid = PeeringIT.did(worker);
    }

    @AfterAll
    static void stop() {
        if (c != null) {
            c.close();
        }
    }

    static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    @Test
    void aPaidJobOnThePeerGivesTheResultOfALocalRunPaidOnce() throws Exception {
        SimulatedLnd lb = c.lnds.get("cm-buyer");
        SimulatedLnd lw = c.lnds.get("cm-worker");
        long before = c.net.channelBalanceMsat(lb, lw);
        long incomeBefore = ComputeNodes.compute(worker).path("income_msat").asLong();
        byte[] input = "a job for the market".getBytes(StandardCharsets.UTF_8);
        String module = c.putBlob(buyer, ComputeNodes.module("upper.wasm"));
        String in = c.putBlob(buyer, input);
        JsonNode view = c.submit(buyer, workerDid, module, in, 100_000_000, 1_000_000, true);
        String id = view.path("id").asText();
        assertEquals(workerDid, view.path("worker").asText());
        JsonNode done = c.awaitEnded(buyer, id);
        assertEquals("done", done.path("state").asText(), done.toString());

        JsonNode res = c.result(buyer, id);
        String local = c.submit(buyer, "local", module, in, 100_000_000, 0, false).path("id").asText();
        c.awaitEnded(buyer, local);
        assertEquals(c.result(buyer, local), res, "the bought result is a local run's");
        assertEquals("A JOB FOR THE MARKET", new String(java.util.Base64.getDecoder().decode(
                res.path("stdout").asText()), StandardCharsets.UTF_8));

        // the record: signed by the worker, naming the job and the payment
        JsonNode record = done.path("record");
        assertEquals(30811, record.path("kind").asInt());
        assertEquals(PeeringIT.status(worker).path("pubkey").asText(), record.path("pubkey").asText());
        assertEquals(id, tag(record, "d"));
        assertEquals(module, tag(record, "module"));
        assertEquals(done.path("payment_hash").asText(), tag(record, "payment_hash"));
        assertEquals(res.path("fuel_used").asText(), tag(record, "fuel"));
        long price = done.path("price_msat").asLong();
        assertEquals(Long.toString(price), tag(record, "price"));
        assertTrue(price >= 1000, done.toString());

        // paid once: the channel moved by the price, the worker's ledger shows it as income
        ComputeNodes.await(() -> ComputeNodes.compute(worker).path("income_msat").asLong() == incomeBefore + price,
                "the worker's income");
        assertEquals(before - price, c.net.channelBalanceMsat(lb, lw), "the buyer's side paid the price once");
        JsonNode w = ComputeNodes.compute(worker).path("worker_jobs");
        assertTrue(w.path("done").asInt() >= 1, w.toString());

        // the final record, with the output digest, is served by the worker's relay
        try (NostrClient nc = NostrClient.connect(worker)) {
            ComputeNodes.await(() -> !nc.query("r" + System.nanoTime(), FilterSpec.of().kinds(30811).tag('d', id))
                    .isEmpty(), "the final record");
            List<JsonNode> got = nc.query("rec", FilterSpec.of().kinds(30811).tag('d', id));
            assertEquals(res.path("output_digest").asText(), tag(got.get(0), "output"));
        }
    }

    static String tag(JsonNode event, String name) {
        for (JsonNode t : event.path("tags")) {
            if (t.size() >= 2 && t.get(0).asText().equals(name)) {
                return t.get(1).asText();
            }
        }
        return null;
    }

    @Test
    void anInfiniteLoopEndsFailedWithFuelExhaustedAndNothingIsInvoiced() throws Exception {
        String module = c.putBlob(buyer, ComputeNodes.module("spin.wasm"));
        String in = c.putBlob(buyer, new byte[0]);
        JsonNode view = c.submit(buyer, workerDid, module, in, 20_000_000, 1_000_000, true);
        JsonNode end = c.awaitEnded(buyer, view.path("id").asText());
        assertEquals("failed", end.path("state").asText(), end.toString());
        assertTrue(end.path("error").asText().startsWith("fuel exhausted"), end.toString());
        assertTrue(end.path("invoice").isNull(), end.toString());
    }

    @Test
    void aBuyerThatNeverPaysLeavesTheWorkerWithItsKeyAndTheInvoiceExpired() throws Exception {
        SimulatedLnd lb = c.lnds.get("cm-buyer");
        SimulatedLnd lw = c.lnds.get("cm-worker");
        String module = c.putBlob(buyer, ComputeNodes.module("upper.wasm"));
        String in = c.putBlob(buyer, "never paid".getBytes(StandardCharsets.UTF_8));
        JsonNode view = c.submit(buyer, workerDid, module, in, 100_000_000, 1_000_000, false);
        String id = view.path("id").asText();
        JsonNode sealed = c.awaitJob(buyer, id, v -> v.path("state").asText().equals("sealed"), "sealed");
        assertFalse(sealed.path("invoice").isNull());
        long before = c.net.channelBalanceMsat(lb, lw);
        // the worker's invoice runs out (20 s); its escrow expires with k never released
        ComputeNodes.await(() -> ComputeNodes.compute(worker).path("worker_jobs").path("expired").asInt() >= 1,
                "the worker's job expired");
        assertEquals("sealed", c.job(buyer, id).path("state").asText(), "never paid, never opened");
        assertEquals(before, c.net.channelBalanceMsat(lb, lw), "nothing paid");
        // a late pay is refused by the rail: the invoice is dead
        var r = c.call(buyer, "POST", "/mesh/compute/jobs/" + id + "/pay", null);
        JsonNode after = c.awaitEnded(buyer, id);
        assertTrue(List.of("expired", "failed").contains(after.path("state").asText()), after + " " + r.body());
        assertEquals(before, c.net.channelBalanceMsat(lb, lw), "still nothing paid");
    }

    @Test
    void jobOverheadNextToTheBareRun() throws Exception {
        byte[] input = new byte[4096];
        java.util.Arrays.fill(input, (byte) 'q');
        String module = c.putBlob(buyer, ComputeNodes.module("sha256sum.wasm"));
        String in = c.putBlob(buyer, input);
        int n = 10;
        List<Long> market = new ArrayList<>();
        List<Long> bare = new ArrayList<>();
        // one of each first: the worker fetches the blobs and both compile the module once
        runMarket(module, in);
        runLocal(module, in);
        for (int i = 0; i < n; i++) {
            market.add(runMarket(module, in));
            bare.add(runLocal(module, in));
        }
        long m = median(market);
        long b = median(bare);
        String line = String.format("compute job overhead (sha256sum.wasm, 4 KiB input, %d jobs each): paid job on a"
                + " peer median %.1f ms, bare local run median %.1f ms, overhead %.1f ms (escrow + transport +"
                + " sealing)", n, m / 1e6, b / 1e6, (m - b) / 1e6);
        System.out.println(line);
        Files.writeString(MeshnodeProcess.targetDir().resolve("compute-overhead.txt"), line + "\n");
        assertTrue(m > 0 && b > 0);
    }

    private long runMarket(String module, String in) {
        long t = System.nanoTime();
        String id = c.submit(buyer, workerDid, module, in, 100_000_000, 10_000_000, true).path("id").asText();
        JsonNode end = c.awaitEnded(buyer, id);
        long d = System.nanoTime() - t;
        assertEquals("done", end.path("state").asText(), end.toString());
        return d;
    }

    private long runLocal(String module, String in) {
        long t = System.nanoTime();
        String id = c.submit(buyer, "local", module, in, 100_000_000, 0, false).path("id").asText();
        JsonNode end = c.awaitEnded(buyer, id);
        long d = System.nanoTime() - t;
        assertEquals("done", end.path("state").asText(), end.toString());
        return d;
    }

    static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
