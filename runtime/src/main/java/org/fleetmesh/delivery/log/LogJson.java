package org.fleetmesh.delivery.log;

import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Signature;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** JSON reading shared by proofs, chain files and evidence: strict, duplicate members refused. */
final class LogJson {
    static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private LogJson() {
    }

    static JsonNode read(String json, String what) {
        try {
            JsonNode n = MAPPER.readTree(json);
            if (n == null || !n.isObject()) {
                throw new IllegalArgumentException(what + " is not a JSON object");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(what + " is not JSON: " + e.getOriginalMessage());
        }
    }

    static JsonNode member(JsonNode o, String name, String what) {
        JsonNode v = o.get(name);
        if (v == null) {
            throw new IllegalArgumentException(what + " has no \"" + name + "\"");
        }
        return v;
    }

    static long nonNegative(JsonNode o, String name, String what) {
        JsonNode v = member(o, name, what);
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw new IllegalArgumentException(what + " \"" + name + "\" is not a non-negative integer");
        }
        return v.asLong();
    }

    static String text(JsonNode o, String name, String what) {
        JsonNode v = member(o, name, what);
        if (!v.isTextual()) {
            throw new IllegalArgumentException(what + " \"" + name + "\" is not a string");
        }
        return v.asText();
    }

    /** A JSON array of 64-character lower-case hex strings, each 32 bytes. */
    static List<byte[]> hashes(JsonNode o, String name, String what) {
        JsonNode v = member(o, name, what);
        if (!v.isArray() || v.size() > 128) {
            throw new IllegalArgumentException(what + " \"" + name + "\" is not an array of at most 128 hashes");
        }
        List<byte[]> out = new ArrayList<>(v.size());
        for (JsonNode h : v) {
            if (!h.isTextual() || !Hex.isLowerHex(h.asText(), 64)) {
                throw new IllegalArgumentException(what + " \"" + name + "\" holds a value that is not 64 lower-case hex");
            }
            out.add(Hex.decodeLower(h.asText()));
        }
        return out;
    }

    static List<EventId> ids(JsonNode o, String name, String what) {
        JsonNode v = member(o, name, what);
        if (!v.isArray()) {
            throw new IllegalArgumentException(what + " \"" + name + "\" is not an array of ids");
        }
        List<EventId> out = new ArrayList<>(v.size());
        for (JsonNode h : v) {
            if (!h.isTextual() || !Hex.isLowerHex(h.asText(), 64)) {
                throw new IllegalArgumentException(what + " \"" + name + "\" holds a value that is not 64 lower-case hex");
            }
            out.add(EventId.ofHex(h.asText()));
        }
        return out;
    }

    static String hexArray(List<byte[]> hashes) {
        StringBuilder sb = new StringBuilder(2 + hashes.size() * 67);
        sb.append('[');
        for (int i = 0; i < hashes.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append('"').append(Hex.encode(hashes.get(i))).append('"');
        }
        return sb.append(']').toString();
    }

    static String idArray(List<EventId> ids) {
        StringBuilder sb = new StringBuilder(2 + ids.size() * 67);
        sb.append('[');
        for (int i = 0; i < ids.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append('"').append(ids.get(i).hex()).append('"');
        }
        return sb.append(']').toString();
    }

    /** A NIP-01 event object; its id and signature are not checked here. */
    static Event event(JsonNode o, String what) {
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException(what + " is not an event object");
        }
        String id = text(o, "id", what);
        String pubkey = text(o, "pubkey", what);
        String sig = text(o, "sig", what);
        if (!Hex.isLowerHex(id, 64) || !Hex.isLowerHex(pubkey, 64) || !Hex.isLowerHex(sig, 128)) {
            throw new IllegalArgumentException(what + ": id, pubkey or sig is not lower-case hex of the right length");
        }
        long createdAt = nonNegative(o, "created_at", what);
        JsonNode kind = member(o, "kind", what);
        if (!kind.isIntegralNumber() || kind.asLong() < 0 || kind.asLong() > 65535) {
            throw new IllegalArgumentException(what + " \"kind\" is not an integer 0..65535");
        }
        JsonNode tagsNode = member(o, "tags", what);
        if (!tagsNode.isArray()) {
            throw new IllegalArgumentException(what + " \"tags\" is not an array");
        }
        List<List<String>> tags = new ArrayList<>(tagsNode.size());
        for (JsonNode t : tagsNode) {
            if (!t.isArray()) {
                throw new IllegalArgumentException(what + ": a tag is not an array");
            }
            List<String> tag = new ArrayList<>(t.size());
            for (JsonNode s : t) {
                if (!s.isTextual()) {
                    throw new IllegalArgumentException(what + ": a tag element is not a string");
                }
                tag.add(s.asText());
            }
            tags.add(List.copyOf(tag));
        }
        String content = text(o, "content", what);
        return new Event(EventId.ofHex(id), PubKey.ofHex(pubkey), createdAt, (int) kind.asLong(), List.copyOf(tags),
                content, Signature.ofHex(sig));
    }

    static Event event(String json, String what) {
        return event(read(json, what), what);
    }

    /** The JSON text of an optional event member: the event's wire form, or null. */
    static String eventOrNull(Event e) {
        return e == null ? "null" : e.json();
    }
}
