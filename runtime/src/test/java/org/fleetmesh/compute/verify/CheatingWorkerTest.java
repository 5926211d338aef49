package org.fleetmesh.compute.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobFailure;
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
import org.fleetmesh.standing.Check;
import org.fleetmesh.standing.FindingEvidence;
import org.fleetmesh.standing.FindingVerifier;
import org.fleetmesh.standing.Verdict;
import org.junit.jupiter.api.Test;

/**
 * A measurement, not a timing test (docs/spec/compute-runtimes.md, "Sampled re-execution"): a worker that cheats on a
 * fraction f of its jobs (a wrong output or inflated fuel) against a buyer that re-executes a fraction s of them with
 * real sandbox runs. The share of jobs on which the cheat is caught must lie within a binomial bound of f·s; every
 * catch makes re-execution evidence that a verifier with a sandbox re-runs and finds VERIFIED.
 */
class CheatingWorkerTest {
    static final Sandbox SANDBOX = new Sandbox(Runtimes.get("chicory"), new Sandbox.Limits(100_000_000L, 64,
            Duration.ofSeconds(30), 1 << 20, 1 << 20, Sandbox.Floats.ADMIT));
    static final byte[] WORKER = filled(0x61);
    static final byte[] KEY = filled(0x6b);

    static byte[] filled(int b) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    static byte[] module() throws IOException {
        return Files.readAllBytes(Path.of("src", "test", "resources", "wasm", "upper.wasm"));
    }

    /** What a catch needs: the job, its bytes, the worker's claim and the true result. */
    record Catch(JobSpec job, byte[] input, JobResult claimed, JobResult truth) {
    }

    @Test
    void aCheaterIsCaughtAtTheRateTheMathPredicts() throws IOException, JobFailure {
        byte[] module = module();
        int n = 2000;
        double f = 0.2;
        double s = 0.25;
        Random worker = new Random(15);
        Sampling buyer = new Sampling(filled(0x5b));
        int cheated = 0;
        int sampled = 0;
        int caught = 0;
        Catch first = null;
        for (int i = 0; i < n; i++) {
            byte[] input = ("job " + i + " for the market\n").getBytes(StandardCharsets.UTF_8);
            JobSpec job = new JobSpec(JobSpec.sha256(module), JobSpec.sha256(input), List.of(), 10_000_000L, 16,
                    1_767_225_600L, "00".repeat(32));
            JobResult honest = SANDBOX.run(module, input, job);
            JobResult claimed = honest;
            if (worker.nextDouble() < f) {
                cheated++;
                claimed = i % 2 == 0
                        ? new JobResult(0, "made up\n".getBytes(StandardCharsets.UTF_8), honest.stderr(),
                                honest.fuelUsed(), honest.moduleHash(), honest.inputDigest(),
                                JobSpec.sha256("made up\n".getBytes(StandardCharsets.UTF_8)))
                        : new JobResult(honest.exitCode(), honest.stdout(), honest.stderr(), honest.fuelUsed() * 3,
                                honest.moduleHash(), honest.inputDigest(), honest.outputDigest());
            }
            if (buyer.decide(job.digest(), s)) {
                sampled++;
                Optional<Commitment.Summary> observed = new Reexecution(SANDBOX).rerun(job, module, input);
                assertTrue(observed.isPresent());
                if (!Reexecution.matches(claimed, observed.get())) {
                    caught++;
                    if (first == null) {
                        first = new Catch(job, input, claimed, SANDBOX.run(module, input, job));
                    }
                }
            }
        }
        double p = f * s;
        double sd = Math.sqrt(n * p * (1 - p));
        System.out.printf(Locale.ROOT, "cheater: n=%d f=%.2f s=%.2f: cheated on %d, sampled %d, caught %d "
                + "(%.4f of jobs; predicted f*s = %.4f, ±%.1f jobs at 1 sd); P(caught within 20 jobs) = %.3f%n", n, f, s,
                cheated, sampled, caught, (double) caught / n, p, sd, Sampling.catchWithin(f, s, 20));
        assertTrue(Math.abs(caught - n * p) < 4.5 * sd, "caught " + caught + ", expected " + n * p + " ± " + sd);
        assertTrue(first != null);
        assertEquals(Verdict.VERIFIED, evidenceCheck(first, module).verdict(), evidenceCheck(first, module).reason());
    }

    /**
     * Jobs until the first catch, over 2000 workers that each cheat with probability f (the buyer's choices are its
     * Sampling's, by job id; no sandbox runs: whether a cheat is caught when sampled is shown above): the mean is
     * within a bound of the geometric mean 1/(f·s).
     */
    @Test
    void theFirstCatchComesAfterAboutOneOverFsJobs() {
        double f = 0.1;
        double s = 0.1;
        Sampling buyer = new Sampling(filled(0x5c));
        Random workers = new Random(90);
        int trials = 2000;
        long total = 0;
        for (int t = 0; t < trials; t++) {
            long jobs = 0;
            boolean caught = false;
            while (!caught) {
                jobs++;
                boolean cheat = workers.nextDouble() < f;
                caught = cheat && buyer.decide("worker " + t + " job " + jobs, s);
            }
            total += jobs;
        }
        double mean = (double) total / trials;
        double expected = Sampling.expectedJobsToCatch(f, s);
        // geometric: sd = sqrt(1 − p)/p per trial
        double se = Math.sqrt(1 - f * s) / (f * s) / Math.sqrt(trials);
        System.out.printf(Locale.ROOT, "first catch: f=%.2f s=%.2f over %d workers: mean %.1f jobs (predicted 1/(f*s) "
                + "= %.1f, ±%.1f at 1 se)%n", f, s, trials, mean, expected, se);
        assertTrue(Math.abs(mean - expected) < 4.5 * se, "mean " + mean + " vs " + expected + " ± " + se);
    }

    /** The catch as a finding's evidence, checked by a verifier that re-runs it on its own sandbox. */
    static Check evidenceCheck(Catch c, byte[] module) {
        Commitment.Summary claimed = Commitment.Summary.of(c.claimed());
        List<List<String>> tags = List.of(List.of("d", JobSpec.sha256(("request " + c.job().digest())
                .getBytes(StandardCharsets.UTF_8))), List.of("job", c.job().digest()),
                List.of("module", c.job().module()), List.of("input", c.job().input()),
                List.of("commitment", Commitment.of(KEY, claimed)), List.of("payment_hash", JobSpec.sha256(KEY)),
                List.of("fuel", Long.toString(claimed.fuelUsed())), List.of("price", "0"),
                List.of("runtime", "chicory"));
        Event record = Events.sign(WORKER, 1_767_225_700L, 30811, tags, "");
        String ev = FindingEvidence.reexecution(record, c.job(), KEY, claimed, Commitment.Summary.of(c.truth()), module,
                c.input());
        PubKey worker = new PubKey(Schnorr.publicKey(WORKER));
        PubKey observer = new PubKey(Schnorr.publicKey(filled(0x62)));
        return FindingVerifier.reexecuting(300, new Reexecution(SANDBOX)).checkEvidence(FindingEvidence.REEXECUTION, ev,
                worker, DidKey.of(Multikey.nostr(worker)), observer, DidKey.of(Multikey.nostr(observer)));
    }
}
