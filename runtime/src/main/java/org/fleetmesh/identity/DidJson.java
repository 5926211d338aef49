package org.fleetmesh.identity;

import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON as DID documents need it: insertion-ordered objects, compact text, strict parsing of what a DID carries. */
final class DidJson {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    // duplicate keys or trailing text inside a DID could make two resolvers see two documents
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private DidJson() {
    }

    static ObjectNode object() {
        return NODES.objectNode();
    }

    static ArrayNode array() {
        return NODES.arrayNode();
    }

    static ArrayNode strings(List<String> values) {
        ArrayNode a = NODES.arrayNode();
        values.forEach(a::add);
        return a;
    }

    static ArrayNode strings(String... values) {
        return strings(List.of(values));
    }

    /** Compact JSON, no whitespace, fields in insertion order: the form did:peer:2 and did:peer:4 encode. */
    static String compact(JsonNode node) {
        try {
            return STRICT.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    /** Parses a JSON object carried inside a DID; {@code invalidDid} naming {@code what} otherwise. */
    static ObjectNode parseObject(String json, String what) {
        JsonNode node;
        try {
            node = STRICT.readTree(json);
        } catch (JsonProcessingException e) {
            throw DidResolutionException.invalidDid(what + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw DidResolutionException.invalidDid(what + " is not a JSON object");
        }
        return (ObjectNode) node;
    }
}
