package org.fleetmesh.settlement.cashu.conditions;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.settlement.cashu.nut.Nut;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A NUT-10 well-known secret {@code [kind, {"nonce","data","tags"?}]}, the string a locked proof carries.
 *
 * <p>Tags are arrays of one or more non-empty strings. {@code tags} is never null (empty when absent) and is
 * left out when serializing an empty list.
 */
public record WellKnownSecret(String kind, String nonce, String data, List<List<String>> tags) {
    public static final String P2PK = "P2PK";
    public static final String HTLC = "HTLC";
    private static final int MAX_TAGS = 64;
    private static final int MAX_TAG_VALUES = 64;

    public WellKnownSecret {
        if (kind == null || kind.isEmpty()) {
            throw new IllegalArgumentException("secret kind is missing");
        }
        if (nonce == null || data == null) {
            throw new IllegalArgumentException("secret nonce and data are required");
        }
        List<List<String>> copy = new ArrayList<>();
        if (tags != null) {
            for (List<String> tag : tags) {
                if (tag == null || tag.isEmpty()) {
                    throw new IllegalArgumentException("a tag must hold at least one string");
                }
                for (String s : tag) {
                    if (s == null || s.isEmpty()) {
                        throw new IllegalArgumentException("tag values must be non-empty strings");
                    }
                }
                copy.add(List.copyOf(tag));
            }
        }
        tags = Collections.unmodifiableList(copy);
    }

    /**
     * Reads a proof's secret. Empty when it is not shaped like a NUT-10 secret (a JSON array of a string and an
     * object), i.e. a plain random secret; ConditionException when it is shaped like one but its fields are
     * malformed, since such a proof must not be taken for an anyone-can-spend one.
     */
    public static Optional<WellKnownSecret> parse(String secret) throws ConditionException {
        if (secret == null || !secret.stripLeading().startsWith("[")) {
            return Optional.empty();
        }
        JsonNode root;
        try {
            root = Nut.json().readTree(secret);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        if (root == null || !root.isArray() || root.size() != 2 || !root.get(0).isTextual()
                || !root.get(1).isObject()) {
            return Optional.empty();
        }
        JsonNode body = root.get(1);
        String nonce = text(body, "nonce");
        String data = text(body, "data");
        List<List<String>> tags = new ArrayList<>();
        JsonNode t = body.get("tags");
        if (t != null && !t.isNull()) {
            if (!t.isArray() || t.size() > MAX_TAGS) {
                throw new ConditionException("secret tags must be an array of at most " + MAX_TAGS + " tags");
            }
            for (JsonNode tag : t) {
                if (!tag.isArray() || tag.isEmpty() || tag.size() > MAX_TAG_VALUES) {
                    throw new ConditionException("a secret tag must be an array of 1 to " + MAX_TAG_VALUES
                            + " strings");
                }
                List<String> values = new ArrayList<>();
                for (JsonNode v : tag) {
                    if (!v.isTextual() || v.asText().isEmpty()) {
                        throw new ConditionException("secret tag values must be non-empty strings");
                    }
                    values.add(v.asText());
                }
                tags.add(values);
            }
        }
        return Optional.of(new WellKnownSecret(root.get(0).asText(), nonce, data, tags));
    }

    private static String text(JsonNode body, String field) throws ConditionException {
        JsonNode n = body.get(field);
        if (n == null || !n.isTextual()) {
            throw new ConditionException("secret " + field + " must be a string");
        }
        return n.asText();
    }

    /** The compact JSON the proof carries: {@code ["kind",{"nonce":..,"data":..,"tags":[..]}]}. */
    public String serialize() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("nonce", nonce);
        body.put("data", data);
        if (!tags.isEmpty()) {
            body.put("tags", tags);
        }
        try {
            return Nut.json().writeValueAsString(List.of(kind, body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("writing a secret cannot fail", e);
        }
    }

    /** The values of the first tag named {@code key}, empty when there is none. */
    public List<String> tag(String key) {
        for (List<String> t : tags) {
            if (t.get(0).equals(key)) {
                return t.subList(1, t.size());
            }
        }
        return List.of();
    }

    /** NUT-11: lock to {@code pubkey} (33-byte compressed hex) under {@code conditions}. */
    public static WellKnownSecret p2pk(String nonce, String pubkey, Conditions conditions) {
        return new WellKnownSecret(P2PK, nonce, Nut.point(pubkey, "P2PK pubkey"), conditions.tags());
    }

    /** NUT-14: lock to the SHA-256 {@code hashHex} of a 32-byte preimage, with receivers, locktime and refund. */
    public static WellKnownSecret htlc(String nonce, String hashHex, Conditions conditions) {
        return new WellKnownSecret(HTLC, nonce, Nut.hex(hashHex, 32, "HTLC hash"), conditions.tags());
    }
}
