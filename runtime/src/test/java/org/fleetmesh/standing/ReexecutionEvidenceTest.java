package org.fleetmesh.standing;

import static org.fleetmesh.standing.TestFindings.AT;
import static org.fleetmesh.standing.TestFindings.OBSERVER_KEY;
import static org.fleetmesh.standing.TestFindings.SUBJECT;
import static org.fleetmesh.standing.TestFindings.SUBJECT_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** {@code fleetmesh.reexecution} evidence (docs/spec/findings.md): what it proves and when it is re-run. */
class ReexecutionEvidenceTest {
    static final byte[] MODULE = "\0asm module bytes of the job".getBytes(StandardCharsets.UTF_8);
    static final byte[] INPUT = "the job's stdin".getBytes(StandardCharsets.UTF_8);
    static final JobSpec JOB = new JobSpec(JobSpec.sha256(MODULE), JobSpec.sha256(INPUT), List.of("-n", "3"),
            1_000_000, 16, AT, "00".repeat(32));
    static final byte[] KEY = TestFindings.fill(0x5a);
    static final Commitment.Summary TRUE = new Commitment.Summary(0, 41_200, TestFindings.hash("right"),
            TestFindings.hash(""));
    static final Commitment.Summary CLAIMED = new Commitment.Summary(0, 41_200, TestFindings.hash("wrong"),
            TestFindings.hash(""));

    /** The worker's job record as compute/1.0 has it sign (docs/spec/compute.md). */
    static Event record(byte[] secret, JobSpec job, byte[] key, Commitment.Summary claimed) {
        List<List<String>> tags = List.of(List.of("d", TestFindings.hash("request")), List.of("job", job.digest()),
                List.of("module", job.module()), List.of("input", job.input()),
                List.of("commitment", Commitment.of(key, claimed)), List.of("payment_hash", JobSpec.sha256(key)),
                List.of("fuel", Long.toString(claimed.fuelUsed())), List.of("price", "41200"),
                List.of("runtime", "chicory"), List.of("p", OBSERVER_KEY.hex()));
        return Events.sign(secret, AT, 30811, tags, "");
    }

    static String evidence(boolean inline) {
        return FindingEvidence.reexecution(record(SUBJECT.nostr().bytes(), JOB, KEY, CLAIMED), JOB, KEY, CLAIMED, TRUE,
                inline ? MODULE : null, inline ? INPUT : null);
    }

    /** A re-executor that gives {@code result} for the test job and counts its runs. */
    static final class Rerun implements Reexecutor {
        final Optional<Commitment.Summary> result;
        final AtomicInteger runs = new AtomicInteger();

        Rerun(Optional<Commitment.Summary> result) {
            this.result = result;
        }

        @Override
        public Optional<Commitment.Summary> rerun(JobSpec job, byte[] module, byte[] input) {
            runs.incrementAndGet();
            assertEquals(JOB, job);
            assertTrue(Arrays.equals(MODULE, module) && Arrays.equals(INPUT, input));
            return result;
        }
    }

    private static Check check(FindingVerifier v, String evidence) {
        return v.check(TestFindings.finding(evidence));
    }

    private static void verdict(Verdict expected, String reasonPart, Check c) {
        assertEquals(expected, c.verdict(), c.reason());
        assertTrue(c.reason().contains(reasonPart), "expected \"" + reasonPart + "\" in: " + c.reason());
    }

    private static String edit(String json, Consumer<ObjectNode> change) {
        ObjectNode o = FindingEvidence.object(json);
        change.accept(o);
        return o.toString();
    }

    @Test
    void theEvidenceIsAnS2ComputeFindingAboutTheRecordsSigner() {
        String ev = evidence(true);
        assertEquals(new Draft(Severity.S2, Scope.COMPUTE, "reexecution", FindingEvidence.REEXECUTION, ev, SUBJECT_KEY),
                FindingEvidence.draft(ev));
        ObjectNode o = FindingEvidence.object(ev);
        assertEquals(List.of("type", "record", "job", "key", "claimed", "observed", "module", "input"),
                ImmutableNames.of(o));
        assertEquals(JOB.canonicalJson(), o.get("job").toString());
        assertEquals(Hex.encode(KEY), o.get("key").textValue());
        assertEquals(TRUE.canonicalJson(), o.get("observed").toString());
    }

    @Test
    void reRunHereAndGivingTheObservedResultItVerifies() {
        Rerun rerun = new Rerun(Optional.of(TRUE));
        verdict(Verdict.VERIFIED, "commits to a result the job does not give (output differs), re-executed here",
                check(FindingVerifier.reexecuting(TestFindings.GRACE, rerun), evidence(true)));
        assertEquals(1, rerun.runs.get());
    }

    @Test
    void reRunHereAndGivingAnotherResultItIsFalse() {
        verdict(Verdict.FALSE, "the job re-run here gives", check(FindingVerifier.reexecuting(TestFindings.GRACE,
                new Rerun(Optional.of(CLAIMED))), evidence(true)));
        Commitment.Summary third = new Commitment.Summary(1, 7, TestFindings.hash("x"), TestFindings.hash("y"));
        verdict(Verdict.FALSE, "not the observed result", check(FindingVerifier.reexecuting(TestFindings.GRACE,
                new Rerun(Optional.of(third))), evidence(true)));
    }

    @Test
    void withoutTheBytesOrARuntimeItIsTheObserversWord() {
        Rerun rerun = new Rerun(Optional.of(TRUE));
        verdict(Verdict.ATTESTED, "module or input not inline", check(FindingVerifier.reexecuting(TestFindings.GRACE,
                rerun), evidence(false)));
        assertEquals(0, rerun.runs.get());
        verdict(Verdict.ATTESTED, "this node runs no compute", check(new FindingVerifier(TestFindings.GRACE),
                evidence(true)));
        verdict(Verdict.ATTESTED, "did not re-run the job", check(FindingVerifier.reexecuting(TestFindings.GRACE,
                new Rerun(Optional.empty())), evidence(true)));
    }

    @Test
    void aFuelOrExitCodeDifferenceIsNamed() {
        Commitment.Summary inflated = new Commitment.Summary(0, 99_999, TRUE.outputDigest(), TRUE.stderrDigest());
        String ev = FindingEvidence.reexecution(record(SUBJECT.nostr().bytes(), JOB, KEY, inflated), JOB, KEY, inflated,
                TRUE, MODULE, INPUT);
        verdict(Verdict.VERIFIED, "(fuel_used differs)", check(FindingVerifier.reexecuting(TestFindings.GRACE,
                new Rerun(Optional.of(TRUE))), ev));
    }

    @Test
    void theRecordMustBindTheSubjectToTheClaimedResult() {
        FindingVerifier v = FindingVerifier.reexecuting(TestFindings.GRACE, new Rerun(Optional.of(TRUE)));
        byte[] third = TestFindings.THIRD.nostr().bytes();
        verdict(Verdict.FALSE, "the record is not signed by p", check(v, FindingEvidence.reexecution(
                record(third, JOB, KEY, CLAIMED), JOB, KEY, CLAIMED, TRUE, MODULE, INPUT)));
        verdict(Verdict.FALSE, "record: invalid: bad signature", check(v, edit(evidence(true),
                o -> ((ObjectNode) o.get("record")).put("sig", "00".repeat(64)))));
        // another key: its hash is not the payment hash the worker invoiced
        verdict(Verdict.FALSE, "SHA-256(key) is not the record's payment_hash", check(v, edit(evidence(true),
                o -> o.put("key", "01".repeat(32)))));
        // a claimed result other than the committed one
        verdict(Verdict.FALSE, "the record's commitment does not cover the claimed result", check(v, edit(evidence(
                true), o -> o.set("claimed", FindingEvidence.object(new Commitment.Summary(0, 41_200,
                        TestFindings.hash("else"), TestFindings.hash("")).canonicalJson())))));
        // the record of another job
        JobSpec other = new JobSpec(JOB.module(), JOB.input(), List.of("-n", "4"), JOB.fuelLimit(), JOB.memoryPages(),
                JOB.time(), JOB.seed());
        verdict(Verdict.FALSE, "the record's job tag is not the job's digest", check(v, edit(evidence(true),
                o -> o.set("job", FindingEvidence.object(other.canonicalJson())))));
        // the observed result is the claimed one: no difference, no finding
        verdict(Verdict.FALSE, "the observed result is the claimed one", check(v, FindingEvidence.reexecution(
                record(SUBJECT.nostr().bytes(), JOB, KEY, CLAIMED), JOB, KEY, CLAIMED, CLAIMED, MODULE, INPUT)));
        // not a job record
        Event note = Events.sign(SUBJECT.nostr().bytes(), AT, 1, record(SUBJECT.nostr().bytes(), JOB, KEY, CLAIMED)
                .tags(), "");
        verdict(Verdict.FALSE, "the record is kind 1, not 30811", check(v, FindingEvidence.reexecution(note, JOB, KEY,
                CLAIMED, TRUE, MODULE, INPUT)));
    }

    @Test
    void inlineBytesMustBeTheJobs() {
        FindingVerifier v = FindingVerifier.reexecuting(TestFindings.GRACE, new Rerun(Optional.of(TRUE)));
        verdict(Verdict.FALSE, "the SHA-256 of the inline module is not the job's module", check(v, edit(evidence(true),
                o -> o.put("module", "AAAA"))));
        verdict(Verdict.FALSE, "input is not base64", check(v, edit(evidence(true), o -> o.put("input", "%%"))));
    }

    @Test
    void summariesAreExactlyTheirFourMembers() {
        FindingVerifier v = new FindingVerifier(TestFindings.GRACE);
        verdict(Verdict.FALSE, "observed is not a result summary", check(v, edit(evidence(false),
                o -> ((ObjectNode) o.get("observed")).put("extra", 1))));
        verdict(Verdict.FALSE, "claimed: fuel_used is not a non-negative integer", check(v, edit(evidence(false),
                o -> ((ObjectNode) o.get("claimed")).put("fuel_used", -1))));
        verdict(Verdict.FALSE, "observed: output_digest and stderr_digest are 64 lower-case hex", check(v,
                edit(evidence(false), o -> ((ObjectNode) o.get("observed")).put("output_digest", "AB"))));
    }

    /** Any change to a member of the evidence, re-run with a re-executor that gives the true result, never verifies. */
    @Test
    void everyMemberCounts() {
        FindingVerifier v = FindingVerifier.reexecuting(TestFindings.GRACE, (job, m, i) -> JobSpec.sha256(m).equals(
                JOB.module()) && JobSpec.sha256(i).equals(JOB.input()) && job.equals(JOB) ? Optional.of(TRUE)
                        : Optional.of(CLAIMED));
        String ev = evidence(true);
        assertEquals(Verdict.VERIFIED, check(v, ev).verdict());
        ObjectNode o = FindingEvidence.object(ev);
        List<String> names = ImmutableNames.of(o);
        for (String n : names) {
            if (n.equals("type")) {
                continue;
            }
            String changed = edit(ev, x -> x.put(n, x.get(n).isTextual() ? x.get(n).textValue() + "0" : "{}"));
            assertNotEquals(Verdict.VERIFIED, check(v, changed).verdict(), n);
            String dropped = edit(ev, x -> x.remove(n));
            Verdict d = check(v, dropped).verdict();
            assertTrue(d == Verdict.FALSE || (d == Verdict.ATTESTED && (n.equals("module") || n.equals("input"))),
                    n + ": " + d);
        }
    }

    /** Member names in order. */
    static final class ImmutableNames {
        static List<String> of(ObjectNode o) {
            List<String> out = new ArrayList<>();
            o.fieldNames().forEachRemaining(out::add);
            return out;
        }
    }
}
