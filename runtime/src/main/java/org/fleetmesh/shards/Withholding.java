package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.Hex;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * S2 evidence that a peer withholds an event from a shard it asserts (docs/spec/sampling.md, "Withholding"): the
 * peer's signed claim, the event (its signature proves it exists), the REQ this node sent for it and the peer's
 * answer, which lacks it although the event is older than the claim by more than the grace period.
 *
 * @param subject the peer's DID (a did:peer:4 long form, or any DID that resolves offline to its Nostr key)
 * @param observer this node's DID
 * @param claim the peer's claim that asserts the shard
 * @param event the withheld event: it matches the claim's filter
 * @param request the REQ sent, a JSON array {@code ["REQ", <sub>, <filter>...]}
 * @param answered the ids the peer returned before EOSE
 * @param eose whether the peer ended the answer with EOSE (no evidence without it)
 * @param grace seconds an event must predate the claim by to count
 * @param observedAt epoch seconds of the answer
 */
public record Withholding(String subject, String observer, Claim claim, Event event, String request,
        Set<EventId> answered, boolean eose, long grace, long observedAt) {
    public static final String TYPE = "withholding";

    public Withholding {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(observer, "observer");
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(request, "request");
        answered = Set.copyOf(answered);
    }

    /** The evidence object, as stored and as {@link #verify} reads it. */
    public String json() {
        ObjectNode o = EvidenceFields.JSON.createObjectNode();
        o.put("type", TYPE);
        o.put("severity", "S2");
        o.put("subject", subject);
        o.put("observer", observer);
        o.set("claim", tree(claim.event().json()));
        o.set("event", tree(event.json()));
        o.set("request", tree(request));
        ObjectNode answer = o.putObject("answer");
        ArrayNode ids = answer.putArray("ids");
        answered.stream().map(EventId::hex).sorted().forEach(ids::add);
        answer.put("eose", eose);
        o.put("grace", grace);
        o.put("observed_at", observedAt);
        return o.toString();
    }

    /**
     * Re-checks everything a third party can: the claim (kind 30803, signature, well-formed, mode asserted, signed by
     * a Nostr key of the subject's DID), the event (signature, matches the claim's filter, {@code created_at <=}
     * the claim's {@code created_at − grace}), the request (a REQ whose filters ask for the event's id and match it),
     * the answer (ended by EOSE, without the id), and that the answer came after the claim.
     *
     * @throws EvidenceException naming the first check that fails
     */
    public static Withholding verify(String json) throws EvidenceException {
        return verify(json, 0);
    }

    /** {@link #verify(String)}, and the evidence's grace is at least {@code minimumGrace} seconds (the verifier's rule). */
    public static Withholding verify(String json, long minimumGrace) throws EvidenceException {
        ObjectNode o = EvidenceFields.object(json, TYPE);
        String subject = EvidenceFields.text(o, "subject");
        String observer = EvidenceFields.text(o, "observer");
        Claim claim = EvidenceFields.assertedClaim(o, subject);
        Event event = EvidenceFields.event(o, "event");
        long grace = EvidenceFields.seconds(o, "grace");
        long observedAt = EvidenceFields.seconds(o, "observed_at");
        if (grace < minimumGrace) {
            throw new EvidenceException("grace " + grace + " s is below the " + minimumGrace + " s required");
        }
        if (!claim.shard().filter().matches(event)) {
            throw new EvidenceException("event: does not match the claim's filter");
        }
        if (event.createdAt() > claim.createdAt() - grace) {
            throw new EvidenceException("event: created_at " + event.createdAt() + " is not at least " + grace
                    + " s before the claim's " + claim.createdAt());
        }
        if (observedAt < claim.createdAt()) {
            throw new EvidenceException("observed_at " + observedAt + " is before the claim's created_at");
        }
        JsonNode request = o.get("request");
        if (!asksFor(request, event)) {
            throw new EvidenceException("request: not a REQ whose filters ask for the event's id");
        }
        JsonNode answer = o.get("answer");
        if (answer == null || !answer.isObject()) {
            throw new EvidenceException("answer is missing or not an object");
        }
        JsonNode eose = answer.get("eose");
        if (eose == null || !eose.isBoolean()) {
            throw new EvidenceException("answer.eose is missing or not a boolean");
        }
        if (!eose.booleanValue()) {
            throw new EvidenceException("answer: the peer did not end its answer with EOSE");
        }
        JsonNode ids = answer.get("ids");
        if (ids == null || !ids.isArray()) {
            throw new EvidenceException("answer.ids is missing or not an array");
        }
        Set<EventId> answered = new LinkedHashSet<>();
        for (JsonNode id : ids) {
            if (!id.isTextual() || !Hex.isLowerHex(id.textValue(), 64)) {
                throw new EvidenceException("answer.ids holds something other than an event id");
            }
            answered.add(EventId.ofHex(id.textValue()));
        }
        if (answered.contains(event.id())) {
            throw new EvidenceException("answer: the peer returned the event");
        }
        return new Withholding(subject, observer, claim, event, request.toString(), answered, true, grace, observedAt);
    }

    /** The REQ message a round sends for {@code ids}: one filter of ids, nothing else. */
    public static String request(String subscription, List<EventId> ids) {
        ArrayNode a = EvidenceFields.JSON.createArrayNode();
        a.add("REQ").add(subscription);
        ArrayNode list = a.addObject().putArray("ids");
        ids.forEach(id -> list.add(id.hex()));
        return a.toString();
    }

    private static boolean asksFor(JsonNode request, Event event) {
        if (request == null || !request.isArray() || request.size() < 3 || !"REQ".equals(request.get(0).asText(null))
                || !request.get(1).isTextual()) {
            return false;
        }
        List<Filter> filters = new ArrayList<>();
        for (int i = 2; i < request.size(); i++) {
            if (!request.get(i).isObject()) {
                return false;
            }
            try {
                filters.add(FilterJson.parse(request.get(i).toString(), FilterJson.Limits.DEFAULT));
            } catch (FilterSyntaxException e) {
                return false;
            }
        }
        // a filter with ids that holds the event's and matches it: a relay that holds the event must return it
        return filters.stream().anyMatch(f -> f.ids() != null && f.ids().contains(event.id()) && f.matches(event)
                && (f.limit() == null || f.limit() >= f.ids().size()));
    }

    private static JsonNode tree(String json) {
        try {
            return EvidenceFields.JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException("not JSON: " + json, e);
        }
    }
}
