package org.fleetmesh.standing;

import static org.fleetmesh.standing.TestFindings.OBSERVER_DID;
import static org.fleetmesh.standing.TestFindings.OBSERVER_KEY;
import static org.fleetmesh.standing.TestFindings.SUBJECT_DID;
import static org.fleetmesh.standing.TestFindings.SUBJECT_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.spi.peers.Evidence;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** What a node that receives a finding concludes (docs/spec/findings.md, "What a verifier checks"). */
class FindingVerifierTest {
    /** Members of evidence objects that record the observer's notes, not proof (docs/spec/findings.md). */
    private static final java.util.Set<String> INFORMATIONAL = java.util.Set.of("detail", "reason", "at", "expected",
            "archived", "observed_at", "request");
    private static final FindingVerifier VERIFIER = new FindingVerifier(TestFindings.GRACE);

    private static Check check(Event e) {
        return VERIFIER.check(e);
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
    void aCustodyForkFindingVerifies() {
        String ev = TestFindings.custodyFork();
        Draft d = FindingEvidence.draft(ev);
        assertEquals(new Draft(Severity.S2, Scope.TRANSIT, "custody-fork", FindingEvidence.CUSTODY_BREACH, ev,
                SUBJECT_KEY), d);
        verdict(Verdict.VERIFIED, "custody fork breach by the receiver", check(TestFindings.finding(ev)));
    }

    @Test
    void aCustodyResetFindingVerifies() {
        String ev = TestFindings.custodyReset();
        assertEquals(Severity.S1, FindingEvidence.draft(ev).severity());
        assertEquals("custody-reset", FindingEvidence.draft(ev).rule());
        verdict(Verdict.VERIFIED, "no longer holds its tree of size 3", check(TestFindings.finding(ev)));
    }

    /**
     * The claim is the subject's, but the answer that lacks the event is only the observer's account: anyone can
     * write it about any subject that asserted a shard, so it is the observer's word (findings.md §4).
     */
    @Test
    void aWithholdingFindingIsTheObserversWord() {
        String ev = TestFindings.withholding();
        assertEquals(SUBJECT_KEY, FindingEvidence.draft(ev).subjectKey());
        verdict(Verdict.ATTESTED, "of its asserted shard notes (the answer is the observer's word)",
                check(TestFindings.finding(ev)));
    }

    @Test
    void withholdingWithLessGraceThanThisNodeRequiresIsFalse() {
        Check c = new FindingVerifier(TestFindings.GRACE + 1).check(TestFindings.finding(TestFindings.withholding()));
        verdict(Verdict.FALSE, "grace 300 s is below the 301 s required", c);
    }

    @Test
    void aClaimMismatchFindingVerifies() {
        verdict(Verdict.VERIFIED, "identified by its root", check(TestFindings.finding(TestFindings.claimMismatch())));
    }

    /**
     * Served ids that meet the claim's fingerprint but not its root: a fingerprint is a sum of ids and a count, which
     * ids of anyone's choosing can meet, so the match (and the mismatch of the root) is the observer's word.
     */
    @Test
    void aClaimMismatchByTheFingerprintIsTheObserversWord() {
        verdict(Verdict.ATTESTED, "identified by its fingerprint) has other figures than the subject's claim (the "
                + "served ids are the observer's word)",
                check(TestFindings.finding(TestFindings.claimMismatchByFingerprint())));
    }

    @Test
    void aBudgetFindingIsAttested() {
        Evidence record = TestFindings.budgetRecord();
        Draft d = FindingEvidence.fromLedger(record);
        assertEquals(Severity.S3, d.severity());
        assertEquals(Scope.TRANSIT, d.scope());
        assertEquals("budget", d.rule());
        assertEquals(FindingEvidence.budgetEvidence(record), d.evidenceJson());
        JsonNode o = FindingEvidence.object(d.evidenceJson());
        assertEquals(record.grantId(), o.get("grant").get("id").asText());
        assertEquals(16, o.get("detail").get("violations_total").asInt());
        assertEquals(record.quarantinedUntil(), o.get("quarantined_until").asLong());
        verdict(Verdict.ATTESTED, "violations are the observer's word", check(TestFindings.finding(d.evidenceJson())));
    }

    @Test
    void aBudgetFindingWithoutAGrantIsTheObserversWord() {
        Evidence r = TestFindings.budgetRecord();
        Evidence none = new Evidence(r.id(), r.peer(), r.severity(), r.reason(), r.violations(), r.periodStart(),
                r.at(), r.quarantinedUntil(), "", "", r.detail());
        verdict(Verdict.ATTESTED, "no grant was in force",
                check(TestFindings.finding(FindingEvidence.budgetEvidence(none))));
    }

    @Test
    void aBudgetFindingByAnotherThanTheGrantorIsFalse() {
        String ev = FindingEvidence.budgetEvidence(TestFindings.budgetRecord());
        Event byThird = Finding.sign(TestFindings.THIRD_DID, SUBJECT_KEY, SUBJECT_DID, Severity.S3, Scope.TRANSIT,
                "budget", ev, TestFindings.AT + 100, TestFindings.THIRD.nostr().bytes());
        verdict(Verdict.FALSE, "the grant is not signed by the observer", check(byThird));
        verdict(Verdict.FALSE, "budget: grant: invalid: event id does not match", check(TestFindings.finding(edit(ev,
                o -> ((ObjectNode) o.get("grant")).put("created_at", TestFindings.AT - 601)))));
    }

    @Test
    void aComputeEquivocationFindingVerifies() {
        String ev = TestFindings.computeEquivocation();
        assertEquals(Scope.COMPUTE, FindingEvidence.draft(ev).scope());
        verdict(Verdict.VERIFIED, "(outputs differ)", check(TestFindings.finding(ev)));
        byte[] s = TestFindings.SUBJECT.nostr().bytes();
        String fuel = FindingEvidence.computeEquivocation(TestFindings.statement(s, 1, "same", "10"),
                TestFindings.statement(s, 2, "same", "11"));
        verdict(Verdict.VERIFIED, "(fuel differs)", check(TestFindings.finding(fuel)));
    }

    private static Event jobStatement(byte[] s, long at, String output, String job) {
        List<List<String>> tags = new ArrayList<>(List.of(List.of("module", TestFindings.hash("module")),
                List.of("input", TestFindings.hash("input")), List.of("output", TestFindings.hash(output))));
        if (job != null) {
            tags.add(List.of("job", TestFindings.hash(job)));
        }
        return Events.sign(s, at, 30811, tags, "");
    }

    @Test
    void statementsNamingDifferentJobsAreNotEquivocation() {
        byte[] s = TestFindings.SUBJECT.nostr().bytes();
        verdict(Verdict.FALSE, "the statements are about different jobs (job)", check(TestFindings.finding(
                FindingEvidence.computeEquivocation(jobStatement(s, 1, "x", "args a"), jobStatement(s, 2, "y",
                        "args b")))));
        verdict(Verdict.VERIFIED, "(outputs differ)", check(TestFindings.finding(FindingEvidence.computeEquivocation(
                jobStatement(s, 1, "x", "args a"), jobStatement(s, 2, "y", "args a")))));
        // one statement without a job tag: module and input decide, as before job tags
        verdict(Verdict.VERIFIED, "(outputs differ)", check(TestFindings.finding(FindingEvidence.computeEquivocation(
                jobStatement(s, 1, "x", "args a"), jobStatement(s, 2, "y", null)))));
        Event badJob = Events.sign(s, 3, 30811, List.of(List.of("module", TestFindings.hash("module")),
                List.of("input", TestFindings.hash("input")), List.of("output", TestFindings.hash("z")),
                List.of("job", "JOB")), "");
        verdict(Verdict.FALSE, "job is not a SHA-256", check(TestFindings.finding(FindingEvidence.computeEquivocation(
                jobStatement(s, 1, "x", null), badJob))));
    }

    @Test
    void computeEquivocationIsWrittenTheSameWhicheverStatementComesFirst() {
        byte[] s = TestFindings.SUBJECT.nostr().bytes();
        Event a = TestFindings.statement(s, 1, "x", null);
        Event b = TestFindings.statement(s, 2, "y", null);
        assertEquals(FindingEvidence.computeEquivocation(a, b), FindingEvidence.computeEquivocation(b, a));
    }

    @Test
    void computeStatementsThatAgreeOrAreNotTheSubjectsAreFalse() {
        byte[] s = TestFindings.SUBJECT.nostr().bytes();
        verdict(Verdict.FALSE, "the same result", check(TestFindings.finding(FindingEvidence.computeEquivocation(
                TestFindings.statement(s, 1, "same", "10"), TestFindings.statement(s, 2, "same", "10")))));
        verdict(Verdict.FALSE, "] is not signed by p", check(TestFindings.finding(
                FindingEvidence.computeEquivocation(TestFindings.statement(s, 1, "x", null),
                        TestFindings.statement(TestFindings.THIRD.nostr().bytes(), 99, "y", null)))));
        Event other = Events.sign(s, 3, 30811, List.of(List.of("module", TestFindings.hash("other")),
                List.of("input", TestFindings.hash("input")), List.of("output", TestFindings.hash("z"))), "");
        verdict(Verdict.FALSE, "different jobs", check(TestFindings.finding(FindingEvidence.computeEquivocation(
                TestFindings.statement(s, 1, "x", null), other))));
        Event noOutput = Events.sign(s, 4, 30811, List.of(List.of("module", TestFindings.hash("module")),
                List.of("input", TestFindings.hash("input"))), "");
        verdict(Verdict.FALSE, "missing tag output", check(TestFindings.finding(FindingEvidence.computeEquivocation(
                TestFindings.statement(s, 1, "x", null), noOutput))));
        Event a = TestFindings.statement(s, 1, "x", null);
        String twice = FindingEvidence.computeEquivocation(a, a);
        verdict(Verdict.FALSE, "one event", check(TestFindings.finding(twice)));
    }

    @Test
    void tamperedEvidenceIsFalse() {
        String fork = TestFindings.custodyFork();
        verdict(Verdict.FALSE, "custody evidence does not hold", check(TestFindings.finding(edit(fork,
                o -> ((ObjectNode) o.get("receipt")).put("content", "tampered")))));
        verdict(Verdict.FALSE, "withholding: answer: the peer returned the event", check(TestFindings.finding(
                edit(TestFindings.withholding(), o -> ((ArrayNode) o.get("answer").get("ids"))
                        .add(o.get("event").get("id").asText())))));
        verdict(Verdict.FALSE, "claim-mismatch: figures are not those of the served set", check(TestFindings.finding(
                edit(TestFindings.claimMismatch(), o -> ((ArrayNode) o.get("served")).remove(0)))));
        verdict(Verdict.FALSE, "statements[0]: invalid: event id does not match", check(TestFindings.finding(
                edit(TestFindings.computeEquivocation(), o -> ((ObjectNode) o.get("statements").get(0))
                        .put("created_at", 5)))));
        verdict(Verdict.FALSE, "custody reset evidence does not hold", check(TestFindings.finding(
                edit(TestFindings.custodyReset(), o -> o.put("size", 4)))));
    }

    @Test
    void evidenceAboutAnotherSubjectIsFalse() {
        Map<String, String> byType = Map.of("custody", TestFindings.custodyFork(), "withholding",
                TestFindings.withholding(), "claim-mismatch", TestFindings.claimMismatch(), "compute",
                TestFindings.computeEquivocation(), "budget", FindingEvidence.budgetEvidence(TestFindings.budgetRecord()));
        for (Map.Entry<String, String> e : byType.entrySet()) {
            Draft d = FindingEvidence.draft(e.getValue());
            Event about = Finding.sign(OBSERVER_DID, TestFindings.THIRD_KEY, TestFindings.THIRD_DID, d.severity(),
                    d.scope(), d.rule(), e.getValue(), TestFindings.AT + 100, TestFindings.OBSERVER.nostr().bytes());
            Check c = check(about);
            assertEquals(Verdict.FALSE, c.verdict(), e.getKey() + ": " + c.reason());
        }
        verdict(Verdict.FALSE, "the evidence's receiver", check(Finding.sign(OBSERVER_DID, TestFindings.THIRD_KEY,
                TestFindings.THIRD_DID, Severity.S2, Scope.TRANSIT, "custody-fork", TestFindings.custodyFork(),
                TestFindings.AT, TestFindings.OBSERVER.nostr().bytes())));
        verdict(Verdict.FALSE, "the evidence's subject", check(Finding.sign(OBSERVER_DID, TestFindings.THIRD_KEY,
                TestFindings.THIRD_DID, Severity.S2, Scope.TRANSIT, "withholding", TestFindings.withholding(),
                TestFindings.AT, TestFindings.OBSERVER.nostr().bytes())));
    }

    @Test
    void aShortFormSubjectIsBoundToItsKeyOnlyBySamplingEvidence() {
        String shortForm = PeerIdentity.shortForm(SUBJECT_DID);
        Event w = Finding.sign(OBSERVER_DID, SUBJECT_KEY, shortForm, Severity.S2, Scope.TRANSIT, "withholding",
                TestFindings.withholding(), TestFindings.AT, TestFindings.OBSERVER.nostr().bytes());
        verdict(Verdict.ATTESTED, "of its asserted shard", check(w));
        Event m = Finding.sign(OBSERVER_DID, SUBJECT_KEY, shortForm, Severity.S2, Scope.TRANSIT, "claim-mismatch",
                TestFindings.claimMismatch(), TestFindings.AT, TestFindings.OBSERVER.nostr().bytes());
        verdict(Verdict.VERIFIED, "identified by its root", check(m));
        Event wrongKey = Finding.sign(OBSERVER_DID, TestFindings.THIRD_KEY, shortForm, Severity.S2, Scope.TRANSIT,
                "withholding", TestFindings.withholding(), TestFindings.AT, TestFindings.OBSERVER.nostr().bytes());
        verdict(Verdict.FALSE, "p is not a Nostr key of the evidence's subject", check(wrongKey));
        Event fork = Finding.sign(OBSERVER_DID, SUBJECT_KEY, shortForm, Severity.S2, Scope.TRANSIT, "custody-fork",
                TestFindings.custodyFork(), TestFindings.AT, TestFindings.OBSERVER.nostr().bytes());
        verdict(Verdict.UNVERIFIABLE, "the subject is a did:peer:4 short form", check(fork));
    }

    /**
     * The framing a short form would allow: the third node signs two conflicting statements with its own key and
     * names the honest subject by its short form beside that key. Nothing ties the key to the subject.
     */
    @Test
    void nobodyCanPinTheirOwnMisdeedsOnAShortForm() {
        byte[] t = TestFindings.THIRD.nostr().bytes();
        String own = FindingEvidence.computeEquivocation(TestFindings.statement(t, 1, "a", null),
                TestFindings.statement(t, 2, "b", null));
        Event framing = Finding.sign(TestFindings.THIRD_DID, TestFindings.THIRD_KEY,
                PeerIdentity.shortForm(SUBJECT_DID), Severity.S2, Scope.COMPUTE, "compute-equivocation", own,
                TestFindings.AT, t);
        verdict(Verdict.UNVERIFIABLE, "nothing in fleetmesh.compute-equivocation evidence binds p", check(framing));
        verdict(Verdict.UNVERIFIABLE, "short form", VERIFIER.checkEvidence(FindingEvidence.COMPUTE_EQUIVOCATION, own,
                TestFindings.THIRD_KEY, PeerIdentity.shortForm(SUBJECT_DID), OBSERVER_KEY, OBSERVER_DID));
        // with the long form, the reader refuses the key outright
        assertThrows(IllegalArgumentException.class, () -> Finding.sign(TestFindings.THIRD_DID, TestFindings.THIRD_KEY,
                SUBJECT_DID, Severity.S2, Scope.COMPUTE, "compute-equivocation", own, TestFindings.AT, t));
        verdict(Verdict.FALSE, "p is not a Nostr key of the subject", VERIFIER.checkEvidence(
                FindingEvidence.COMPUTE_EQUIVOCATION, own, TestFindings.THIRD_KEY, SUBJECT_DID, OBSERVER_KEY,
                OBSERVER_DID));
    }

    @Test
    void severityScopeOrRuleOtherThanTheEvidenceTypesIsFalse() {
        String fork = TestFindings.custodyFork();
        verdict(Verdict.FALSE, "severity S3 is not that of fleetmesh.custody-breach evidence (S2)",
                check(TestFindings.finding(Severity.S3, Scope.TRANSIT, "custody-fork", fork)));
        verdict(Verdict.FALSE, "severity S1 is not that of",
                check(TestFindings.finding(Severity.S1, Scope.TRANSIT, "custody-fork", fork)));
        verdict(Verdict.FALSE, "scope compute is not that of this fleetmesh.custody-breach evidence (transit)",
                check(TestFindings.finding(Severity.S2, Scope.COMPUTE, "custody-fork", fork)));
        verdict(Verdict.FALSE, "rule custody-prev is not that of this fleetmesh.custody-breach evidence (custody-fork)",
                check(TestFindings.finding(Severity.S2, Scope.TRANSIT, "custody-prev", fork)));
        verdict(Verdict.FALSE, "scope transit is not that of this fleetmesh.compute-equivocation evidence (compute)",
                check(TestFindings.finding(Severity.S2, Scope.TRANSIT, "compute-equivocation",
                        TestFindings.computeEquivocation())));
    }

    @Test
    void unknownTypesAreUnverifiableAndReexecutionIsNoLongerReserved() {
        verdict(Verdict.UNVERIFIABLE, "evidence type org.example.mine is not one this node checks", check(
                TestFindings.finding(Severity.S2, Scope.TRANSIT, "mine", "{\"type\":\"org.example.mine\"}")));
        verdict(Verdict.FALSE, "reexecution: record is missing or not an event object", check(TestFindings.finding(
                Severity.S2, Scope.COMPUTE, "reexecution", "{\"type\":\"fleetmesh.reexecution\",\"module\":\"m\"}")));
    }

    @Test
    void aMalformedEventIsMalformed() {
        verdict(Verdict.MALFORMED, "invalid: missing p tag", check(TestFindings.raw(List.of(), "{}")));
    }

    @Test
    void aFalseFindingAboutAFalseFindingVerifies() {
        // the subject publishes a finding against the third node whose evidence is about the subject itself
        Event lie = Finding.sign(SUBJECT_DID, TestFindings.THIRD_KEY, TestFindings.THIRD_DID, Severity.S2,
                Scope.COMPUTE, "compute-equivocation", TestFindings.computeEquivocation(), TestFindings.AT,
                TestFindings.SUBJECT.nostr().bytes());
        Check inner = check(lie);
        assertEquals(Verdict.FALSE, inner.verdict(), inner.reason());
        String ev = FindingEvidence.falseFinding(lie, inner.reason());
        Draft d = FindingEvidence.draft(ev);
        assertEquals(new Draft(Severity.S2, Scope.COMPUTE, "false-finding", FindingEvidence.FALSE_FINDING, ev,
                SUBJECT_KEY), d);
        verdict(Verdict.VERIFIED, "which is false: compute-equivocation: statements[0] is not signed by p",
                check(TestFindings.finding(ev)));
        // a true finding shown "false" is a false false-finding
        Event truth = Finding.sign(SUBJECT_DID, TestFindings.THIRD_KEY, TestFindings.THIRD_DID, Severity.S2,
                Scope.COMPUTE, "compute-equivocation", computeByThird(), TestFindings.AT,
                TestFindings.SUBJECT.nostr().bytes());
        assertEquals(Verdict.VERIFIED, check(truth).verdict(), check(truth).reason());
        verdict(Verdict.FALSE, "the finding is not false here: VERIFIED",
                check(TestFindings.finding(FindingEvidence.falseFinding(truth, "said so"))));
        // published by another than p
        verdict(Verdict.FALSE, "the finding was not published by p", check(Finding.sign(OBSERVER_DID,
                TestFindings.THIRD_KEY, TestFindings.THIRD_DID, Severity.S2, Scope.COMPUTE, "false-finding", ev,
                TestFindings.AT, TestFindings.OBSERVER.nostr().bytes())));
        // a forged embedded finding proves nothing about anyone
        verdict(Verdict.FALSE, "false-finding: finding: invalid: bad signature", check(TestFindings.finding(edit(ev,
                o -> ((ObjectNode) o.get("finding")).put("sig", "00".repeat(64))))));
    }

    private static String computeByThird() {
        byte[] t = TestFindings.THIRD.nostr().bytes();
        return FindingEvidence.computeEquivocation(TestFindings.statement(t, 1, "a", null),
                TestFindings.statement(t, 2, "b", null));
    }

    @Test
    void nestedFalseFindingsStopAtTheDepthBound() {
        Event level = Finding.sign(SUBJECT_DID, TestFindings.THIRD_KEY, TestFindings.THIRD_DID, Severity.S2,
                Scope.COMPUTE, "compute-equivocation", TestFindings.computeEquivocation(), TestFindings.AT,
                TestFindings.SUBJECT.nostr().bytes());
        // the observer shows the subject's finding false; the subject calls that false; the observer shows it false...
        for (int i = 0; i < FindingVerifier.MAX_DEPTH; i++) {
            boolean observer = i % 2 == 0;
            String ev = FindingEvidence.falseFinding(level, "level " + i);
            level = observer ? TestFindings.finding(ev)
                    : Finding.sign(SUBJECT_DID, OBSERVER_KEY, OBSERVER_DID, Severity.S2, Scope.COMPUTE, "false-finding",
                            ev, TestFindings.AT, TestFindings.SUBJECT.nostr().bytes());
            Check c = check(level);
            if (i == FindingVerifier.MAX_DEPTH - 1) {
                // a chain of five findings: the first is not followed, so none of the verdicts above it holds
                verdict(Verdict.UNVERIFIABLE, "findings nested 4 deep are not followed", c);
            } else {
                assertEquals(observer ? Verdict.VERIFIED : Verdict.FALSE, c.verdict(), c.reason());
            }
        }
    }

    @Test
    void aMalformedFindingFindingVerifies() {
        Event garbage = Events.sign(TestFindings.SUBJECT.nostr().bytes(), TestFindings.AT, Finding.KIND,
                List.of(List.of("p", OBSERVER_KEY.hex())), "spam");
        Check inner = check(garbage);
        verdict(Verdict.MALFORMED, "invalid: missing subject tag", inner);
        String ev = FindingEvidence.malformedFinding(garbage, inner.reason());
        assertEquals(new Draft(Severity.S1, Scope.TRANSIT, "malformed-finding", FindingEvidence.MALFORMED_FINDING, ev,
                SUBJECT_KEY), FindingEvidence.draft(ev));
        verdict(Verdict.VERIFIED, "which is not a finding: invalid: missing subject tag",
                check(TestFindings.finding(ev)));
        Event wellFormed = Finding.sign(SUBJECT_DID, TestFindings.THIRD_KEY, TestFindings.THIRD_DID, Severity.S2,
                Scope.COMPUTE, "compute-equivocation", computeByThird(), TestFindings.AT,
                TestFindings.SUBJECT.nostr().bytes());
        verdict(Verdict.FALSE, "the event is a well-formed finding",
                check(TestFindings.finding(FindingEvidence.malformedFinding(wellFormed, "said so"))));
        Event note = Events.sign(TestFindings.SUBJECT.nostr().bytes(), 1, 1, List.of(), "hello");
        verdict(Verdict.FALSE, "the event is kind 1, not 1804",
                check(TestFindings.finding(FindingEvidence.malformedFinding(note, "said so"))));
    }

    @Test
    void checkEvidenceVerifiesAnObjectForAStatedSubject() {
        String ev = TestFindings.computeEquivocation();
        verdict(Verdict.VERIFIED, "outputs differ", VERIFIER.checkEvidence(FindingEvidence.COMPUTE_EQUIVOCATION, ev,
                SUBJECT_KEY, SUBJECT_DID, OBSERVER_KEY, OBSERVER_DID));
        verdict(Verdict.FALSE, "not signed by p", VERIFIER.checkEvidence(FindingEvidence.COMPUTE_EQUIVOCATION, ev,
                TestFindings.THIRD_KEY, TestFindings.THIRD_DID, OBSERVER_KEY, OBSERVER_DID));
        verdict(Verdict.FALSE, "p is not a Nostr key of the subject", VERIFIER.checkEvidence(
                FindingEvidence.COMPUTE_EQUIVOCATION, ev, SUBJECT_KEY, TestFindings.THIRD_DID, OBSERVER_KEY,
                OBSERVER_DID));
        verdict(Verdict.FALSE, "the evidence's type is not withholding", VERIFIER.checkEvidence(
                FindingEvidence.WITHHOLDING, ev, SUBJECT_KEY, SUBJECT_DID, OBSERVER_KEY, OBSERVER_DID));
        verdict(Verdict.FALSE, "not a JSON object", VERIFIER.checkEvidence(FindingEvidence.WITHHOLDING, "nope",
                SUBJECT_KEY, SUBJECT_DID, OBSERVER_KEY, OBSERVER_DID));
    }

    @Test
    void fromLedgerMapsEveryRecordTheMechanismsWrite() {
        String fork = TestFindings.custodyFork();
        Evidence r = new Evidence(1, PeerIdentity.shortForm(SUBJECT_DID), "S2", "custody: fork", 0, 1, 1, 0, "", "",
                fork);
        assertEquals(new Draft(Severity.S2, Scope.TRANSIT, "custody-fork", FindingEvidence.CUSTODY_BREACH, fork,
                SUBJECT_KEY), FindingEvidence.fromLedger(r));
        String w = TestFindings.withholding();
        assertEquals("withholding", FindingEvidence.fromLedger(new Evidence(2, r.peer(), "S2", "withholding", 0, 1, 1,
                0, "", "", w)).rule());
        assertEquals("custody-reset", FindingEvidence.fromLedger(new Evidence(3, r.peer(), "S1", "custody-reset", 0, 1,
                1, 0, "", "", TestFindings.custodyReset())).rule());
        assertEquals("claim-mismatch", FindingEvidence.fromLedger(new Evidence(4, r.peer(), "S2", "claim-mismatch", 0,
                1, 1, 0, "", "", TestFindings.claimMismatch())).rule());
        assertThrows(IllegalArgumentException.class, () -> FindingEvidence.fromLedger(new Evidence(5, r.peer(), "S2",
                "?", 0, 1, 1, 0, "", "", "{\"counts\":1}")));
        assertThrows(IllegalArgumentException.class, () -> FindingEvidence.fromLedger(new Evidence(6, r.peer(), "S2",
                "?", 0, 1, 1, 0, "", "", "{\"type\":\"org.example\"}")));
    }

    /**
     * Random mutations of valid findings of every type (a character of the content or a tag changed, dropped or
     * doubled; the event re-signed by the observer so it reaches the verifier) never throw and never verify a
     * changed content.
     */
    @Test
    void mutationsNeverThrowAndNeverVerifyChangedEvidence() {
        Event lie = Finding.sign(SUBJECT_DID, TestFindings.THIRD_KEY, TestFindings.THIRD_DID, Severity.S2,
                Scope.COMPUTE, "compute-equivocation", TestFindings.computeEquivocation(), TestFindings.AT,
                TestFindings.SUBJECT.nostr().bytes());
        Event garbage = Events.sign(TestFindings.SUBJECT.nostr().bytes(), TestFindings.AT, Finding.KIND,
                List.of(List.of("p", OBSERVER_KEY.hex())), "spam");
        List<String> evidence = List.of(TestFindings.custodyFork(), TestFindings.custodyReset(),
                TestFindings.withholding(), TestFindings.claimMismatch(), TestFindings.computeEquivocation(),
                FindingEvidence.budgetEvidence(TestFindings.budgetRecord()),
                FindingEvidence.falseFinding(lie, check(lie).reason()),
                FindingEvidence.malformedFinding(garbage, check(garbage).reason()));
        Random random = new Random(1804);
        Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
        for (int round = 0; round < 480; round++) {
            String ev = evidence.get(round % evidence.size());
            Event valid = TestFindings.finding(ev);
            List<List<String>> tags = new ArrayList<>();
            valid.tags().forEach(t -> tags.add(new ArrayList<>(t)));
            String content = ev;
            boolean contentChanged = false;
            switch (random.nextInt(4)) {
                case 0 -> {
                    int i = random.nextInt(content.length());
                    char c = (char) (32 + random.nextInt(95));
                    contentChanged = c != content.charAt(i);
                    content = content.substring(0, i) + c + content.substring(i + 1);
                    // keep the digest right half of the time, so the change reaches the evidence checks
                    if (random.nextBoolean()) {
                        tags.set(6, List.of("evidence", tags.get(6).get(1), TestFindings.hash(content)));
                    }
                }
                case 1 -> {
                    List<String> t = tags.get(random.nextInt(tags.size()));
                    int j = random.nextInt(t.size());
                    String v = t.get(j);
                    int k = random.nextInt(Math.max(1, v.length()));
                    t.set(j, v.isEmpty() ? "x" : v.substring(0, k) + (char) (33 + random.nextInt(94)) + v.substring(k + 1));
                }
                case 2 -> tags.remove(random.nextInt(tags.size()));
                default -> tags.add(new ArrayList<>(tags.get(random.nextInt(tags.size()))));
            }
            Event mutated = TestFindings.raw(tags, content);
            Check c = check(mutated);
            assertNotNull(c);
            seen.merge(c.verdict(), 1, Integer::sum);
            if (contentChanged && c.counts()) {
                // only the members the spec calls the observer's notes may change and still count
                ObjectNode before = FindingEvidence.object(ev);
                ObjectNode after = FindingEvidence.object(content);
                List<String> changed = new ArrayList<>();
                before.fieldNames().forEachRemaining(n -> {
                    if (!before.get(n).equals(after.get(n))) {
                        changed.add(n);
                    }
                });
                // what is attested is the observer's word except the signed grant
                assertTrue(c.verdict() == Verdict.ATTESTED ? !changed.contains("grant")
                        : INFORMATIONAL.containsAll(changed), "changed evidence counted: " + c + ", members " + changed);
            }
            assertNotEquals(Verdict.UNVERIFIABLE, c.verdict() == Verdict.UNVERIFIABLE
                    && c.reason().startsWith("the recheck failed") ? Verdict.UNVERIFIABLE : null, c.reason());
        }
        assertTrue(seen.getOrDefault(Verdict.MALFORMED, 0) > 0 && seen.getOrDefault(Verdict.FALSE, 0) > 0,
                "the mutations reach both the reader and the evidence checks: " + seen);
    }
}
