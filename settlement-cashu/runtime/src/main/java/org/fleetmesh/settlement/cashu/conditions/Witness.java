package org.fleetmesh.settlement.cashu.conditions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.settlement.cashu.nut.Nut;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The witness of a locked proof: NUT-11 {@code {"signatures":[..]}} and NUT-14
 * {@code {"preimage","signatures"}}. {@code preimage} is null for P2PK; signatures are 64-byte hex.
 */
public record Witness(String preimage, List<String> signatures) {
    /** More signatures than any pathway we accept can use. */
    public static final int MAX_SIGNATURES = 64;

    public Witness {
        signatures = signatures == null ? List.of() : List.copyOf(signatures);
    }

    public String json() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (preimage != null) {
            m.put("preimage", preimage);
        }
        m.put("signatures", signatures);
        try {
            return Nut.json().writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("writing a witness cannot fail", e);
        }
    }

    /** A copy with one more signature. */
    public Witness plus(String signatureHex) {
        List<String> s = new ArrayList<>(signatures);
        s.add(signatureHex);
        return new Witness(preimage, s);
    }

    /** Reads a witness string; signatures must be 64-byte hex, the preimage (if any) a string. */
    public static Witness parse(String json) throws ConditionException {
        JsonNode root;
        try {
            root = Nut.json().readTree(json);
        } catch (JsonProcessingException e) {
            throw new ConditionException("witness is not JSON");
        }
        if (root == null || !root.isObject()) {
            throw new ConditionException("witness must be a JSON object");
        }
        String preimage = null;
        JsonNode p = root.get("preimage");
        if (p != null && !p.isNull()) {
            if (!p.isTextual()) {
                throw new ConditionException("witness preimage must be a string");
            }
            preimage = p.asText();
        }
        List<String> sigs = new ArrayList<>();
        JsonNode s = root.get("signatures");
        if (s != null && !s.isNull()) {
            if (!s.isArray() || s.size() > MAX_SIGNATURES) {
                throw new ConditionException("witness signatures must be an array of at most " + MAX_SIGNATURES);
            }
            for (JsonNode sig : s) {
                if (!sig.isTextual()) {
                    throw new ConditionException("witness signatures must be strings");
                }
                try {
                    sigs.add(Nut.hex(sig.asText(), 64, "witness signature"));
                } catch (IllegalArgumentException e) {
                    throw new ConditionException(e.getMessage());
                }
            }
        }
        return new Witness(preimage, sigs);
    }
}
