package org.fleetmesh.nostr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * Reads client messages with a streaming parser: no tree is built, each field is checked as it
 * is read, and every refusal says why with a NIP-01 prefix.
 */
public final class MessageParser {

    /** Bounds the parser enforces while reading. */
    public record Limits(int maxFilters, int maxLimit, int maxTags, int maxFilterValues) {
        public static final Limits DEFAULT = new Limits(10, 5000, 2500, 1000);
    }

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).build())
            .build();

    private final Limits limits;
    private final FilterJson.Limits filterLimits;

    public MessageParser(Limits limits) {
        this.limits = limits;
        this.filterLimits = new FilterJson.Limits(limits.maxFilterValues(), limits.maxLimit());
    }

    public ClientMessage parse(String text) throws ProtocolException {
        try (JsonParser p = FACTORY.createParser(text)) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw notice("invalid: a message must be a JSON array");
            }
            if (p.nextToken() != JsonToken.VALUE_STRING) {
                throw notice("invalid: a message must start with a verb string");
            }
            String verb = p.getText();
            ClientMessage m = switch (verb) {
                case "EVENT" -> new ClientMessage.EventMessage(readEventArgument(p, verb));
                case "AUTH" -> new ClientMessage.Auth(readEventArgument(p, verb));
                case "REQ" -> {
                    String sub = readSubscriptionId(p, verb);
                    yield new ClientMessage.Req(sub, readFilters(p, verb, sub));
                }
                case "COUNT" -> {
                    String sub = readSubscriptionId(p, verb);
                    yield new ClientMessage.Count(sub, readFilters(p, verb, sub));
                }
                case "NEG-OPEN" -> {
                    String sub = readSubscriptionId(p, verb);
                    JsonToken t = p.nextToken();
                    List<Filter> fs;
                    if (t == JsonToken.START_OBJECT) {
                        fs = List.of(readFilter(p, verb, sub));
                    } else if (t == JsonToken.START_ARRAY) {
                        // NIP-77 says one filter; strfry and @nostr-dev-kit/sync also use an array of filters (their union)
                        fs = readFilters(p, verb, sub);
                    } else {
                        throw new ProtocolException(verb, null, sub, "invalid: NEG-OPEN needs a filter object (or an array of filters)");
                    }
                    yield new ClientMessage.NegOpen(sub, fs, readHexPayload(p, verb, sub));
                }
                case "NEG-MSG" -> {
                    String sub = readSubscriptionId(p, verb);
                    yield new ClientMessage.NegMsg(sub, readHexPayload(p, verb, sub));
                }
                case "NEG-CLOSE" -> {
                    String sub = readSubscriptionId(p, verb);
                    if (p.nextToken() != JsonToken.END_ARRAY) {
                        throw new ProtocolException(verb, null, sub, "invalid: NEG-CLOSE takes only a subscription id");
                    }
                    yield new ClientMessage.NegClose(sub);
                }
                case "CLOSE" -> {
                    String sub = readSubscriptionId(p, verb);
                    if (p.nextToken() != JsonToken.END_ARRAY) {
                        throw new ProtocolException(verb, null, null, "invalid: CLOSE takes only a subscription id");
                    }
                    yield new ClientMessage.Close(sub);
                }
                default -> throw notice("invalid: unknown message type " + NostrJson.quote(Snippet.of(verb)));
            };
            if (p.nextToken() != null) {
                throw notice("invalid: trailing data after the message");
            }
            return m;
        } catch (JsonProcessingException e) {
            throw notice("invalid: malformed JSON (" + Snippet.of(e.getOriginalMessage()) + ")");
        } catch (IOException e) {
            throw notice("invalid: unreadable message");
        }
    }

    private Event readEventArgument(JsonParser p, String verb) throws IOException, ProtocolException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new ProtocolException(verb, null, null, "invalid: " + verb + " needs an event object");
        }
        Event e = readEvent(p, verb);
        if (p.nextToken() != JsonToken.END_ARRAY) {
            throw new ProtocolException(verb, e.id().hex(), null, "invalid: " + verb + " takes exactly one event");
        }
        return e;
    }

    /**
     * The refusal of a message too large to read, addressed as its verb needs: an EVENT or AUTH by its event's
     * {@code id} (so it is an {@code OK false} its client can match), a REQ, COUNT or NEG-* by its subscription id
     * (CLOSED, NEG-ERR), anything else as a NOTICE. Only the verb, the subscription id and the names of the event's
     * members are read, every value skipped unread, so this is one pass over text the transport already holds; a
     * message malformed before its address is answered with what was read.
     */
    public ProtocolException refusalUnread(String text, String message) {
        String verb = null, sub = null, id = null, sentId = null;
        try (JsonParser p = FACTORY.createParser(text)) {
            if (p.nextToken() == JsonToken.START_ARRAY && p.nextToken() == JsonToken.VALUE_STRING
                    && p.getTextLength() <= 16) {
                verb = p.getText();
                switch (verb) {
                    case "EVENT", "AUTH" -> {
                        if (p.nextToken() == JsonToken.START_OBJECT) {
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                boolean isId = p.currentName().equals("id");
                                JsonToken v = p.nextToken();
                                if (isId) {
                                    if (v == JsonToken.VALUE_STRING && p.getTextLength() <= ProtocolException.MAX_ECHOED_ID) {
                                        String sent = p.getText();
                                        if (Hex.isLowerHex(sent, 64)) {
                                            id = sent;
                                        } else {
                                            sentId = sent;
                                        }
                                    }
                                    break;
                                }
                                skip(p, v);
                            }
                        }
                    }
                    case "REQ", "COUNT", "NEG-OPEN", "NEG-MSG", "NEG-CLOSE" -> {
                        if (p.nextToken() == JsonToken.VALUE_STRING && p.getTextLength() <= 128) {
                            String s = p.getText();
                            sub = s.isEmpty() || s.codePointCount(0, s.length()) > 64 ? null : s;
                        }
                    }
                    default -> verb = null;
                }
            }
        } catch (IOException e) {
            // answered with what was read before the text stopped being JSON
        }
        return new ProtocolException(verb, id, sub, message, sentId);
    }

    /** Reads an event object; the parser is on its START_OBJECT. */
    Event readEvent(JsonParser p, String verb) throws IOException, ProtocolException {
        String id = null, pubkey = null, content = null, sig = null, sentId = null;
        Long createdAt = null;
        Integer kind = null;
        List<List<String>> tags = null;
        String problem = null;
        Set<String> seen = new HashSet<>(8);
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (!seen.add(name) && problem == null) {
                problem = "invalid: duplicate field " + NostrJson.quote(Snippet.of(name));
            }
            switch (name) {
                case "id" -> {
                    if (v == JsonToken.VALUE_STRING && Hex.isLowerHex(p.getText(), 64)) {
                        id = p.getText();
                    } else {
                        if (v == JsonToken.VALUE_STRING && p.getTextLength() <= ProtocolException.MAX_ECHOED_ID) {
                            sentId = p.getText();
                        }
                        if (problem == null) {
                            problem = "invalid: id must be 64 lower-case hex characters";
                        }
                    }
                    skip(p, v);
                }
                case "pubkey" -> {
                    if (v == JsonToken.VALUE_STRING && Hex.isLowerHex(p.getText(), 64)) {
                        pubkey = p.getText();
                    } else if (problem == null) {
                        problem = "invalid: pubkey must be 64 lower-case hex characters";
                    }
                    skip(p, v);
                }
                case "sig" -> {
                    if (v == JsonToken.VALUE_STRING && Hex.isLowerHex(p.getText(), 128)) {
                        sig = p.getText();
                    } else if (problem == null) {
                        problem = "invalid: sig must be 128 lower-case hex characters";
                    }
                    skip(p, v);
                }
                case "created_at" -> {
                    if (v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                            && p.getLongValue() >= 0) {
                        createdAt = p.getLongValue();
                    } else if (problem == null) {
                        problem = "invalid: created_at must be a non-negative integer";
                    }
                    skip(p, v);
                }
                case "kind" -> {
                    if (v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT
                            && p.getIntValue() >= 0 && p.getIntValue() <= 65535) {
                        kind = p.getIntValue();
                    } else if (problem == null) {
                        problem = "invalid: kind must be an integer between 0 and 65535";
                    }
                    skip(p, v);
                }
                case "content" -> {
                    if (v == JsonToken.VALUE_STRING) {
                        content = p.getText();
                    } else if (problem == null) {
                        problem = "invalid: content must be a string";
                    }
                    skip(p, v);
                }
                case "tags" -> {
                    if (v == JsonToken.START_ARRAY) {
                        tags = readTags(p);
                        if (tags == null && problem == null) {
                            problem = "invalid: tags must be an array of non-empty arrays of strings";
                        } else if (tags != null && tags.size() > limits.maxTags() && problem == null) {
                            problem = "invalid: too many tags (at most " + limits.maxTags() + ")";
                        }
                    } else {
                        if (problem == null) {
                            problem = "invalid: tags must be an array of non-empty arrays of strings";
                        }
                        skip(p, v);
                    }
                }
                default -> skip(p, v); // unknown fields are not part of the id; ignore them
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new ProtocolException(verb, id, null, "invalid: malformed event object", id == null ? sentId : null);
        }
        if (problem == null) {
            problem = missing(id, pubkey, createdAt, kind, tags, content, sig);
        }
        if (problem != null) {
            throw new ProtocolException(verb, id, null, problem, id == null ? sentId : null);
        }
        return new Event(EventId.ofHex(id), PubKey.ofHex(pubkey), createdAt, kind, tags, content, Signature.ofHex(sig));
    }

    private static String missing(String id, String pubkey, Long createdAt, Integer kind, List<List<String>> tags,
            String content, String sig) {
        String field = id == null ? "id" : pubkey == null ? "pubkey" : createdAt == null ? "created_at"
                : kind == null ? "kind" : tags == null ? "tags" : content == null ? "content" : sig == null ? "sig" : null;
        return field == null ? null : "invalid: missing field " + field;
    }

    /** Reads tags after START_ARRAY; null (with the array consumed) if the shape is wrong. */
    private static List<List<String>> readTags(JsonParser p) throws IOException {
        List<List<String>> tags = new ArrayList<>();
        boolean ok = true;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_ARRAY) {
                ok = false;
                p.skipChildren();
                continue;
            }
            List<String> tag = new ArrayList<>(3);
            JsonToken s;
            while ((s = p.nextToken()) != JsonToken.END_ARRAY) {
                if (s == JsonToken.VALUE_STRING) {
                    tag.add(p.getText());
                } else {
                    ok = false;
                    p.skipChildren();
                }
            }
            if (tag.isEmpty()) {
                ok = false; // NIP-01: each tag is an array of one or more strings
            }
            tags.add(List.copyOf(tag));
        }
        return ok ? List.copyOf(tags) : null;
    }

    private static void skip(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) {
            p.skipChildren();
        }
    }

    /** A hex-encoded Negentropy message, the last element of NEG-OPEN and NEG-MSG. */
    private static byte[] readHexPayload(JsonParser p, String verb, String sub) throws IOException, ProtocolException {
        if (p.nextToken() != JsonToken.VALUE_STRING) {
            throw new ProtocolException(verb, null, sub, "invalid: " + verb + " needs a hex-encoded message");
        }
        String hex = p.getText().toLowerCase(java.util.Locale.ROOT);
        if (hex.isEmpty() || (hex.length() & 1) != 0 || !Hex.isLowerHex(hex, hex.length())) {
            throw new ProtocolException(verb, null, sub, "invalid: the message is not hex");
        }
        if (p.nextToken() != JsonToken.END_ARRAY) {
            throw new ProtocolException(verb, null, sub, "invalid: trailing elements after the message");
        }
        return Hex.decodeLower(hex);
    }

    private static String readSubscriptionId(JsonParser p, String verb) throws IOException, ProtocolException {
        if (p.nextToken() != JsonToken.VALUE_STRING) {
            throw new ProtocolException(verb, null, null, "invalid: " + verb + " needs a subscription id string");
        }
        String sub = p.getText();
        // NIP-01: at most 64 characters, counted as Unicode code points (an emoji is one, not two UTF-16 units)
        if (sub.isEmpty() || (sub.length() > 64 && sub.codePointCount(0, sub.length()) > 64)) {
            // the id goes back as sent, so a refused REQ or COUNT is answered with CLOSED for it
            throw new ProtocolException(verb, null, sub, "invalid: subscription id must be 1 to 64 characters");
        }
        return sub;
    }

    private List<Filter> readFilters(JsonParser p, String verb, String sub) throws IOException, ProtocolException {
        List<Filter> filters = new ArrayList<>(2);
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) {
                throw new ProtocolException(verb, null, sub, "invalid: filters must be JSON objects");
            }
            if (filters.size() == limits.maxFilters()) {
                throw new ProtocolException(verb, null, sub, "invalid: too many filters (at most " + limits.maxFilters() + ")");
            }
            filters.add(readFilter(p, verb, sub));
        }
        if (filters.isEmpty()) {
            throw new ProtocolException(verb, null, sub, "invalid: " + verb + " needs at least one filter");
        }
        return List.copyOf(filters);
    }

    /** Reads one filter with the shared strict reader; the parser is on its START_OBJECT. */
    Filter readFilter(JsonParser p, String verb, String sub) throws IOException, ProtocolException {
        try {
            return FilterJson.read(p, filterLimits);
        } catch (FilterSyntaxException e) {
            throw new ProtocolException(verb, null, sub, prefixed(e));
        }
    }

    /** The NIP-01 machine-readable prefix and the reason. */
    private static String prefixed(FilterSyntaxException e) {
        return (e.kind() == FilterSyntaxException.Kind.UNSUPPORTED ? "unsupported: " : "invalid: ") + e.reason();
    }

    private static ProtocolException notice(String message) {
        return new ProtocolException(null, null, null, message);
    }


    /** Parses one event object on its own (JSONL import, tests). */
    public Event parseEvent(String json) throws ProtocolException {
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw notice("invalid: an event must be a JSON object");
            }
            Event e = readEvent(p, "EVENT");
            if (p.nextToken() != null) {
                throw new ProtocolException("EVENT", e.id().hex(), null, "invalid: trailing data after the event");
            }
            return e;
        } catch (JsonProcessingException e) {
            throw notice("invalid: malformed JSON (" + Snippet.of(e.getOriginalMessage()) + ")");
        } catch (IOException e) {
            throw notice("invalid: unreadable event");
        }
    }

    /** Parses one filter object on its own (export --filter, tests). */
    public Filter parseFilter(String json) throws ProtocolException {
        try {
            return FilterJson.parse(json, filterLimits);
        } catch (FilterSyntaxException e) {
            // a text that is not one JSON object is a plain notice; a rule broken inside the filter names REQ
            throw new ProtocolException(e.kind() == FilterSyntaxException.Kind.NOT_A_FILTER ? null : "REQ", null, null,
                    prefixed(e));
        }
    }
}
