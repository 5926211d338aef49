package org.fleetmesh.delivery;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.fleetmesh.nostr.Snippet;

/** The JSON reader of the delivery messages: strict (duplicate members, trailing tokens), shallow. */
final class DeliveryJson {
    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    static final ObjectMapper MAPPER = new ObjectMapper(FACTORY).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private DeliveryJson() {
    }

    /** The tree of {@code text}; {@code what} names the message in the error. */
    static JsonNode read(String text, String what) throws FrameException {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new FrameException("invalid: " + what + " is not JSON (" + Snippet.of(e.getOriginalMessage()) + ")");
        } catch (IOException e) {
            throw new FrameException("invalid: " + what + " is unreadable");
        }
    }


    /** A non-negative integer within 0..2^53-1, or -1. */
    static long count(JsonNode v) {
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0
                || v.longValue() > (1L << 53) - 1) {
            return -1;
        }
        return v.longValue();
    }
}
