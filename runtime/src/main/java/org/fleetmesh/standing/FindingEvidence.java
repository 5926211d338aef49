package org.fleetmesh.standing;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.delivery.log.CustodyBreach;
import org.fleetmesh.delivery.log.CustodyReset;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.shards.ClaimMismatch;
import org.fleetmesh.shards.Withholding;
import org.fleetmesh.spi.peers.Evidence;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The evidence types a finding carries (docs/spec/findings.md, "Evidence"), what severity, scope and rule each one
 * proves, and the builders of the objects only this package writes: budget (S3), false finding, malformed finding,
 * compute equivocation and re-execution. The other objects are written where they are found (custody, sampling).
 */
public final class FindingEvidence {
    public static final String CUSTODY_BREACH = CustodyBreach.TYPE;
    public static final String CUSTODY_RESET = CustodyReset.TYPE;
    public static final String WITHHOLDING = Withholding.TYPE;
    public static final String CLAIM_MISMATCH = ClaimMismatch.TYPE;
    public static final String BUDGET = "fleetmesh.budget";
    public static final String FALSE_FINDING = "fleetmesh.false-finding";
    public static final String MALFORMED_FINDING = "fleetmesh.malformed-finding";
    public static final String COMPUTE_EQUIVOCATION = "fleetmesh.compute-equivocation";
    public static final String REEXECUTION = "fleetmesh.reexecution";

    /** Strict: a name twice would let two readers see two objects; nesting is bounded so a reader cannot overflow. */
    static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private FindingEvidence() {
    }

    /** The JSON object {@code json}, or null when it is not one (or repeats a name, or nests too deep). */
    static ObjectNode object(String json) {
        try {
            JsonNode n = JSON.readTree(json);
            return n != null && n.isObject() ? (ObjectNode) n : null;
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * Whether {@code evidenceJson} can be the content of a finding: at most {@link Finding#MAX_CONTENT_BYTES} UTF-8
     * bytes. A false-finding or malformed-finding embeds the finding it shows, so one about a finding near the limit
     * cannot be signed (findings.md §4): the node keeps its verdict and signs no penalty.
     */
    public static boolean fitsAFinding(String evidenceJson) {
        return evidenceJson.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= Finding.MAX_CONTENT_BYTES;
    }

    /** The {@code type} of an evidence object, or null when {@code json} is not an object with a string type. */
    public static String typeOf(String json) {
        ObjectNode o = object(json);
        JsonNode t = o == null ? null : o.get("type");
        return t != null && t.isTextual() ? t.textValue() : null;
    }

    /**
     * What {@code evidenceJson} proves, when it is true: the severity, scope and rule of its type (the scope of a
     * false finding is that of the finding it shows false; the rule of a custody breach names the breach), and the
     * subject's Nostr key where the evidence names it. Null for an object of a type this node does not know or
     * cannot read that far (its verification then says why).
     */
    public static Draft draft(String evidenceJson) {
        ObjectNode o = object(evidenceJson);
        if (o == null || !o.path("type").isTextual()) {
            return null;
        }
        String type = o.get("type").textValue();
        switch (type) {
            case CustodyBreach.TYPE: {
                String breach = o.path("breach").asText("");
                if (CustodyBreach.Kind.ofWord(breach) == null) {
                    return null;
                }
                return new Draft(Severity.S2, Scope.TRANSIT, "custody-" + breach, type, evidenceJson,
                        key(o.path("receiver")));
            }
            case CustodyReset.TYPE:
                return new Draft(Severity.S1, Scope.TRANSIT, "custody-reset", type, evidenceJson,
                        key(o.path("receiver")));
            case Withholding.TYPE:
            case ClaimMismatch.TYPE:
                return new Draft(Severity.S2, Scope.TRANSIT, type, type, evidenceJson, key(o.path("claim").path("pubkey")));
            case BUDGET:
                return new Draft(Severity.S3, Scope.TRANSIT, "budget", type, evidenceJson,
                        granteeKey(o.path("grant").path("tags")));
            case FALSE_FINDING: {
                JsonNode f = o.path("finding");
                Scope scope = null;
                for (JsonNode t : f.path("tags")) {
                    if (t.isArray() && t.size() >= 2 && "scope".equals(t.get(0).asText())) {
                        scope = Scope.parse(t.get(1).asText());
                        break;
                    }
                }
                return scope == null ? null
                        : new Draft(Severity.S2, scope, "false-finding", type, evidenceJson, key(f.path("pubkey")));
            }
            case MALFORMED_FINDING:
                return new Draft(Severity.S1, Scope.TRANSIT, "malformed-finding", type, evidenceJson,
                        key(o.path("finding").path("pubkey")));
            case COMPUTE_EQUIVOCATION:
                return new Draft(Severity.S2, Scope.COMPUTE, "compute-equivocation", type, evidenceJson,
                        key(o.path("statements").path(0).path("pubkey")));
            case REEXECUTION:
                return new Draft(Severity.S2, Scope.COMPUTE, "reexecution", type, evidenceJson,
                        key(o.path("record").path("pubkey")));
            default:
                return null;
        }
    }

    /**
     * The finding a {@code link_evidence} record makes: its {@code detail} is the evidence object (custody breach,
     * custody reset, withholding, claim mismatch), or for an S3 budget record the counts, which
     * {@link #budgetEvidence} wraps with the grant.
     *
     * @throws IllegalArgumentException when the record holds neither
     */
    public static Draft fromLedger(Evidence e) {
        ObjectNode detail = object(e.detail());
        if (detail != null && detail.path("type").isTextual()) {
            Draft d = draft(e.detail());
            if (d == null) {
                throw new IllegalArgumentException("evidence record " + e.id() + " holds a " + detail.get("type")
                        + " object this node does not turn into a finding");
            }
            return d;
        }
        if ("S3".equals(e.severity())) {
            return draft(budgetEvidence(e));
        }
        throw new IllegalArgumentException("evidence record " + e.id() + " (" + e.severity() + ", " + e.reason()
                + ") holds no evidence object");
    }

    /**
     * The S3 budget evidence of a quarantine record (docs/spec/link-events.md "Evidence"): the grant broken, signed by
     * this node (null when none was in force), and the counts, which are this node's word.
     */
    public static String budgetEvidence(Evidence e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", BUDGET);
        o.put("peer", e.peer());
        o.put("reason", e.reason());
        JsonNode grant = e.grant().isEmpty() ? null : object(e.grant());
        if (grant == null) {
            o.putNull("grant");
        } else {
            o.set("grant", grant);
        }
        o.put("violations", e.violations());
        o.put("period_start", e.periodStart());
        o.put("at", e.at());
        o.put("quarantined_until", e.quarantinedUntil());
        ObjectNode detail = object(e.detail());
        if (detail == null) {
            o.put("detail", e.detail());
        } else {
            o.set("detail", detail);
        }
        return o.toString();
    }

    /** Evidence that {@code finding} (signed by its publisher) does not hold: {@code reason} is what the recheck said. */
    public static String falseFinding(Event finding, String reason) {
        return embedding(FALSE_FINDING, finding, reason);
    }

    /** Evidence that {@code event}, signed by its publisher as kind 1804, is not a well-formed finding. */
    public static String malformedFinding(Event event, String reason) {
        return embedding(MALFORMED_FINDING, event, reason);
    }

    /**
     * Evidence that one signer stated two results of one deterministic job: {@code a} and {@code b} carry the same
     * {@code module} and {@code input} and a different {@code output} or {@code fuel}. Written with the statement of
     * the smaller id first, so the same pair is the same evidence (one digest) whoever writes it.
     */
    public static String computeEquivocation(Event a, Event b) {
        List<Event> pair = new ArrayList<>(List.of(a, b));
        pair.sort(Comparator.comparing(ev -> ev.id().hex()));
        ObjectNode o = JSON.createObjectNode();
        o.put("type", COMPUTE_EQUIVOCATION);
        var statements = o.putArray("statements");
        for (Event ev : pair) {
            statements.add(eventNode(ev));
        }
        return o.toString();
    }

    /**
     * Evidence that a worker's result is not what the job gives: {@code record} is the worker's signed kind 30811 job
     * record for {@code job}, {@code key} the released k (its SHA-256 is the record's {@code payment_hash}),
     * {@code claimed} the summary the record's {@code commitment} covers, {@code observed} the summary of the
     * observer's own run. {@code module} and {@code input}, when not null, are carried inline so that any node can
     * re-execute the job (docs/spec/findings.md, "fleetmesh.reexecution").
     */
    public static String reexecution(Event record, JobSpec job, byte[] key, Commitment.Summary claimed,
            Commitment.Summary observed, byte[] module, byte[] input) {
        if (key.length != 32) {
            throw new IllegalArgumentException("k is 32 bytes");
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("type", REEXECUTION);
        o.set("record", eventNode(record));
        o.set("job", object(job.canonicalJson()));
        o.put("key", Hex.encode(key));
        o.set("claimed", object(claimed.canonicalJson()));
        o.set("observed", object(observed.canonicalJson()));
        if (module != null) {
            o.put("module", Base64.getEncoder().encodeToString(module));
        }
        if (input != null) {
            o.put("input", Base64.getEncoder().encodeToString(input));
        }
        return o.toString();
    }

    private static String embedding(String type, Event event, String reason) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", type);
        o.set("finding", eventNode(event));
        o.put("reason", reason);
        return o.toString();
    }

    private static JsonNode eventNode(Event e) {
        JsonNode n = object(e.json());
        if (n == null) {
            throw new IllegalStateException("an event's JSON is an object: " + e.id().hex());
        }
        return n;
    }

    private static PubKey key(JsonNode hex) {
        return hex.isTextual() && Hex.isLowerHex(hex.textValue(), 64) ? PubKey.ofHex(hex.textValue()) : null;
    }

    /** The first Nostr key of the grant's grantee ({@code d}) when its DID resolves offline, else null. */
    private static PubKey granteeKey(JsonNode tags) {
        for (JsonNode t : tags) {
            if (t.isArray() && t.size() == 2 && "d".equals(t.get(0).asText())) {
                try {
                    List<PubKey> keys = DidResolver.offline().nostrKeys(t.get(1).asText());
                    return keys.isEmpty() ? null : keys.get(0);
                } catch (DidResolutionException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
