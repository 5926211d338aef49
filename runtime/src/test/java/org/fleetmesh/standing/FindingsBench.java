package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Ad hoc (run with {@code -Dtest=FindingsBench -Dbench=true}, optionally {@code -Dbench.seconds=N}): findings verified
 * per second by evidence type on one thread, against bare BIP-340 event verification measured in the same run. The
 * findings are those of {@link TestFindings}: did:peer:4 long forms for observer and subject, as nodes publish them.
 * A finding's own id and signature are the relay's work, not the verifier's, and are not in the rate; the events
 * inside the evidence are (their signatures are counted in the table).
 */
class FindingsBench {
    private static double rate(BooleanSupplier op, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 0.25e9);
        while (System.nanoTime() < end) {
            op.getAsBoolean(); // warm up: JIT, resolver caches
        }
        long n = 0;
        long t0 = System.nanoTime();
        end = t0 + (long) (seconds * 1e9);
        long now;
        do {
            for (int i = 0; i < 16; i++) {
                if (!op.getAsBoolean()) {
                    throw new AssertionError("the benchmarked operation gave another result than before");
                }
            }
            n += 16;
            now = System.nanoTime();
        } while (now < end);
        return n / ((now - t0) / 1e9);
    }

    record Case(String type, Event finding, Verdict verdict, int signatures) {
    }

    @Test
    void findingsVerifiedPerSecond() {
        Assumptions.assumeTrue(Boolean.getBoolean("bench") || Boolean.getBoolean("fleetmesh.bench"),
                "an ad hoc benchmark: -Dbench=true");
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "3"));
        FindingVerifier v = new FindingVerifier(TestFindings.GRACE);
        Event lie = Finding.sign(TestFindings.SUBJECT_DID, TestFindings.THIRD_KEY, TestFindings.THIRD_DID, Severity.S2,
                Scope.COMPUTE, "compute-equivocation", TestFindings.computeEquivocation(), TestFindings.AT,
                TestFindings.SUBJECT.nostr().bytes());
        Event garbage = Events.sign(TestFindings.SUBJECT.nostr().bytes(), TestFindings.AT, Finding.KIND,
                List.of(List.of("p", TestFindings.OBSERVER_KEY.hex())), "spam");
        List<Case> cases = new ArrayList<>();
        cases.add(new Case(FindingEvidence.CUSTODY_BREACH + " (fork)", TestFindings.finding(TestFindings.custodyFork()),
                Verdict.VERIFIED, 2));
        cases.add(new Case(FindingEvidence.CUSTODY_RESET, TestFindings.finding(TestFindings.custodyReset()),
                Verdict.VERIFIED, 2));
        cases.add(new Case(FindingEvidence.WITHHOLDING, TestFindings.finding(TestFindings.withholding()),
                Verdict.VERIFIED, 2));
        cases.add(new Case(FindingEvidence.CLAIM_MISMATCH, TestFindings.finding(TestFindings.claimMismatch()),
                Verdict.VERIFIED, 1));
        cases.add(new Case(FindingEvidence.BUDGET, TestFindings.finding(FindingEvidence.budgetEvidence(
                TestFindings.budgetRecord())), Verdict.ATTESTED, 1));
        cases.add(new Case(FindingEvidence.COMPUTE_EQUIVOCATION, TestFindings.finding(
                TestFindings.computeEquivocation()), Verdict.VERIFIED, 2));
        cases.add(new Case(FindingEvidence.FALSE_FINDING + " (of a compute-equivocation)", TestFindings.finding(
                FindingEvidence.falseFinding(lie, v.check(lie).reason())), Verdict.VERIFIED, 3));
        cases.add(new Case(FindingEvidence.MALFORMED_FINDING, TestFindings.finding(FindingEvidence.malformedFinding(
                garbage, v.check(garbage).reason())), Verdict.VERIFIED, 1));
        cases.add(new Case("(malformed: refused by the reader)", garbage, Verdict.MALFORMED, 0));

        Event note = Events.sign(TestFindings.AUTHOR, TestFindings.AT, 1, List.of(), "a short note");
        double before = rate(() -> Events.verify(note) == null, seconds);
        Map<Case, Double> rates = new LinkedHashMap<>();
        for (Case c : cases) {
            assertEquals(c.verdict(), v.check(c.finding()).verdict(), c.type());
            rates.put(c, rate(() -> v.check(c.finding()).verdict() == c.verdict(), seconds));
        }
        Event biggest = cases.get(0).finding();
        double relay = rate(() -> Events.verify(biggest) == null, seconds);
        // the baseline runs first and last, so a machine that warms up or slows down in between shows in its two figures
        double after = rate(() -> Events.verify(note) == null, seconds);
        double baseline = (before + after) / 2;

        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%n| evidence type | content bytes | signatures inside | verdict "
                + "| findings verified/s | ratio to BIP-340 verify |%n|---|---|---|---|---|---|%n"));
        sb.append(String.format(Locale.ROOT, "| BIP-340 event verify, kind 1 note (baseline: mean of %,.0f first and %,.0f"
                + " last) | %d | 1 | — | %,.0f | 1.00 |%n", before, after,
                note.content().getBytes(StandardCharsets.UTF_8).length, baseline));
        sb.append(String.format(Locale.ROOT, "| BIP-340 event verify of the custody-fork finding (the relay's check) "
                + "| %d | 1 | — | %,.0f | %.2f |%n", biggest.content().getBytes(StandardCharsets.UTF_8).length, relay,
                relay / baseline));
        for (Map.Entry<Case, Double> e : rates.entrySet()) {
            Case c = e.getKey();
            sb.append(String.format(Locale.ROOT, "| %s | %,d | %d | %s | %,.0f | %.2f |%n", c.type(),
                    c.finding().content().getBytes(StandardCharsets.UTF_8).length, c.signatures(), c.verdict(),
                    e.getValue(), e.getValue() / baseline));
        }
        System.out.println("BENCH findings verified per second (one thread, " + seconds + " s each)" + sb);
    }
}
