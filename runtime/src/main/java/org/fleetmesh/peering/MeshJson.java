package org.fleetmesh.peering;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Signature;

/** JSON reading and writing shared by the handshake messages. */
final class MeshJson {
    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    static final ObjectMapper MAPPER = new ObjectMapper(FACTORY)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private MeshJson() {
    }

    static ArrayNode array(String type) {
        return NODES.arrayNode().add(type);
    }

    static ObjectNode object() {
        return NODES.objectNode();
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    static ObjectNode object(JsonNode root, String type) throws MeshRefusedException {
        if (root.size() != 2 || !root.get(1).isObject()) {
            throw malformed(type + " is [\"" + type + "\", {...}]: two elements, the second an object");
        }
        return (ObjectNode) root.get(1);
    }

    private static JsonNode member(ObjectNode o, String type, String name, String what) throws MeshRefusedException {
        JsonNode v = o.get(name);
        if (v == null || v.isNull()) {
            throw malformed(type + " needs \"" + name + "\": " + what);
        }
        return v;
    }

    static String string(ObjectNode o, String type, String name, String what) throws MeshRefusedException {
        JsonNode v = member(o, type, name, what);
        if (!v.isTextual() || v.textValue().isEmpty()) {
            throw malformed(type + " \"" + name + "\" must be " + what);
        }
        return v.textValue();
    }

    static String hex(ObjectNode o, String type, String name, int bytes) throws MeshRefusedException {
        String what = (2 * bytes) + " lower-case hex characters";
        JsonNode v = member(o, type, name, what);
        if (!v.isTextual() || !Hex.isLowerHex(v.textValue(), 2 * bytes)) {
            throw malformed(type + " \"" + name + "\" must be " + what);
        }
        return v.textValue();
    }

    /** An optional non-empty string member; absent or null: empty. */
    static Optional<String> optionalString(ObjectNode o, String type, String name, String what)
            throws MeshRefusedException {
        JsonNode v = o.get(name);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        return Optional.of(string(o, type, name, what));
    }

    static Optional<Signature> optionalBip340(ObjectNode o, String type, String name) throws MeshRefusedException {
        JsonNode v = o.get(name);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        return Optional.of(Signature.ofHex(hex(o, type, name, 64)));
    }

    /** Seconds since 1970: an integer in 0..2^53-1, the range every JSON reader holds exactly. */
    static long time(ObjectNode o, String type, String name) throws MeshRefusedException {
        String what = "an integer number of seconds since 1970";
        JsonNode v = member(o, type, name, what);
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0 || v.longValue() > (1L << 53) - 1) {
            throw malformed(type + " \"" + name + "\" must be " + what);
        }
        return v.longValue();
    }

    static int version(JsonNode v, String where) throws MeshRefusedException {
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < 1) {
            throw malformed(where + " must be a positive integer protocol version");
        }
        return v.intValue();
    }

    static List<Integer> versions(ObjectNode o, String type, String name) throws MeshRefusedException {
        JsonNode v = member(o, type, name, "a non-empty array of protocol versions");
        if (!v.isArray() || v.isEmpty() || v.size() > 16) {
            throw malformed(type + " \"" + name + "\" must be an array of 1 to 16 protocol versions");
        }
        List<Integer> out = new ArrayList<>();
        for (JsonNode e : v) {
            out.add(version(e, type + " \"" + name + "\" entries"));
        }
        return List.copyOf(out);
    }


    static String quote(String s) {
        return "\"" + s + "\"";
    }

    static MeshRefusedException malformed(String detail) {
        return Refusal.of(Refusal.Kind.MALFORMED, detail).exception();
    }
}
