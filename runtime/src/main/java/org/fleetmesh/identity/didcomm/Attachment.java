package org.fleetmesh.identity.didcomm;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One entry of a plaintext message's {@code attachments} (DIDComm Messaging v2.1 §Attachments): descriptive
 * members and a {@code data} object giving the content inline ({@code base64}, {@code json}), by reference
 * ({@code links} with a {@code hash}) and/or signed ({@code jws}). Held as its checked JSON, so members this
 * class does not name survive a round trip.
 */
public final class Attachment {
    // the id is composed into URIs, so only RFC 3986 unreserved characters
    private static final Pattern UNRESERVED = Pattern.compile("[A-Za-z0-9._~-]+");
    private static final List<String> DATA_MEMBERS = List.of("jws", "hash", "links", "base64", "json");

    private final ObjectNode json;

    private Attachment(ObjectNode json) {
        this.json = json;
    }

    /** An attachment carrying {@code content} inline as base64url. */
    public static Builder base64(byte[] content) {
        ObjectNode data = DidcommJson.object();
        data.put("base64", Base64Url.encode(content));
        return new Builder(data);
    }

    /** An attachment carrying JSON inline. */
    public static Builder json(JsonNode content) {
        ObjectNode data = DidcommJson.object();
        data.set("json", content.deepCopy());
        return new Builder(data);
    }

    /** An attachment by reference: where to fetch it, and the multihash that the fetched bytes must match. */
    public static Builder links(List<String> links, String multihash) {
        ObjectNode data = DidcommJson.object();
        data.put("hash", multihash);
        ArrayNode a = data.putArray("links");
        links.forEach(a::add);
        return new Builder(data);
    }

    public Optional<String> id() {
        return text("id");
    }

    public Optional<String> description() {
        return text("description");
    }

    public Optional<String> filename() {
        return text("filename");
    }

    public Optional<String> mediaType() {
        return text("media_type");
    }

    public Optional<String> format() {
        return text("format");
    }

    public OptionalLong lastmodTime() {
        JsonNode v = json.get("lastmod_time");
        return v == null ? OptionalLong.empty() : OptionalLong.of(v.longValue());
    }

    public OptionalLong byteCount() {
        JsonNode v = json.get("byte_count");
        return v == null ? OptionalLong.empty() : OptionalLong.of(v.longValue());
    }

    /** {@code data.base64} as given (senders use base64url, some older ones padded base64). */
    public Optional<String> base64() {
        return dataText("base64");
    }

    public Optional<JsonNode> jsonContent() {
        return Optional.ofNullable(data().get("json")).map(JsonNode::deepCopy);
    }

    public List<String> links() {
        List<String> out = new ArrayList<>();
        JsonNode links = data().get("links");
        if (links != null) {
            links.forEach(l -> out.add(l.textValue()));
        }
        return List.copyOf(out);
    }

    public Optional<String> hash() {
        return dataText("hash");
    }

    /** The detached-content JWS over the content, as given; this class does not verify it. */
    public Optional<ObjectNode> jws() {
        return Optional.ofNullable((ObjectNode) data().get("jws")).map(ObjectNode::deepCopy);
    }

    public ObjectNode toJsonNode() {
        return json.deepCopy();
    }

    private ObjectNode data() {
        return (ObjectNode) json.get("data");
    }

    private Optional<String> text(String name) {
        return Optional.ofNullable(json.get(name)).map(JsonNode::textValue);
    }

    private Optional<String> dataText(String name) {
        return Optional.ofNullable(data().get(name)).map(JsonNode::textValue);
    }

    static Attachment parse(JsonNode node, String where) throws DidcommException {
        if (!node.isObject()) {
            throw DidcommException.malformed(where + " must be an object, got " + DidcommJson.kind(node));
        }
        ObjectNode o = (ObjectNode) node;
        Optional<String> id = DidcommJson.optionalString(o, "id", where);
        if (id.isPresent() && !UNRESERVED.matcher(id.get()).matches()) {
            throw DidcommException.malformed(where + " 'id' must be unreserved URI characters, got '" + id.get() + "'");
        }
        for (String name : List.of("description", "filename", "media_type", "format")) {
            DidcommJson.optionalString(o, name, where);
        }
        DidcommJson.optionalLong(o, "lastmod_time", where);
        Optional<Long> byteCount = DidcommJson.optionalLong(o, "byte_count", where);
        if (byteCount.isPresent() && byteCount.get() < 0) {
            throw DidcommException.malformed(where + " 'byte_count' must not be negative");
        }
        ObjectNode data = DidcommJson.requireObject(o, "data", where);
        String dataWhere = where + " data";
        if (DATA_MEMBERS.stream().noneMatch(data::has)) {
            throw DidcommException.malformed(dataWhere + " needs one of " + DATA_MEMBERS);
        }
        DidcommJson.optionalString(data, "base64", dataWhere);
        Optional<String> hash = DidcommJson.optionalString(data, "hash", dataWhere);
        JsonNode jws = data.get("jws");
        if (jws != null && !jws.isObject()) {
            throw DidcommException.malformed(dataWhere + " 'jws' must be a JWS in JSON serialization, got "
                    + DidcommJson.kind(jws));
        }
        JsonNode links = data.get("links");
        if (links != null) {
            if (!links.isArray()) {
                throw DidcommException.malformed(dataWhere + " 'links' must be an array, got " + DidcommJson.kind(links));
            }
            for (JsonNode l : links) {
                if (!l.isTextual()) {
                    throw DidcommException.malformed(dataWhere + " 'links' holds " + DidcommJson.kind(l) + ", not a URL");
                }
            }
            // content fetched from elsewhere is only as good as the hash that pins it
            if (!links.isEmpty() && hash.isEmpty()) {
                throw DidcommException.malformed(dataWhere + " with 'links' needs a 'hash'");
            }
        }
        return new Attachment(o.deepCopy());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Attachment a && DidcommJson.compact(a.json).equals(DidcommJson.compact(json));
    }

    @Override
    public int hashCode() {
        return DidcommJson.compact(json).hashCode();
    }

    @Override
    public String toString() {
        return "Attachment" + DidcommJson.compact(json);
    }

    /** The descriptive members of an attachment whose data is already set. */
    public static final class Builder {
        private final ObjectNode json = DidcommJson.object();
        private final ObjectNode data;

        private Builder(ObjectNode data) {
            this.data = data;
        }

        public Builder id(String id) {
            json.put("id", Objects.requireNonNull(id, "id"));
            return this;
        }

        public Builder description(String description) {
            json.put("description", Objects.requireNonNull(description, "description"));
            return this;
        }

        public Builder filename(String filename) {
            json.put("filename", Objects.requireNonNull(filename, "filename"));
            return this;
        }

        public Builder mediaType(String mediaType) {
            json.put("media_type", Objects.requireNonNull(mediaType, "mediaType"));
            return this;
        }

        public Builder format(String format) {
            json.put("format", Objects.requireNonNull(format, "format"));
            return this;
        }

        public Builder lastmodTime(long epochSeconds) {
            json.put("lastmod_time", epochSeconds);
            return this;
        }

        public Builder byteCount(long bytes) {
            json.put("byte_count", bytes);
            return this;
        }

        /** @throws IllegalArgumentException when the attachment breaks a rule {@link #parse} checks */
        public Attachment build() {
            ObjectNode o = json.deepCopy();
            o.set("data", data.deepCopy());
            try {
                return parse(o, "attachment");
            } catch (DidcommException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
    }
}
