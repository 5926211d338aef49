package org.fleetmesh.nostr.nip59;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.PubKey;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * A NIP-59 rumor: an event with its id but no signature, so that a leaked copy proves nothing.
 * {@link #id()} is the id the rumor claims; {@link #hasValidId()} says whether it is the NIP-01 id
 * of the other fields.
 */
public record Rumor(EventId id, PubKey pubkey, long createdAt, int kind, List<List<String>> tags, String content) {

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build())
            .build();

    public Rumor {
        tags = List.copyOf(tags.stream().map(List::copyOf).toList());
    }

    /** A rumor with its NIP-01 id computed. */
    public static Rumor of(PubKey pubkey, long createdAt, int kind, List<List<String>> tags, String content) {
        return new Rumor(Events.computeId(pubkey, createdAt, kind, tags, content), pubkey, createdAt, kind, tags,
                content);
    }

    public boolean hasValidId() {
        return wellFormed(this) && Events.idMatches(id, pubkey, createdAt, kind, tags, content);
    }

    /** The JSON object NIP-59 encrypts into a seal: an event without {@code sig}. */
    public String json() {
        StringBuilder sb = new StringBuilder(192 + content.length());
        sb.append("{\"id\":\"").append(id.hex())
                .append("\",\"pubkey\":\"").append(pubkey.hex())
                .append("\",\"created_at\":").append(createdAt)
                .append(",\"kind\":").append(kind)
                .append(",\"tags\":");
        NostrJson.appendTags(sb, tags, false);
        sb.append(",\"content\":");
        NostrJson.appendString(sb, content, false);
        sb.append('}');
        return sb.toString();
    }

    /**
     * Reads a rumor object. Fields other than the six of an unsigned event, {@code sig} included,
     * are ignored: they are not part of the id.
     *
     * @throws GiftWrapException saying which field is missing or malformed
     */
    public static Rumor fromJson(String json) throws GiftWrapException {
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new GiftWrapException("rumor is not a JSON object");
            }
            String id = null, pubkey = null, content = null;
            Long createdAt = null;
            Integer kind = null;
            List<List<String>> tags = null;
            Set<String> seen = new HashSet<>();
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (!seen.add(name)) {
                    throw new GiftWrapException("rumor has a duplicate field " + NostrJson.quote(name));
                }
                switch (name) {
                    case "id" -> id = lowerHex64(p, v, name);
                    case "pubkey" -> pubkey = lowerHex64(p, v, name);
                    case "created_at" -> {
                        if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                                || p.getLongValue() < 0) {
                            throw new GiftWrapException("rumor created_at must be a non-negative integer");
                        }
                        createdAt = p.getLongValue();
                    }
                    case "kind" -> {
                        if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT
                                || p.getIntValue() < 0 || p.getIntValue() > 65535) {
                            throw new GiftWrapException("rumor kind must be an integer between 0 and 65535");
                        }
                        kind = p.getIntValue();
                    }
                    case "tags" -> tags = readTags(p, v);
                    case "content" -> {
                        if (v != JsonToken.VALUE_STRING) {
                            throw new GiftWrapException("rumor content must be a string");
                        }
                        content = p.getText();
                    }
                    default -> p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new GiftWrapException("rumor is not a single JSON object");
            }
            String absent = id == null ? "id" : pubkey == null ? "pubkey" : createdAt == null ? "created_at"
                    : kind == null ? "kind" : tags == null ? "tags" : content == null ? "content" : null;
            if (absent != null) {
                throw new GiftWrapException("rumor has no " + absent);
            }
            return new Rumor(EventId.ofHex(id), PubKey.ofHex(pubkey), createdAt, kind, tags, content);
        } catch (JsonProcessingException e) {
            throw new GiftWrapException("rumor is malformed JSON (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw new GiftWrapException("rumor is unreadable: " + e.getMessage());
        }
    }

    private static String lowerHex64(JsonParser p, JsonToken v, String field) throws IOException, GiftWrapException {
        if (v != JsonToken.VALUE_STRING || !Hex.isLowerHex(p.getText(), 64)) {
            throw new GiftWrapException("rumor " + field + " must be 64 lower-case hex characters");
        }
        return p.getText();
    }

    private static List<List<String>> readTags(JsonParser p, JsonToken v) throws IOException, GiftWrapException {
        if (v != JsonToken.START_ARRAY) {
            throw new GiftWrapException("rumor tags must be an array of arrays of strings");
        }
        List<List<String>> tags = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_ARRAY) {
            List<String> tag = new ArrayList<>(3);
            JsonToken s;
            while ((s = p.nextToken()) == JsonToken.VALUE_STRING) {
                tag.add(p.getText());
            }
            if (s != JsonToken.END_ARRAY || tag.isEmpty()) {
                throw new GiftWrapException("rumor tags must be an array of non-empty arrays of strings");
            }
            tags.add(tag);
        }
        if (p.currentToken() != JsonToken.END_ARRAY) {
            throw new GiftWrapException("rumor tags must be an array of arrays of strings");
        }
        return tags;
    }

    /** UTF-8 cannot encode a lone surrogate, so two different rumors would share one id. */
    private static boolean wellFormed(Rumor r) {
        if (!Events.wellFormed(r.content)) {
            return false;
        }
        for (List<String> tag : r.tags) {
            for (String s : tag) {
                if (!Events.wellFormed(s)) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return json();
    }
}
