package org.fleetmesh.compute.market;

import java.util.Base64;
import java.util.List;

import org.fleetmesh.nostr.Event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The compute/1.0 DIDComm message types and their bodies (docs/spec/compute.md, "Messages"). Every body but
 * {@code offer} and {@code request} names its job by {@code request} (the request digest).
 */
public final class ComputeMessages {
    public static final String PROTOCOL = "https://fleetmesh.org/compute/1.0/";
    public static final String OFFER = PROTOCOL + "offer";
    public static final String REQUEST = PROTOCOL + "request";
    public static final String FETCH = PROTOCOL + "fetch";
    public static final String BLOB = PROTOCOL + "blob";
    public static final String SEALED = PROTOCOL + "sealed";
    public static final String REFUSE = PROTOCOL + "refuse";
    public static final String KEY = PROTOCOL + "key";
    /** The largest {@code blob} chunk, raw bytes. */
    public static final int MAX_CHUNK = 262_144;
    /** At most this many hashes in one fetch (a job names two). */
    public static final int MAX_FETCH = 2;
    /** A member named twice is refused, not read as its last value. */
    static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private ComputeMessages() {
    }

    /** The refusal reasons' words. */
    public static final String BUSY = "busy";
    public static final String PRICE = "price";
    public static final String LIMITS = "limits";
    public static final String TOKEN = "token";
    public static final String RAIL = "rail";
    public static final String INVALID = "invalid";
    public static final String BLOB_MISSING = "blob";

    public static ObjectNode offer(Event offer) {
        ObjectNode b = JSON.createObjectNode();
        b.set("offer", tree(offer.json()));
        return b;
    }

    public static ObjectNode fetch(String request, List<String> hashes) {
        ObjectNode b = JSON.createObjectNode();
        b.put("request", request);
        ArrayNode a = b.putArray("hashes");
        hashes.forEach(a::add);
        return b;
    }

    public static ObjectNode blob(String request, String hash, long offset, long total, byte[] data) {
        ObjectNode b = JSON.createObjectNode();
        b.put("request", request);
        b.put("hash", hash);
        b.put("offset", offset);
        b.put("total", total);
        b.put("data", Base64.getEncoder().encodeToString(data));
        return b;
    }

    /** {@code invoice} null for a free job. */
    public static ObjectNode sealed(String request, byte[] nonce, byte[] ciphertext, Event record, String invoice) {
        ObjectNode b = JSON.createObjectNode();
        b.put("request", request);
        b.put("nonce", Base64.getEncoder().encodeToString(nonce));
        b.put("ciphertext", Base64.getEncoder().encodeToString(ciphertext));
        b.set("record", tree(record.json()));
        if (invoice == null) {
            b.putNull("invoice");
        } else {
            b.put("invoice", invoice);
        }
        return b;
    }

    public static ObjectNode refuse(String request, String reason, String detail) {
        ObjectNode b = JSON.createObjectNode();
        b.put("request", request);
        b.put("reason", reason);
        b.put("detail", detail);
        return b;
    }

    public static ObjectNode key(String request, String keyHex) {
        ObjectNode b = JSON.createObjectNode();
        b.put("request", request);
        b.put("key", keyHex);
        return b;
    }

    static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("an event is JSON", e);
        }
    }

    /** A member that must be a string. */
    public static String text(JsonNode body, String name) throws MarketProtocolException {
        JsonNode v = body.get(name);
        if (v == null || !v.isTextual()) {
            throw new MarketProtocolException(name + ": a string");
        }
        return v.textValue();
    }

    public static long integer(JsonNode body, String name) throws MarketProtocolException {
        JsonNode v = body.get(name);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
            throw new MarketProtocolException(name + ": a non-negative integer");
        }
        return v.longValue();
    }

    public static byte[] base64(JsonNode body, String name) throws MarketProtocolException {
        try {
            return Base64.getDecoder().decode(text(body, name));
        } catch (IllegalArgumentException e) {
            throw new MarketProtocolException(name + ": base64");
        }
    }
}
