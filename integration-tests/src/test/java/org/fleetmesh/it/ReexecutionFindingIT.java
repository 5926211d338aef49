package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.Runtimes;
import org.fleetmesh.compute.Sandbox;
import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.standing.FindingEvidence;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A node re-runs {@code fleetmesh.reexecution} evidence on its own sandbox (docs/spec/compute-runtimes.md §5): a
 * worker's signed job record committed to a made-up output, the true result observed, module and input inline. Given
 * to {@code POST /mesh/findings}, the node re-executes the job and signs the finding only when its run gives the
 * observed result.
 */
class ReexecutionFindingIT {
    static final byte[] WORKER = filled(0x77);
    static final byte[] KEY = filled(0x6b);
    static MeshnodeProcess node;
    static String writeToken;
    static byte[] module;
    static byte[] input;
    static JobSpec job;
    static JobResult truth;

    static byte[] filled(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    @BeforeAll
    static void start() throws Exception {
        node = MeshnodeProcess.start("reexecution");
        writeToken = PeeringIT.token(node, "admin:write");
        try (InputStream in = ReexecutionFindingIT.class.getResourceAsStream("/wasm/upper.wasm")) {
            module = in.readAllBytes();
        }
        input = "the job's input, to upper-case\n".getBytes(StandardCharsets.UTF_8);
        job = new JobSpec(JobSpec.sha256(module), JobSpec.sha256(input), List.of(), 10_000_000L, 16, 0,
                "00".repeat(32));
        truth = new Sandbox(Runtimes.get("chicory"), new Sandbox.Limits(100_000_000L, 64, Duration.ofSeconds(30),
                1 << 20, 1 << 20, Sandbox.Floats.ADMIT)).run(module, input, job);
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    static Event record(Commitment.Summary claimed) {
        return Events.sign(WORKER, Keys.now(), 30811, List.of(List.of("d", JobSpec.sha256(KEY)),
                List.of("job", job.digest()), List.of("module", job.module()), List.of("input", job.input()),
                List.of("commitment", Commitment.of(KEY, claimed)), List.of("payment_hash", JobSpec.sha256(KEY)),
                List.of("fuel", Long.toString(claimed.fuelUsed())), List.of("price", "0"),
                List.of("runtime", "chicory")), "");
    }

    static HttpResponse<String> post(String evidence) throws Exception {
        ObjectNode body = (ObjectNode) NostrClient.JSON.readTree(evidence);
        body.put("subject", DidKey.of(Multikey.nostr(new PubKey(Schnorr.publicKey(WORKER)))));
        return PeeringIT.send(HttpRequest.newBuilder(node.httpUri().resolve("/mesh/findings"))
                .header("Authorization", "Bearer " + writeToken).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    @Test
    void theNodeReRunsTheJobAndSignsTheFindingWhenItsRunGivesTheObservedResult() throws Exception {
        Commitment.Summary honest = Commitment.Summary.of(truth);
        Commitment.Summary claimed = new Commitment.Summary(0, honest.fuelUsed(), JobSpec.sha256(
                "made up\n".getBytes(StandardCharsets.UTF_8)), honest.stderrDigest());
        HttpResponse<String> r = post(FindingEvidence.reexecution(record(claimed), job, KEY, claimed, honest, module,
                input));
        assertEquals(201, r.statusCode(), r.body());
        JsonNode j = NostrClient.JSON.readTree(r.body());
        assertEquals("reexecution", j.path("rule").asText(), r.body());
        assertEquals("S2", j.path("severity").asText(), r.body());
        assertEquals("compute", j.path("scope").asText(), r.body());
        assertEquals("VERIFIED", j.path("verdict").asText(), r.body());
    }

    @Test
    void anObservedResultTheJobDoesNotGiveIsRefused() throws Exception {
        Commitment.Summary honest = Commitment.Summary.of(truth);
        Commitment.Summary lie = new Commitment.Summary(0, honest.fuelUsed() + 1, honest.outputDigest(),
                honest.stderrDigest());
        // the observer claims the honest worker's result is wrong: re-run here, the worker's result comes out
        HttpResponse<String> r = post(FindingEvidence.reexecution(record(honest), job, KEY, honest, lie, module,
                input));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("FALSE: reexecution: the job re-run here gives"), r.body());
    }

    /**
     * The same evidence a re-run verifies, published as a finding over the relay by a stranger (an observer whose
     * findings weigh nothing here): the node checks the record and key but re-runs no job for it, so a stranger cannot
     * buy the node's CPU with signed events. It is kept ATTESTED, the observer's word.
     */
    @Test
    void aStrangersReexecutionFindingIsCheckedWithoutAReRun() throws Exception {
        Commitment.Summary honest = Commitment.Summary.of(truth);
        Commitment.Summary claimed = new Commitment.Summary(0, honest.fuelUsed(), JobSpec.sha256(
                "made up by a stranger\n".getBytes(StandardCharsets.UTF_8)), honest.stderrDigest());
        String evidence = FindingEvidence.reexecution(record(claimed), job, KEY, claimed, honest, module, input);
        Standings.Signer stranger = Standings.Signer.fresh();
        PubKey worker = new PubKey(Schnorr.publicKey(WORKER));
        String workerDid = DidKey.of(Multikey.nostr(worker));
        Event finding = org.fleetmesh.standing.Finding.sign(stranger.did(), worker, workerDid,
                org.fleetmesh.standing.Severity.S2, org.fleetmesh.standing.Scope.COMPUTE, "reexecution", evidence,
                Keys.now(), stranger.secret());
        try (NostrClient c = NostrClient.connect(node)) {
            c.publishAndWait(finding).assertAccepted();
        }
        JsonNode s = Standings.awaitSubject(node, workerDid,
                x -> Standings.detail(x, finding.id().hex()).isPresent(), "the stranger's finding recorded");
        JsonNode d = Standings.detail(s, finding.id().hex()).orElseThrow();
        assertEquals("ATTESTED", d.path("verdict").asText(), d.toString());
        assertEquals("observer tier 0", d.path("why").asText(), d.toString());
    }

    @Test
    void withoutTheModuleAndInputItIsOnlyTheObserversWord() throws Exception {
        Commitment.Summary honest = Commitment.Summary.of(truth);
        Commitment.Summary claimed = new Commitment.Summary(1, honest.fuelUsed(), honest.outputDigest(),
                honest.stderrDigest());
        HttpResponse<String> r = post(FindingEvidence.reexecution(record(claimed), job, KEY, claimed, honest, null,
                null));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("ATTESTED"), r.body());
    }
}
