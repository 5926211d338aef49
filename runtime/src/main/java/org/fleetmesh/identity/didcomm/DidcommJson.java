package org.fleetmesh.identity.didcomm;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON as the three formats need it: insertion-ordered compact output, strict input, typed member reads. */
final class DidcommJson {
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    // a duplicate member could make the signer and the verifier (or two recipients) read two different messages
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private DidcommJson() {
    }

    static ObjectNode object() {
        return NODES.objectNode();
    }

    static String compact(JsonNode node) {
        try {
            return STRICT.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    static byte[] utf8(JsonNode node) {
        return compact(node).getBytes(StandardCharsets.UTF_8);
    }

    /** Parses a JSON object; {@code what} names it in the error. */
    static ObjectNode parseObject(String json, String what) throws DidcommException {
        if (json == null) {
            throw DidcommException.malformed(what + " is missing");
        }
        JsonNode node;
        try {
            node = STRICT.readTree(json);
        } catch (JsonProcessingException e) {
            throw DidcommException.malformed(what + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw DidcommException.malformed(what + " is not a JSON object");
        }
        return (ObjectNode) node;
    }

    /** Parses UTF-8 bytes (a decoded payload) as a JSON object. */
    static ObjectNode parseObject(byte[] utf8, String what) throws DidcommException {
        return parseObject(decodeUtf8(utf8, what), what);
    }

    static String decodeUtf8(byte[] bytes, String what) throws DidcommException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw DidcommException.malformed(what + " is not UTF-8");
        }
    }

    static String requireString(ObjectNode o, String name, String where) throws DidcommException {
        return optionalString(o, name, where)
                .orElseThrow(() -> DidcommException.malformed(where + " needs '" + name + "'"));
    }

    static Optional<String> optionalString(ObjectNode o, String name, String where) throws DidcommException {
        JsonNode v = o.get(name);
        if (v == null) {
            return Optional.empty();
        }
        if (!v.isTextual()) {
            throw DidcommException.malformed(where + " '" + name + "' must be a string, got " + kind(v));
        }
        return Optional.of(v.textValue());
    }

    static ObjectNode requireObject(ObjectNode o, String name, String where) throws DidcommException {
        JsonNode v = o.get(name);
        if (v == null) {
            throw DidcommException.malformed(where + " needs '" + name + "'");
        }
        if (!v.isObject()) {
            throw DidcommException.malformed(where + " '" + name + "' must be an object, got " + kind(v));
        }
        return (ObjectNode) v;
    }

    /** A JSON integer that fits a long; a float, a string or null is refused. */
    static Optional<Long> optionalLong(ObjectNode o, String name, String where) throws DidcommException {
        JsonNode v = o.get(name);
        if (v == null) {
            return Optional.empty();
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw DidcommException.malformed(where + " '" + name + "' must be an integer, got " + kind(v));
        }
        return Optional.of(v.longValue());
    }

    static String kind(JsonNode v) {
        return switch (v.getNodeType()) {
            case NULL -> "null";
            case BOOLEAN -> "a boolean";
            case NUMBER -> v.isIntegralNumber() ? "an integer out of range" : "a number with a fraction";
            case STRING -> "a string";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            default -> v.getNodeType().name().toLowerCase();
        };
    }
}
