package org.fleetmesh.compute.market;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

import org.fleetmesh.compute.JobSpec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A job request (docs/spec/compute.md, "request"): the job, the most the buyer pays, the rail, a nonce and the buyer's
 * DID, and optionally a capability token. Its {@link #digest()}, SHA-256 over {@link #canonicalJson()} (the token left
 * out), names the job on both sides: the {@code d} tag of the job record and the AEAD's additional data.
 */
public record Request(JobSpec spec, long maxPriceMsat, String rail, String nonce, String buyer,
        Optional<String> token) {
    private static final Pattern NONCE = Pattern.compile("[0-9a-f]{32}");
    private static final JsonFactory JSON = new JsonFactory();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public Request {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(rail, "rail");
        Objects.requireNonNull(buyer, "buyer");
        Objects.requireNonNull(token, "token");
        if (maxPriceMsat < 0 || maxPriceMsat > org.fleetmesh.spi.settlement.Msat.MAX) {
            // no price can pass the money that exists (21 million bitcoin): a larger bound is a client's mistake
            throw new IllegalArgumentException("max_price_msat: between 0 and " + org.fleetmesh.spi.settlement.Msat.MAX
                    + " (21 million bitcoin)");
        }
        if (!NONCE.matcher(nonce).matches()) {
            throw new IllegalArgumentException("nonce: 32 lowercase hex characters");
        }
        if (rail.length() > 256 || buyer.length() > 4096) {
            throw new IllegalArgumentException("rail or buyer too long");
        }
    }

    /**
     * {@code {"buyer":..,"job":<JobSpec canonical JSON>,"max_price_msat":N,"nonce":..,"rail":..}}: these members in
     * this order, no whitespace.
     */
    public String canonicalJson() {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("buyer", buyer);
            g.writeFieldName("job");
            g.writeRawValue(spec.canonicalJson());
            g.writeNumberField("max_price_msat", maxPriceMsat);
            g.writeStringField("nonce", nonce);
            g.writeStringField("rail", rail);
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }

    public String digest() {
        return JobSpec.sha256(canonicalJson().getBytes(StandardCharsets.UTF_8));
    }

    /** The body of the request message: the canonical members and {@code token} when there is one. */
    public ObjectNode body() {
        try {
            ObjectNode n = (ObjectNode) MAPPER.readTree(canonicalJson());
            token.ifPresent(t -> n.put("token", t));
            return n;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static Request fromJson(JsonNode n) throws MarketProtocolException {
        if (n == null || !n.isObject()) {
            throw new MarketProtocolException("request: a JSON object");
        }
        try {
            JsonNode max = n.get("max_price_msat");
            if (max == null || !max.isIntegralNumber() || !max.canConvertToLong()) {
                throw new IllegalArgumentException("max_price_msat: an integer");
            }
            JsonNode token = n.get("token");
            if (token != null && !token.isTextual()) {
                throw new IllegalArgumentException("token: a string");
            }
            return new Request(JobSpec.fromJson(n.get("job")), max.longValue(), text(n, "rail"), text(n, "nonce"),
                    text(n, "buyer"), Optional.ofNullable(token).map(JsonNode::textValue));
        } catch (IllegalArgumentException e) {
            throw new MarketProtocolException("request: " + e.getMessage());
        }
    }

    private static String text(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException(name + ": a string");
        }
        return v.textValue();
    }
}
