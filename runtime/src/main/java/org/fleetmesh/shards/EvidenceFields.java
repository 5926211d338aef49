package org.fleetmesh.shards;

import java.util.List;

import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** What the sampling evidence objects read alike: the object, its events, the subject's claim and Nostr keys. */
final class EvidenceFields {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);

    private EvidenceFields() {
    }

    static ObjectNode object(String json, String type) throws EvidenceException {
        JsonNode n;
        try {
            n = JSON.readTree(json);
        } catch (Exception e) {
            throw new EvidenceException("not JSON: " + e.getMessage());
        }
        if (n == null || !n.isObject()) {
            throw new EvidenceException("evidence is a JSON object");
        }
        if (!type.equals(text(n, "type"))) {
            throw new EvidenceException("type is not \"" + type + "\"");
        }
        if (!"S2".equals(text(n, "severity"))) {
            throw new EvidenceException("severity is not \"S2\"");
        }
        return (ObjectNode) n;
    }

    static String text(JsonNode o, String field) throws EvidenceException {
        JsonNode v = o.get(field);
        if (v == null || !v.isTextual()) {
            throw new EvidenceException(field + " is missing or not a string");
        }
        return v.textValue();
    }

    static long seconds(JsonNode o, String field) throws EvidenceException {
        JsonNode v = o.get(field);
        if (v == null || !v.canConvertToExactIntegral() || !v.canConvertToLong() || v.longValue() < 0) {
            throw new EvidenceException(field + " is missing or not a non-negative integer");
        }
        return v.longValue();
    }

    /** An event field: well-formed, with a valid id and signature. */
    static Event event(JsonNode o, String field) throws EvidenceException {
        JsonNode v = o.get(field);
        if (v == null || !v.isObject()) {
            throw new EvidenceException(field + " is missing or not an event object");
        }
        Event e;
        try {
            e = PARSER.parseEvent(v.toString());
        } catch (ProtocolException ex) {
            throw new EvidenceException(field + ": " + ex.getMessage());
        }
        String bad = Events.verify(e);
        if (bad != null) {
            throw new EvidenceException(field + ": " + bad);
        }
        return e;
    }

    /** The claim field: a signed kind 30803 claim that asserts its shard, by a Nostr key of {@code subject}. */
    static Claim assertedClaim(JsonNode o, String subject) throws EvidenceException {
        Event e = event(o, "claim");
        Claim claim;
        try {
            claim = Claim.read(e);
        } catch (ClaimException ex) {
            throw new EvidenceException("claim: " + ex.getMessage());
        }
        if (claim.shard().mode() != Shard.Mode.ASSERTED) {
            throw new EvidenceException("claim: the shard is not asserted (mode " + claim.shard().mode().word() + ")");
        }
        List<PubKey> keys = nostrKeys(subject);
        if (!keys.contains(claim.author())) {
            throw new EvidenceException("claim: signed by " + claim.author().hex() + ", not a Nostr key of the subject");
        }
        return claim;
    }

    /**
     * The BIP-340 keys a DID's document lists under {@code authentication} (resolved offline: a did:peer:4 needs its
     * long form).
     */
    static List<PubKey> nostrKeys(String did) throws EvidenceException {
        try {
            return DidResolver.offline().nostrKeys(did);
        } catch (DidResolutionException e) {
            throw new EvidenceException("subject: " + did + " does not resolve: " + e.getMessage());
        }
    }
}
