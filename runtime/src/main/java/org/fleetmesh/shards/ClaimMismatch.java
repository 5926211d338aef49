package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Hex;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * S2 evidence that a peer's claim does not describe the set it serves (docs/spec/sampling.md, "Claim mismatch"): the
 * peer asserts a shard with figures (count, fingerprint, root); this node fetched the shard's events up to the claim's
 * {@code created_at} from the peer; the served set has the claim's root (or its fingerprint), so it is the set the
 * claim describes, and yet another figure of the claim differs from that set's. The trigger is race-free: events that
 * come or go after the claim (late arrivals, replacements, deletions) change the root and the fingerprint together,
 * so a set that has changed matches neither and is never evidence. Identified by the root, the evidence holds against
 * any adversary (SHA-256); by the fingerprint (a sum of ids, not collision-resistant against chosen events) it holds
 * unless someone crafted events to collide, which {@link #identifiedBy()} lets a verifier weigh.
 *
 * @param subject the peer's DID (resolves offline to its Nostr key)
 * @param observer this node's DID
 * @param claim the peer's claim
 * @param request the REQ filters sent (a JSON array of filter objects, each the claim's filter with {@code until} at
 *        most the claim's {@code created_at})
 * @param served the (created_at, id) of the matching events the peer returned, in Negentropy order
 * @param observedAt epoch seconds of the last answer
 */
public record ClaimMismatch(String subject, String observer, Claim claim, String request, List<Item> served,
        long observedAt) {
    public static final String TYPE = "claim-mismatch";

    public ClaimMismatch {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(observer, "observer");
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(request, "request");
        served = List.copyOf(served);
    }

    /** The figures of the served set. */
    public ShardFigures figures() {
        return figuresOf(served);
    }

    /**
     * Whether {@code served} (the claim's shard as the peer served it up to the claim's {@code created_at}) is
     * evidence against {@code claim}: it has the claim's root or fingerprint, and some figure of the claim differs.
     */
    public static boolean mismatches(Claim claim, List<Item> served) {
        ShardFigures f = figuresOf(served);
        return identifiedBy(claim.figures(), f) != null && !f.equals(claim.figures());
    }

    /** Which figure of the claim the served set has: {@code root}, {@code fingerprint}, or null for neither. */
    static String identifiedBy(ShardFigures claimed, ShardFigures served) {
        if (Arrays.equals(claimed.root(), served.root())) {
            return "root";
        }
        return Arrays.equals(claimed.fingerprint(), served.fingerprint()) ? "fingerprint" : null;
    }

    /** How the served set was recognised as the claimed one: {@code root} (collision-resistant) or {@code fingerprint}. */
    public String identifiedBy() {
        return identifiedBy(claim.figures(), figures());
    }

    public String json() {
        ObjectNode o = EvidenceFields.JSON.createObjectNode();
        o.put("type", TYPE);
        o.put("severity", "S2");
        o.put("subject", subject);
        o.put("observer", observer);
        try {
            o.set("claim", EvidenceFields.JSON.readTree(claim.event().json()));
            o.set("request", EvidenceFields.JSON.readTree(request));
        } catch (Exception e) {
            throw new IllegalArgumentException("not JSON", e);
        }
        ArrayNode s = o.putArray("served");
        for (Item i : served) {
            s.addArray().add(i.timestamp()).add(i.id().toHex());
        }
        ShardFigures f = figures();
        ObjectNode fo = o.putObject("figures");
        fo.put("count", f.count());
        fo.put("fingerprint", Hex.encode(f.fingerprint()));
        fo.put("root", Hex.encode(f.root()));
        o.put("identified_by", identifiedBy());
        o.put("observed_at", observedAt);
        return o.toString();
    }

    /**
     * Re-checks what a third party can: the claim (signature, well-formed, asserted, by a Nostr key of the subject),
     * the served list (strictly in Negentropy order, none after the claim's {@code created_at}), the recomputed
     * figures (equal to those written), and the trigger (the claim's count, another fingerprint or root).
     *
     * @throws EvidenceException naming the first check that fails
     */
    public static ClaimMismatch verify(String json) throws EvidenceException {
        ObjectNode o = EvidenceFields.object(json, TYPE);
        String subject = EvidenceFields.text(o, "subject");
        String observer = EvidenceFields.text(o, "observer");
        Claim claim = EvidenceFields.assertedClaim(o, subject);
        long observedAt = EvidenceFields.seconds(o, "observed_at");
        if (observedAt < claim.createdAt()) {
            throw new EvidenceException("observed_at " + observedAt + " is before the claim's created_at");
        }
        JsonNode request = o.get("request");
        if (request == null || !request.isArray() || request.isEmpty()) {
            throw new EvidenceException("request is missing or not an array of filters");
        }
        JsonNode s = o.get("served");
        if (s == null || !s.isArray()) {
            throw new EvidenceException("served is missing or not an array");
        }
        List<Item> served = new ArrayList<>(s.size());
        for (JsonNode pair : s) {
            if (!pair.isArray() || pair.size() != 2 || !pair.get(0).canConvertToExactIntegral()
                    || !pair.get(0).canConvertToLong() || pair.get(0).longValue() < 0 || !pair.get(1).isTextual()
                    || !Hex.isLowerHex(pair.get(1).textValue(), 64)) {
                throw new EvidenceException("served holds something other than [created_at, id]");
            }
            Item item = new Item(pair.get(0).longValue(), Id.ofHex(pair.get(1).textValue()));
            if (!served.isEmpty() && served.get(served.size() - 1).compareTo(item) >= 0) {
                throw new EvidenceException("served is not strictly in Negentropy order");
            }
            if (item.timestamp() > claim.createdAt()) {
                throw new EvidenceException("served holds an event after the claim's created_at");
            }
            served.add(item);
        }
        ShardFigures f = figuresOf(served);
        JsonNode written = o.get("figures");
        if (written == null || !written.isObject() || written.path("count").asLong(-1) != f.count()
                || !Hex.encode(f.fingerprint()).equals(written.path("fingerprint").asText())
                || !Hex.encode(f.root()).equals(written.path("root").asText())) {
            throw new EvidenceException("figures are not those of the served set");
        }
        String by = identifiedBy(claim.figures(), f);
        if (by == null) {
            throw new EvidenceException("the served set has neither the claim's root nor its fingerprint: not evidence "
                    + "(events may have come or gone since the claim)");
        }
        if (f.equals(claim.figures())) {
            throw new EvidenceException("the served set has the claim's figures");
        }
        if (!by.equals(o.path("identified_by").asText())) {
            throw new EvidenceException("identified_by is not \"" + by + "\"");
        }
        return new ClaimMismatch(subject, observer, claim, request.toString(), served, observedAt);
    }

    static ShardFigures figuresOf(List<Item> items) {
        SortedVector.Builder b = SortedVector.builder();
        items.forEach(b::insert);
        return ShardFigures.of(b.seal());
    }
}
