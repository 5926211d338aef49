package org.fleetmesh.standing;

import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.delivery.log.CustodyBreach;
import org.fleetmesh.delivery.log.CustodyReset;
import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantException;
import org.fleetmesh.shards.ClaimMismatch;
import org.fleetmesh.shards.EvidenceException;
import org.fleetmesh.shards.Withholding;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Re-checks a finding by its evidence alone, as the node that receives it must before it moves anything
 * (docs/spec/findings.md, "What a verifier checks"): the finding is read ({@link Finding#read}), its severity, scope
 * and rule are those its evidence type proves, and the evidence is verified against the finding's subject and
 * observer. Pure and stateless: the same finding gets the same verdict at any time on any node with the same
 * {@code minimumGrace}. Never throws.
 */
public final class FindingVerifier {
    /** How deep false findings about false findings are followed before the verdict is UNVERIFIABLE. */
    static final int MAX_DEPTH = 4;
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]{0,17}");

    private final long minimumGrace;
    private final Reexecutor reexecutor;

    /** @param minimumGrace the least grace, in seconds, this node requires of withholding evidence */
    public FindingVerifier(long minimumGrace) {
        this(minimumGrace, null);
    }

    /**
     * @param minimumGrace the least grace, in seconds, this node requires of withholding evidence
     * @param reexecutor runs jobs again to check re-execution evidence; null when this node runs no compute (that
     *        evidence is then at most ATTESTED)
     */
    public FindingVerifier(long minimumGrace, Reexecutor reexecutor) {
        if (minimumGrace < 0) {
            throw new IllegalArgumentException("minimumGrace cannot be negative");
        }
        this.minimumGrace = minimumGrace;
        this.reexecutor = reexecutor;
    }

    /** The verifier of a node that runs compute: re-execution evidence carrying its module and input is re-run. */
    public static FindingVerifier reexecuting(long minimumGrace, Reexecutor reexecutor) {
        return new FindingVerifier(minimumGrace, java.util.Objects.requireNonNull(reexecutor, "reexecutor"));
    }

    /** The verdict on {@code e}, an event whose id and signature the relay has checked. */
    public Check check(Event e) {
        return guarded(() -> check(e, 0));
    }

    /**
     * The verdict on an evidence object of {@code type} as evidence against {@code subject} (Nostr key and DID) by
     * {@code observer}: whether it verifies and names that subject. Severity, scope and rule are not asked: the type
     * decides them ({@link FindingEvidence#draft}).
     */
    public Check checkEvidence(String type, String json, PubKey subject, String subjectDid, PubKey observer,
            String observerDid) {
        return guarded(() -> evidence(type, json, subject, subjectDid, observer, observerDid, 0));
    }

    private interface Body {
        Check run();
    }

    private static Check guarded(Body body) {
        try {
            return body.run();
        } catch (RuntimeException | StackOverflowError e) {
            // a verifier that throws would let a crafted finding stop the node's checks; say what broke instead
            return Check.unverifiable("the recheck failed: " + e);
        }
    }

    private Check check(Event e, int depth) {
        Finding f;
        try {
            f = Finding.read(e);
        } catch (FindingException ex) {
            return Check.malformed(ex.getMessage());
        }
        Draft proves = FindingEvidence.draft(f.evidence());
        if (proves == null) {
            if (!known(f.evidenceType())) {
                return Check.unverifiable("evidence type " + f.evidenceType() + " is not one this node checks");
            }
            return Check.falsehood(f.evidenceType() + " evidence: not readable as one");
        }
        if (proves.severity() != f.severity()) {
            return Check.falsehood("severity " + f.severity() + " is not that of " + f.evidenceType() + " evidence ("
                    + proves.severity() + ")");
        }
        if (proves.scope() != f.scope()) {
            return Check.falsehood("scope " + f.scope().wire() + " is not that of this " + f.evidenceType()
                    + " evidence (" + proves.scope().wire() + ")");
        }
        if (!proves.rule().equals(f.rule())) {
            return Check.falsehood("rule " + f.rule() + " is not that of this " + f.evidenceType() + " evidence ("
                    + proves.rule() + ")");
        }
        return evidence(f.evidenceType(), f.evidence(), f.subject(), f.subjectDid(), e.pubkey(), f.observer(), depth);
    }

    private static boolean known(String type) {
        return List.of(FindingEvidence.CUSTODY_BREACH, FindingEvidence.CUSTODY_RESET, FindingEvidence.WITHHOLDING,
                FindingEvidence.CLAIM_MISMATCH, FindingEvidence.BUDGET, FindingEvidence.FALSE_FINDING,
                FindingEvidence.MALFORMED_FINDING, FindingEvidence.COMPUTE_EQUIVOCATION, FindingEvidence.REEXECUTION)
                .contains(type);
    }

    private Check evidence(String type, String json, PubKey subject, String subjectDid, PubKey observer,
            String observerDid, int depth) {
        ObjectNode o = FindingEvidence.object(json);
        if (o == null) {
            return Check.falsehood("the evidence is not a JSON object");
        }
        if (!type.equals(o.path("type").asText(null))) {
            return Check.falsehood("the evidence's type is not " + type);
        }
        Check bound = subjectBound(type, subject, subjectDid);
        if (bound != null) {
            return bound;
        }
        switch (type) {
            case FindingEvidence.CUSTODY_BREACH:
                return custodyBreach(o, json, subject, subjectDid);
            case FindingEvidence.CUSTODY_RESET:
                return custodyReset(o, json, subject, subjectDid);
            case FindingEvidence.WITHHOLDING:
                try {
                    Withholding w = Withholding.verify(json, minimumGrace);
                    // the claim is the subject's, the answer only the observer's account of it: not signed
                    return sampled(w.subject(), w.observer(), "withholding", observerDid, subject, subjectDid, false,
                            "the subject's answer lacks event " + w.event().id().hex() + " of its asserted shard "
                                    + w.claim().shard().id() + " (the answer is the observer's word)");
                } catch (EvidenceException ex) {
                    return Check.falsehood("withholding: " + ex.getMessage());
                }
            case FindingEvidence.CLAIM_MISMATCH:
                try {
                    ClaimMismatch m = ClaimMismatch.verify(json);
                    // by its root (SHA-256), the served ids are the set the subject's claim commits to, whose
                    // figures then contradict the claim itself; a fingerprint (a sum of ids and a count) anyone can
                    // meet with ids of their choosing, so that match is the observer's word
                    boolean byRoot = "root".equals(m.identifiedBy());
                    return sampled(m.subject(), m.observer(), "claim-mismatch", observerDid, subject, subjectDid,
                            byRoot, "the served set of shard " + m.claim().shard().id() + " (identified by its "
                                    + m.identifiedBy() + ") has other figures than the subject's claim"
                                    + (byRoot ? "" : " (the served ids are the observer's word)"));
                } catch (EvidenceException ex) {
                    return Check.falsehood("claim-mismatch: " + ex.getMessage());
                }
            case FindingEvidence.BUDGET:
                return budget(o, subject, subjectDid, observer, observerDid);
            case FindingEvidence.FALSE_FINDING:
                return falseFinding(o, subject, depth);
            case FindingEvidence.MALFORMED_FINDING:
                return malformedFinding(o, subject);
            case FindingEvidence.COMPUTE_EQUIVOCATION:
                return computeEquivocation(o, subject);
            case FindingEvidence.REEXECUTION:
                return reexecution(o, subject);
            default:
                return Check.unverifiable("evidence type " + type + " is not one this node checks");
        }
    }

    /**
     * Null when {@code subject} is a Nostr key of {@code subjectDid}'s document. A did:peer:4 short form has no
     * document offline: only sampling evidence, which names the subject by its long form, binds a key to it; for any
     * other evidence anyone could name a short form beside a key of its own.
     */
    private static Check subjectBound(String type, PubKey subject, String subjectDid) {
        if (DidPeer4.isShortForm(subjectDid)) {
            if (type.equals(FindingEvidence.WITHHOLDING) || type.equals(FindingEvidence.CLAIM_MISMATCH)) {
                return null;
            }
            return Check.unverifiable("the subject is a did:peer:4 short form: nothing in " + type
                    + " evidence binds p to it (name the subject by its long form)");
        }
        List<PubKey> keys;
        try {
            keys = DidKeys.of(subjectDid);
        } catch (DidResolutionException e) {
            return Check.unverifiable("the subject does not resolve offline: " + e.getMessage());
        }
        return keys.contains(subject) ? null : Check.falsehood("p is not a Nostr key of the subject");
    }

    private static Check custodyBreach(ObjectNode o, String json, PubKey subject, String subjectDid) {
        CustodyBreach.Verdict v = CustodyBreach.verify(json);
        if (!v.holds()) {
            return Check.falsehood("custody evidence does not hold: " + v.why());
        }
        Check who = receiver(o, subject, subjectDid);
        if (who != null) {
            return who;
        }
        if (!v.signed()) {
            // the breach rests on what only the observer vouches for: anyone could write it naming anyone
            return Check.attested("custody " + v.kind().word() + " breach as the observer saw it (" + v.why()
                    + "); no receipt the receiver signed shows it: the observer's word");
        }
        return Check.verified("custody " + v.kind().word() + " breach by the receiver, shown by its signed receipts: "
                + v.why());
    }

    private static Check custodyReset(ObjectNode o, String json, PubKey subject, String subjectDid) {
        CustodyReset.Verdict v = CustodyReset.verify(json);
        if (!v.holds()) {
            return Check.falsehood("custody reset evidence does not hold: " + v.why());
        }
        Check who = receiver(o, subject, subjectDid);
        return who != null ? who : Check.verified(v.why());
    }

    /** Null when the custody evidence's receiver is the subject (its key, and its DID where the evidence names it). */
    private static Check receiver(ObjectNode o, PubKey subject, String subjectDid) {
        if (!subject.hex().equals(o.path("receiver").asText())) {
            return Check.falsehood("the evidence's receiver " + o.path("receiver").asText() + " is not p");
        }
        JsonNode peer = o.get("peer");
        if (peer != null && peer.isTextual() && !same(peer.textValue(), subjectDid)) {
            return Check.falsehood("the evidence's peer " + peer.textValue() + " is not the subject");
        }
        return null;
    }

    private static Check sampled(String evidenceSubject, String evidenceObserver, String what, String observerDid,
            PubKey subject, String subjectDid, boolean signed, String holds) {
        if (!same(evidenceObserver, observerDid)) {
            return Check.falsehood(what + ": the evidence's observer " + DidKeys.shortForm(evidenceObserver)
                    + " is not the finding's");
        }
        if (!same(evidenceSubject, subjectDid)) {
            return Check.falsehood(what + ": the evidence's subject " + DidKeys.shortForm(evidenceSubject)
                    + " is not the finding's");
        }
        List<PubKey> keys;
        try {
            keys = DidKeys.of(evidenceSubject);
        } catch (DidResolutionException e) {
            return Check.falsehood(what + ": the evidence's subject does not resolve: " + e.getMessage());
        }
        if (!keys.contains(subject)) {
            return Check.falsehood(what + ": p is not a Nostr key of the evidence's subject");
        }
        return signed ? Check.verified(holds) : Check.attested(holds);
    }

    private static Check budget(ObjectNode o, PubKey subject, String subjectDid, PubKey observer, String observerDid) {
        JsonNode peer = o.get("peer");
        if (peer != null && !peer.isNull() && (!peer.isTextual() || !same(peer.textValue(), subjectDid))) {
            return Check.falsehood("budget: the evidence's peer is not the subject");
        }
        for (String field : List.of("violations", "period_start", "at", "quarantined_until")) {
            JsonNode v = o.get(field);
            if (v == null || !v.canConvertToExactIntegral() || !v.canConvertToLong() || v.longValue() < 0) {
                return Check.falsehood("budget: " + field + " is missing or not a non-negative integer");
            }
        }
        long at = o.get("at").longValue();
        if (o.get("period_start").longValue() > at) {
            return Check.falsehood("budget: period_start is after at");
        }
        if (o.get("violations").longValue() < 1) {
            return Check.falsehood("budget: no violation is counted");
        }
        JsonNode g = o.get("grant");
        if (g == null) {
            return Check.falsehood("budget: grant is missing (null when no grant was in force)");
        }
        if (g.isNull()) {
            return Check.attested("budget: no grant was in force; the violations are the observer's word");
        }
        if (!g.isObject()) {
            return Check.falsehood("budget: grant is not an event object");
        }
        Grant grant;
        try {
            grant = Grant.parse(g.toString(), at / 1000);
        } catch (GrantException ex) {
            return Check.falsehood("budget: grant: " + ex.getMessage());
        }
        if (!grant.grantor().equals(observer)) {
            return Check.falsehood("budget: the grant is not signed by the observer");
        }
        if (!same(grant.terms().grantorDid(), observerDid)) {
            return Check.falsehood("budget: the grant's grantor is not the observer");
        }
        if (!same(grant.terms().granteeDid(), subjectDid)) {
            return Check.falsehood("budget: the grant's grantee is not the subject");
        }
        if (grant.event().createdAt() > at / 1000) {
            return Check.falsehood("budget: the grant was created after the violations");
        }
        return Check.attested("budget: the observer's grant " + grant.event().id().hex() + " to the subject checks; "
                + o.get("violations").longValue() + " violations are the observer's word");
    }

    private Check falseFinding(ObjectNode o, PubKey subject, int depth) {
        Event f;
        try {
            f = member(o, "finding");
        } catch (EvidenceException ex) {
            return Check.falsehood("false-finding: " + ex.getMessage());
        }
        if (!f.pubkey().equals(subject)) {
            return Check.falsehood("false-finding: the finding was not published by p");
        }
        if (depth + 1 >= MAX_DEPTH) {
            return Check.unverifiable("false-finding: findings nested " + MAX_DEPTH + " deep are not followed");
        }
        Check inner = check(f, depth + 1);
        if (inner.verdict() == Verdict.UNVERIFIABLE) {
            return Check.unverifiable("false-finding: the finding cannot be checked here: " + inner.reason());
        }
        if (inner.verdict() != Verdict.FALSE) {
            return Check.falsehood("false-finding: the finding is not false here: " + inner.verdict() + " ("
                    + inner.reason() + ")");
        }
        return Check.verified("the subject published finding " + f.id().hex() + ", which is false: " + inner.reason());
    }

    private static Check malformedFinding(ObjectNode o, PubKey subject) {
        Event f;
        try {
            f = member(o, "finding");
        } catch (EvidenceException ex) {
            return Check.falsehood("malformed-finding: " + ex.getMessage());
        }
        if (!f.pubkey().equals(subject)) {
            return Check.falsehood("malformed-finding: the event was not published by p");
        }
        if (f.kind() != Finding.KIND) {
            return Check.falsehood("malformed-finding: the event is kind " + f.kind() + ", not " + Finding.KIND);
        }
        try {
            Finding.read(f);
        } catch (FindingException ex) {
            return Check.verified("the subject published kind " + Finding.KIND + " event " + f.id().hex()
                    + ", which is not a finding: " + ex.getMessage());
        }
        return Check.falsehood("malformed-finding: the event is a well-formed finding");
    }

    private static Check computeEquivocation(ObjectNode o, PubKey subject) {
        JsonNode s = o.get("statements");
        if (s == null || !s.isArray() || s.size() != 2) {
            return Check.falsehood("compute-equivocation: statements is not an array of two events");
        }
        Map<String, String>[] terms = new Map[2];
        Event[] events = new Event[2];
        for (int i = 0; i < 2; i++) {
            try {
                events[i] = event(s.get(i), "statements[" + i + "]");
                terms[i] = statement(events[i], "statements[" + i + "]");
            } catch (EvidenceException ex) {
                return Check.falsehood("compute-equivocation: " + ex.getMessage());
            }
            if (!events[i].pubkey().equals(subject)) {
                return Check.falsehood("compute-equivocation: statements[" + i + "] is not signed by p");
            }
        }
        if (events[0].id().equals(events[1].id())) {
            return Check.falsehood("compute-equivocation: the two statements are one event");
        }
        if (!terms[0].get("module").equals(terms[1].get("module"))
                || !terms[0].get("input").equals(terms[1].get("input"))) {
            return Check.falsehood("compute-equivocation: the statements are about different jobs (module or input)");
        }
        String ja = terms[0].get("job");
        String jb = terms[1].get("job");
        if (ja != null && jb != null && !ja.equals(jb)) {
            // the same module on the same input with other args, fuel limit, clock or seed may rightly differ
            return Check.falsehood("compute-equivocation: the statements are about different jobs (job)");
        }
        boolean output = !terms[0].get("output").equals(terms[1].get("output"));
        String fa = terms[0].get("fuel");
        String fb = terms[1].get("fuel");
        boolean fuel = fa != null && fb != null && !fa.equals(fb);
        if (!output && !fuel) {
            return Check.falsehood("compute-equivocation: the statements state the same result");
        }
        return Check.verified("the subject stated two results of module " + terms[0].get("module") + " on input "
                + terms[0].get("input") + (output ? " (outputs differ)" : " (fuel differs)"));
    }

    /** The module, input, output (and fuel and job, when present) tags of a job statement, each exactly once. */
    private static Map<String, String> statement(Event e, String what) throws EvidenceException {
        Map<String, String> out = new HashMap<>();
        for (List<String> t : e.tags()) {
            if (t.isEmpty() || !List.of("module", "input", "output", "fuel", "job").contains(t.get(0))) {
                continue;
            }
            if (t.size() != 2) {
                throw new EvidenceException(what + ": the " + t.get(0) + " tag has one value");
            }
            if (out.put(t.get(0), t.get(1)) != null) {
                throw new EvidenceException(what + ": more than one " + t.get(0) + " tag");
            }
        }
        for (String name : List.of("module", "input", "output")) {
            String v = out.get(name);
            if (v == null) {
                throw new EvidenceException(what + ": missing tag " + name);
            }
            if (!Hex.isLowerHex(v, 64)) {
                throw new EvidenceException(what + ": " + name + " is not a SHA-256 (64 lower-case hex)");
            }
        }
        String fuel = out.get("fuel");
        if (fuel != null && !DECIMAL.matcher(fuel).matches()) {
            throw new EvidenceException(what + ": fuel is not a decimal integer without sign or leading zeros");
        }
        String job = out.get("job");
        if (job != null && !Hex.isLowerHex(job, 64)) {
            throw new EvidenceException(what + ": job is not a SHA-256 (64 lower-case hex)");
        }
        return out;
    }

    /**
     * {@code fleetmesh.reexecution}: the record is p's signed job record for the embedded job, the key opens its
     * payment hash, its commitment covers the claimed summary, and the observed summary differs. With the module and
     * input inline and a re-executor, the job is run here: the observed summary must come out.
     */
    private Check reexecution(ObjectNode o, PubKey subject) {
        Event record;
        Map<String, String> tags;
        JobSpec job;
        Commitment.Summary claimed;
        Commitment.Summary observed;
        byte[] key;
        try {
            record = member(o, "record");
            if (!record.pubkey().equals(subject)) {
                return Check.falsehood("reexecution: the record is not signed by p");
            }
            if (record.kind() != JOB_RECORD_KIND) {
                return Check.falsehood("reexecution: the record is kind " + record.kind() + ", not " + JOB_RECORD_KIND);
            }
            tags = recordTags(record);
            try {
                job = JobSpec.fromJson(o.get("job"));
            } catch (IllegalArgumentException ex) {
                return Check.falsehood("reexecution: job: " + ex.getMessage());
            }
            key = hex32(o.get("key"), "key");
            claimed = summary(o.get("claimed"), "claimed");
            observed = summary(o.get("observed"), "observed");
        } catch (EvidenceException ex) {
            return Check.falsehood("reexecution: " + ex.getMessage());
        }
        if (!job.digest().equals(tags.get("job"))) {
            return Check.falsehood("reexecution: the record's job tag is not the job's digest");
        }
        if (!job.module().equals(tags.get("module")) || !job.input().equals(tags.get("input"))) {
            return Check.falsehood("reexecution: the record's module or input is not the job's");
        }
        if (!JobSpec.sha256(key).equals(tags.get("payment_hash"))) {
            return Check.falsehood("reexecution: SHA-256(key) is not the record's payment_hash");
        }
        if (!Commitment.of(key, claimed).equals(tags.get("commitment"))) {
            return Check.falsehood("reexecution: the record's commitment does not cover the claimed result");
        }
        String fuel = tags.get("fuel");
        if (fuel != null && !fuel.equals(Long.toString(claimed.fuelUsed()))) {
            return Check.falsehood("reexecution: the record's fuel is not the claimed fuel_used");
        }
        if (claimed.equals(observed)) {
            return Check.falsehood("reexecution: the observed result is the claimed one");
        }
        String differs = differs(claimed, observed);
        byte[] module;
        byte[] input;
        try {
            module = bytes(o.get("module"), "module", job.module());
            input = bytes(o.get("input"), "input", job.input());
        } catch (EvidenceException ex) {
            return Check.falsehood("reexecution: " + ex.getMessage());
        }
        if (module == null || input == null) {
            return Check.attested("reexecution: the record and key check and commit to another result (" + differs
                    + "); the observed result is the observer's word (module or input not inline)");
        }
        if (reexecutor == null) {
            return Check.attested("reexecution: the record and key check and commit to another result (" + differs
                    + "); this node runs no compute to re-execute with");
        }
        Optional<Commitment.Summary> here = reexecutor.rerun(job, module, input);
        if (here.isEmpty()) {
            return Check.attested("reexecution: the record and key check and commit to another result (" + differs
                    + "); this node did not re-run the job (over its limits, for an observer whose findings weigh nothing here,"
                    + " or it did not run to its end)");
        }
        if (!here.get().equals(observed)) {
            return Check.falsehood("reexecution: the job re-run here gives " + here.get().canonicalJson()
                    + ", not the observed result");
        }
        return Check.verified("the subject's job record " + record.id().hex() + " commits to a result the job does not "
                + "give (" + differs + "), re-executed here");
    }

    /** Kind of a compute/1.0 job record (docs/spec/compute.md). */
    static final int JOB_RECORD_KIND = 30811;

    private static String differs(Commitment.Summary a, Commitment.Summary b) {
        List<String> d = new java.util.ArrayList<>();
        if (!a.outputDigest().equals(b.outputDigest())) {
            d.add("output");
        }
        if (a.fuelUsed() != b.fuelUsed()) {
            d.add("fuel_used");
        }
        if (a.exitCode() != b.exitCode()) {
            d.add("exit_code");
        }
        if (!a.stderrDigest().equals(b.stderrDigest())) {
            d.add("stderr");
        }
        return String.join(", ", d) + " differ" + (d.size() == 1 ? "s" : "");
    }

    /** A job record's job, module, input, commitment, payment_hash (and fuel, when present) tags, each once. */
    private static Map<String, String> recordTags(Event e) throws EvidenceException {
        List<String> hashes = List.of("job", "module", "input", "commitment", "payment_hash");
        Map<String, String> out = new HashMap<>();
        for (List<String> t : e.tags()) {
            if (t.isEmpty() || !(hashes.contains(t.get(0)) || "fuel".equals(t.get(0)))) {
                continue;
            }
            if (t.size() != 2) {
                throw new EvidenceException("record: the " + t.get(0) + " tag has one value");
            }
            if (out.put(t.get(0), t.get(1)) != null) {
                throw new EvidenceException("record: more than one " + t.get(0) + " tag");
            }
        }
        for (String name : hashes) {
            String v = out.get(name);
            if (v == null) {
                throw new EvidenceException("record: missing tag " + name);
            }
            if (!Hex.isLowerHex(v, 64)) {
                throw new EvidenceException("record: " + name + " is not 64 lower-case hex");
            }
        }
        String fuel = out.get("fuel");
        if (fuel != null && !DECIMAL.matcher(fuel).matches()) {
            throw new EvidenceException("record: fuel is not a decimal integer without sign or leading zeros");
        }
        return out;
    }

    private static byte[] hex32(JsonNode v, String what) throws EvidenceException {
        if (v == null || !v.isTextual() || !Hex.isLowerHex(v.textValue(), 64)) {
            throw new EvidenceException(what + " is not 64 lower-case hex");
        }
        return Hex.decodeLower(v.textValue());
    }

    /** A result summary object: exactly its four members. */
    private static Commitment.Summary summary(JsonNode v, String what) throws EvidenceException {
        if (v == null || !v.isObject() || v.size() != 4) {
            throw new EvidenceException(what + " is not a result summary {exit_code, fuel_used, output_digest, "
                    + "stderr_digest}");
        }
        JsonNode code = v.get("exit_code");
        JsonNode fuel = v.get("fuel_used");
        JsonNode out = v.get("output_digest");
        JsonNode err = v.get("stderr_digest");
        if (code == null || !code.isInt()) {
            throw new EvidenceException(what + ": exit_code is not a 32-bit integer");
        }
        if (fuel == null || !fuel.isIntegralNumber() || !fuel.canConvertToLong() || fuel.longValue() < 0) {
            throw new EvidenceException(what + ": fuel_used is not a non-negative integer");
        }
        for (JsonNode d : new JsonNode[] {out, err}) {
            if (d == null || !d.isTextual() || !Hex.isLowerHex(d.textValue(), 64)) {
                throw new EvidenceException(what + ": output_digest and stderr_digest are 64 lower-case hex");
            }
        }
        return new Commitment.Summary(code.intValue(), fuel.longValue(), out.textValue(), err.textValue());
    }

    /** Inline base64 bytes whose SHA-256 must be {@code hash}; null when absent. */
    private static byte[] bytes(JsonNode v, String what, String hash) throws EvidenceException {
        if (v == null || v.isNull()) {
            return null;
        }
        byte[] b;
        try {
            b = v.isTextual() ? Base64.getDecoder().decode(v.textValue()) : null;
        } catch (IllegalArgumentException ex) {
            b = null;
        }
        if (b == null) {
            throw new EvidenceException(what + " is not base64");
        }
        if (!JobSpec.sha256(b).equals(hash)) {
            throw new EvidenceException("the SHA-256 of the inline " + what + " is not the job's " + what);
        }
        return b;
    }

    /** An embedded event: well-formed, with a valid id and signature. */
    private static Event member(JsonNode o, String field) throws EvidenceException {
        return event(o.get(field), field);
    }

    private static Event event(JsonNode v, String what) throws EvidenceException {
        if (v == null || !v.isObject()) {
            throw new EvidenceException(what + " is missing or not an event object");
        }
        Event e;
        try {
            e = PARSER.parseEvent(v.toString());
        } catch (ProtocolException ex) {
            throw new EvidenceException(what + ": " + ex.getMessage());
        }
        String bad = Events.verify(e);
        if (bad != null) {
            throw new EvidenceException(what + ": " + bad);
        }
        return e;
    }

    /** Two DIDs name the same peer when their short forms are equal. */
    private static boolean same(String a, String b) {
        return DidKeys.shortForm(a).equals(DidKeys.shortForm(b));
    }
}
