package org.fleetmesh.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Field-by-field comparison of DID documents, naming the path of the first difference. */
final class DocumentAssertions {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private DocumentAssertions() {
    }

    static ObjectNode json(String text) {
        try {
            return (ObjectNode) MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new AssertionError("test JSON does not parse: " + e.getOriginalMessage(), e);
        }
    }

    /** Same fields with the same values at every depth; object field order is not compared. */
    static void assertSameDocument(JsonNode expected, JsonNode actual) {
        compare("$", expected, actual, false);
    }

    /** As {@link #assertSameDocument}, and every object lists its fields in the expected order. */
    static void assertSameDocumentInOrder(JsonNode expected, JsonNode actual) {
        compare("$", expected, actual, true);
    }

    private static void compare(String path, JsonNode expected, JsonNode actual, boolean order) {
        if (actual == null) {
            fail(path + " is missing; expected " + expected);
        }
        if (expected.isObject()) {
            if (!actual.isObject()) {
                fail(path + " should be an object, is " + actual);
            }
            List<String> expectedNames = names(expected);
            List<String> actualNames = names(actual);
            for (String name : expectedNames) {
                compare(path + "." + name, expected.get(name), actual.get(name), order);
            }
            for (String name : actualNames) {
                if (!expected.has(name)) {
                    fail(path + "." + name + " is not in the expected document: " + actual.get(name));
                }
            }
            if (order) {
                assertEquals(expectedNames, actualNames, path + " field order");
            }
        } else if (expected.isArray()) {
            if (!actual.isArray()) {
                fail(path + " should be an array, is " + actual);
            }
            assertEquals(expected.size(), actual.size(), path + " length (expected " + expected + ", got " + actual + ")");
            for (int i = 0; i < expected.size(); i++) {
                compare(path + "[" + i + "]", expected.get(i), actual.get(i), order);
            }
        } else {
            assertEquals(expected, actual, path);
        }
    }

    static List<String> fieldNames(JsonNode object) {
        return names(object);
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** The error of a resolution that must fail, after checking the message starts with its code. */
    static ResolutionError errorOf(Runnable resolution) {
        try {
            resolution.run();
        } catch (DidResolutionException e) {
            if (!e.getMessage().startsWith(e.error().code() + ": ")) {
                fail("message should start with the error code: " + e.getMessage());
            }
            return e.error();
        }
        throw new AssertionError("expected a DidResolutionException");
    }
}
