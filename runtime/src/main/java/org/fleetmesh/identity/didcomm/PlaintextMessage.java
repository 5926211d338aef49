package org.fleetmesh.identity.didcomm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import org.fleetmesh.identity.KeyHandover;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A DIDComm plaintext message (DIDComm Messaging v2.1 §"Plaintext Message Structure"), media type
 * {@code application/didcomm-plain+json}: the predefined headers typed, the {@code body}, the
 * {@code attachments}, and any other header kept as given (the spec forbids failing on unknown headers).
 * Immutable; the JSON values it holds are copies.
 */
public final class PlaintextMessage {
    private static final Set<String> PREDEFINED = Set.of("id", "typ", "type", "from", "to", "created_time",
            "expires_time", "thid", "pthid", "body", "attachments", "from_prior");

    private final String id;
    private final String type;
    private final String from;
    private final List<String> to;
    private final Long createdTime;
    private final Long expiresTime;
    private final String thid;
    private final String pthid;
    private final ObjectNode body;
    private final List<Attachment> attachments;
    private final String fromPrior;
    private final Map<String, JsonNode> headers;

    private PlaintextMessage(Builder b) {
        this.id = b.id;
        this.type = b.type;
        this.from = b.from;
        this.to = List.copyOf(b.to);
        this.createdTime = b.createdTime;
        this.expiresTime = b.expiresTime;
        this.thid = b.thid;
        this.pthid = b.pthid;
        this.body = b.body.deepCopy();
        this.attachments = List.copyOf(b.attachments);
        this.fromPrior = b.fromPrior;
        Map<String, JsonNode> copies = new LinkedHashMap<>();
        b.headers.forEach((k, v) -> copies.put(k, v.deepCopy()));
        this.headers = Collections.unmodifiableMap(copies);
    }

    /** A message with the two required headers; {@code body} starts as {@code {}}. */
    public static Builder builder(String id, String type) {
        return new Builder(id, type);
    }

    /** A builder holding this message's values, to derive a changed copy. */
    public Builder toBuilder() {
        Builder b = new Builder(id, type);
        b.from = from;
        b.to = new ArrayList<>(to);
        b.createdTime = createdTime;
        b.expiresTime = expiresTime;
        b.thid = thid;
        b.pthid = pthid;
        b.body = body.deepCopy();
        b.attachments = new ArrayList<>(attachments);
        b.fromPrior = fromPrior;
        b.headers = new LinkedHashMap<>(headers);
        return b;
    }

    public String id() {
        return id;
    }

    public String type() {
        return type;
    }

    public Optional<String> from() {
        return Optional.ofNullable(from);
    }

    /** The recipients' DIDs; empty when the header is absent (each recipient then assumes it is the only one). */
    public List<String> to() {
        return to;
    }

    /** {@code created_time}, UTC epoch seconds. */
    public OptionalLong createdTime() {
        return createdTime == null ? OptionalLong.empty() : OptionalLong.of(createdTime);
    }

    /** {@code expires_time}, UTC epoch seconds. */
    public OptionalLong expiresTime() {
        return expiresTime == null ? OptionalLong.empty() : OptionalLong.of(expiresTime);
    }

    public Optional<String> thid() {
        return Optional.ofNullable(thid);
    }

    /** The thread this message is in: {@code thid}, or the message's own {@code id} when there is none (spec §Threads). */
    public String threadId() {
        return thid != null ? thid : id;
    }

    public Optional<String> pthid() {
        return Optional.ofNullable(pthid);
    }

    public ObjectNode body() {
        return body.deepCopy();
    }

    public List<Attachment> attachments() {
        return attachments;
    }

    /** The DID rotation JWT, as given; {@link #verifiedFromPrior} checks it. */
    public Optional<String> fromPrior() {
        return Optional.ofNullable(fromPrior);
    }

    /**
     * The DID rotation this message carries, verified (DIDComm v2 "DID Rotation"; {@link KeyHandover#verify}), whose
     * {@code sub} is this message's {@code from}: the recipient may then treat {@code from} as the rotated
     * {@code iss}. Empty without {@code from_prior}.
     *
     * @throws IllegalArgumentException when the JWT does not verify, or the message has no {@code from} or another one
     */
    public Optional<KeyHandover> verifiedFromPrior(long now, long skewSeconds) {
        if (fromPrior == null) {
            return Optional.empty();
        }
        if (from == null) {
            throw new IllegalArgumentException("'from_prior' in a message without 'from'");
        }
        KeyHandover h = KeyHandover.verifyTo(from, fromPrior, now, skewSeconds);
        return Optional.of(h);
    }

    /** The headers beyond the predefined ones, in their order. */
    public Map<String, JsonNode> headers() {
        Map<String, JsonNode> copies = new LinkedHashMap<>();
        headers.forEach((k, v) -> copies.put(k, v.deepCopy()));
        return copies;
    }

    /** The JSON object, {@code typ} first; absent optional headers are left out, {@code body} is always written. */
    public ObjectNode toJsonNode() {
        ObjectNode o = DidcommJson.object();
        o.put("id", id);
        o.put("typ", MediaType.PLAIN.value());
        o.put("type", type);
        if (from != null) {
            o.put("from", from);
        }
        if (!to.isEmpty()) {
            ArrayNode a = o.putArray("to");
            to.forEach(a::add);
        }
        if (createdTime != null) {
            o.put("created_time", createdTime);
        }
        if (expiresTime != null) {
            o.put("expires_time", expiresTime);
        }
        if (thid != null) {
            o.put("thid", thid);
        }
        if (pthid != null) {
            o.put("pthid", pthid);
        }
        if (fromPrior != null) {
            o.put("from_prior", fromPrior);
        }
        headers.forEach((k, v) -> o.set(k, v.deepCopy()));
        o.set("body", body.deepCopy());
        if (!attachments.isEmpty()) {
            ArrayNode a = o.putArray("attachments");
            attachments.forEach(att -> a.add(att.toJsonNode()));
        }
        return o;
    }

    /** Compact JSON, the form {@link Didcomm#packPlaintext} sends and the other envelopes carry. */
    public String toJson() {
        return DidcommJson.compact(toJsonNode());
    }

    /**
     * Reads a plaintext message strictly: a JSON object without duplicate members; {@code id} and {@code type}
     * non-empty strings; {@code typ}, when present, the plaintext media type; {@code from} a DID (URL) without
     * fragment; {@code to} an array of them; times integers; {@code body} an object; every attachment valid.
     */
    public static PlaintextMessage parse(String json) throws DidcommException {
        return parse(DidcommJson.parseObject(json, "plaintext message"));
    }

    public static PlaintextMessage parse(ObjectNode o) throws DidcommException {
        String where = "plaintext message";
        Optional<String> typ = DidcommJson.optionalString(o, "typ", where);
        if (typ.isPresent() && MediaType.of(typ.get()).orElse(null) != MediaType.PLAIN) {
            throw DidcommException.malformed(where + " 'typ' must be " + MediaType.PLAIN + ", got '" + typ.get() + "'");
        }
        Builder b = new Builder(DidcommJson.requireString(o, "id", where), DidcommJson.requireString(o, "type", where));
        b.from = DidcommJson.optionalString(o, "from", where).orElse(null);
        JsonNode to = o.get("to");
        if (to != null) {
            if (!to.isArray()) {
                throw DidcommException.malformed(where + " 'to' must be an array of DIDs, got " + DidcommJson.kind(to));
            }
            for (JsonNode t : to) {
                if (!t.isTextual()) {
                    throw DidcommException.malformed(where + " 'to' holds " + DidcommJson.kind(t) + ", not a DID string");
                }
                b.to.add(t.textValue());
            }
        }
        b.createdTime = DidcommJson.optionalLong(o, "created_time", where).orElse(null);
        b.expiresTime = DidcommJson.optionalLong(o, "expires_time", where).orElse(null);
        b.thid = DidcommJson.optionalString(o, "thid", where).orElse(null);
        b.pthid = DidcommJson.optionalString(o, "pthid", where).orElse(null);
        b.fromPrior = DidcommJson.optionalString(o, "from_prior", where).orElse(null);
        JsonNode body = o.get("body");
        if (body != null) {
            if (!body.isObject()) {
                throw DidcommException.malformed(where + " 'body' must be an object, got " + DidcommJson.kind(body));
            }
            b.body = (ObjectNode) body;
        }
        JsonNode attachments = o.get("attachments");
        if (attachments != null) {
            if (!attachments.isArray()) {
                throw DidcommException.malformed(where + " 'attachments' must be an array, got "
                        + DidcommJson.kind(attachments));
            }
            int i = 0;
            for (JsonNode a : attachments) {
                b.attachments.add(Attachment.parse(a, "attachment " + i++));
            }
        }
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            if (!PREDEFINED.contains(e.getKey())) {
                b.headers.put(e.getKey(), e.getValue());
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw DidcommException.malformed(e.getMessage());
        }
    }

    @Override
    public boolean equals(Object o) {
        // compared as text: Jackson tells an int node from a long node of the same value
        return o instanceof PlaintextMessage m && toJson().equals(m.toJson());
    }

    @Override
    public int hashCode() {
        return toJson().hashCode();
    }

    @Override
    public String toString() {
        return "PlaintextMessage[id=" + id + ", type=" + type + (from != null ? ", from=" + from : "") + "]";
    }

    /** Collects a message's values; {@link #build} checks them. */
    public static final class Builder {
        private final String id;
        private final String type;
        private String from;
        private List<String> to = new ArrayList<>();
        private Long createdTime;
        private Long expiresTime;
        private String thid;
        private String pthid;
        private ObjectNode body = DidcommJson.object();
        private List<Attachment> attachments = new ArrayList<>();
        private String fromPrior;
        private Map<String, JsonNode> headers = new LinkedHashMap<>();

        private Builder(String id, String type) {
            this.id = id;
            this.type = type;
        }

        public Builder from(String from) {
            this.from = from;
            return this;
        }

        public Builder to(List<String> to) {
            this.to = new ArrayList<>(to);
            return this;
        }

        public Builder to(String... to) {
            return to(List.of(to));
        }

        public Builder createdTime(long epochSeconds) {
            this.createdTime = epochSeconds;
            return this;
        }

        public Builder expiresTime(long epochSeconds) {
            this.expiresTime = epochSeconds;
            return this;
        }

        public Builder thid(String thid) {
            this.thid = thid;
            return this;
        }

        public Builder pthid(String pthid) {
            this.pthid = pthid;
            return this;
        }

        public Builder body(ObjectNode body) {
            this.body = Objects.requireNonNull(body, "body").deepCopy();
            return this;
        }

        public Builder attachments(List<Attachment> attachments) {
            this.attachments = new ArrayList<>(attachments);
            return this;
        }

        public Builder attachment(Attachment attachment) {
            this.attachments.add(Objects.requireNonNull(attachment, "attachment"));
            return this;
        }

        public Builder fromPrior(String jwt) {
            this.fromPrior = jwt;
            return this;
        }

        /** A header beyond the predefined ones. */
        public Builder header(String name, JsonNode value) {
            if (PREDEFINED.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is a predefined header; use its own setter");
            }
            this.headers.put(name, Objects.requireNonNull(value, "value").deepCopy());
            return this;
        }

        /** @throws IllegalArgumentException naming the first header that breaks the spec */
        public PlaintextMessage build() {
            if (id == null || id.isEmpty()) {
                throw new IllegalArgumentException("'id' must be a non-empty string");
            }
            if (type == null || type.isEmpty()) {
                throw new IllegalArgumentException("'type' must be a non-empty message type URI");
            }
            if (from != null && !DidUrl.isDidOrUrlWithoutFragment(from)) {
                throw new IllegalArgumentException("'from' must be a DID or a DID URL without fragment, got '" + from + "'");
            }
            for (String t : to) {
                if (t == null || !DidUrl.isDidOrUrlWithoutFragment(t)) {
                    throw new IllegalArgumentException("'to' must hold DIDs or DID URLs without fragment, got '" + t + "'");
                }
            }
            if (thid != null && thid.isEmpty()) {
                throw new IllegalArgumentException("'thid' must not be empty");
            }
            if (pthid != null && pthid.isEmpty()) {
                throw new IllegalArgumentException("'pthid' must not be empty");
            }
            if (createdTime != null && createdTime < 0 || expiresTime != null && expiresTime < 0) {
                throw new IllegalArgumentException("times are UTC epoch seconds, not negative");
            }
            if (fromPrior != null && fromPrior.split("\\.", -1).length != 3) {
                throw new IllegalArgumentException("'from_prior' must be a compact JWT (three '.'-separated parts)");
            }
            return new PlaintextMessage(this);
        }
    }
}
