package org.fleetmesh.settlement.lightning.l402;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.PubKey;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * The NIP-01 filter of an export request: parsed strictly (the rules of the relay's REQ parser:
 * lower-case 64-hex ids and authors, kinds 0..65535, non-negative since/until/limit, single-letter
 * {@code #x} tags, no unknown or duplicate fields, at most {@link #MAX_VALUES} values per field),
 * and reduced to a canonical JSON whose SHA-256 the token's {@code filter} caveat carries.
 *
 * <p>The canonical form leaves {@code limit} out (the quota caveat bounds the count) and writes the
 * present fields in the order ids, authors, kinds, tags by name, since, until, each set sorted and
 * without duplicates. Two filters select the same events exactly when their canonical forms are
 * equal, whatever the key order, spacing or value order of the request.
 */
public final class L402Filters {
    /** Values per array, as the relay's parser allows. */
    public static final int MAX_VALUES = 1000;
    /** Characters of filter JSON accepted. */
    public static final int MAX_LENGTH = 65536;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(4).maxStringLength(MAX_LENGTH).build())
            .build();

    private L402Filters() {
    }

    /** Parses one filter object; {@link L402Refusal.Code#BAD_FILTER} with the rule that failed. */
    public static Filter parse(String json) {
        if (json == null || json.isBlank()) {
            throw bad("the filter parameter is missing: GET ...?filter=<url-encoded NIP-01 filter JSON>");
        }
        if (json.length() > MAX_LENGTH) {
            throw bad("the filter is longer than " + MAX_LENGTH + " characters");
        }
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw bad("a filter must be a JSON object");
            }
            Filter f = readFilter(p);
            if (p.nextToken() != null) {
                throw bad("trailing data after the filter");
            }
            return f;
        } catch (JsonProcessingException e) {
            throw bad("malformed JSON (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw bad("unreadable filter");
        }
    }

    private static Filter readFilter(JsonParser p) throws IOException {
        Set<EventId> ids = null;
        Set<PubKey> authors = null;
        Set<Integer> kinds = null;
        Map<String, Set<String>> tags = new HashMap<>(2);
        Long since = null, until = null;
        Integer limit = null;
        Set<String> seen = new HashSet<>(8);
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (!seen.add(name)) {
                throw bad("duplicate filter field " + NostrJson.quote(clip(name)));
            }
            switch (name) {
                case "ids" -> {
                    ids = new HashSet<>();
                    for (String s : readStrings(p, v, name)) {
                        ids.add(EventId.ofHex(requireHex(s, name)));
                    }
                }
                case "authors" -> {
                    authors = new HashSet<>();
                    for (String s : readStrings(p, v, name)) {
                        authors.add(PubKey.ofHex(requireHex(s, name)));
                    }
                }
                case "kinds" -> kinds = readKinds(p, v);
                case "since" -> since = readNonNegative(p, v, name);
                case "until" -> until = readNonNegative(p, v, name);
                case "limit" -> limit = (int) Math.min(readNonNegative(p, v, name), Integer.MAX_VALUE);
                default -> {
                    if (name.length() == 2 && name.charAt(0) == '#' && isLetter(name.charAt(1))) {
                        tags.put(name.substring(1), new HashSet<>(readStrings(p, v, name)));
                    } else {
                        throw bad("unknown filter field " + NostrJson.quote(clip(name)));
                    }
                }
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw bad("malformed filter");
        }
        return new Filter(ids, authors, kinds, tags, since, until, limit);
    }

    /** The canonical JSON of {@code f} without its limit (see the class comment). */
    public static String canonical(Filter f) {
        StringBuilder sb = new StringBuilder(128).append('{');
        boolean[] first = { true };
        if (f.ids() != null) {
            key(sb, first, "ids");
            strings(sb, f.ids().stream().map(EventId::hex).sorted().toList());
        }
        if (f.authors() != null) {
            key(sb, first, "authors");
            strings(sb, f.authors().stream().map(PubKey::hex).sorted().toList());
        }
        if (f.kinds() != null) {
            key(sb, first, "kinds");
            sb.append('[');
            List<Integer> ks = f.kinds().stream().sorted().toList();
            for (int i = 0; i < ks.size(); i++) {
                sb.append(i == 0 ? "" : ",").append(ks.get(i));
            }
            sb.append(']');
        }
        for (Map.Entry<String, Set<String>> e : new TreeMap<>(f.tags()).entrySet()) {
            key(sb, first, "#" + e.getKey());
            strings(sb, e.getValue().stream().sorted().toList());
        }
        if (f.since() != null) {
            key(sb, first, "since");
            sb.append(f.since());
        }
        if (f.until() != null) {
            key(sb, first, "until");
            sb.append(f.until());
        }
        return sb.append('}').toString();
    }

    /** Lower-case hex SHA-256 of the UTF-8 canonical form: the value of the {@code filter} caveat. */
    public static String hash(Filter f) {
        try {
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(canonical(f).getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static void key(StringBuilder sb, boolean[] first, String name) {
        if (!first[0]) {
            sb.append(',');
        }
        first[0] = false;
        sb.append(NostrJson.quote(name)).append(':');
    }

    private static void strings(StringBuilder sb, List<String> values) {
        sb.append('[');
        for (int i = 0; i < values.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(NostrJson.quote(values.get(i)));
        }
        sb.append(']');
    }

    private static List<String> readStrings(JsonParser p, JsonToken v, String field) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            throw bad(field + " must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_STRING) {
                throw bad(field + " must be an array of strings");
            }
            if (out.size() == MAX_VALUES) {
                throw bad("too many values in " + field + " (at most " + MAX_VALUES + ")");
            }
            out.add(p.getText());
        }
        return out;
    }

    private static Set<Integer> readKinds(JsonParser p, JsonToken v) throws IOException {
        if (v != JsonToken.START_ARRAY) {
            throw bad("kinds must be an array of integers");
        }
        Set<Integer> kinds = new HashSet<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT || p.getIntValue() < 0
                    || p.getIntValue() > 65535) {
                throw bad("kinds must be integers between 0 and 65535");
            }
            if (kinds.size() == MAX_VALUES) {
                throw bad("too many kinds (at most " + MAX_VALUES + ")");
            }
            kinds.add(p.getIntValue());
        }
        return kinds;
    }

    private static long readNonNegative(JsonParser p, JsonToken v, String field) throws IOException {
        if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || p.getLongValue() < 0) {
            throw bad(field + " must be a non-negative integer");
        }
        return p.getLongValue();
    }

    private static String requireHex(String s, String field) {
        if (!Hex.isLowerHex(s, 64)) {
            throw bad(field + " must hold 64 lower-case hex characters");
        }
        return s;
    }

    private static boolean isLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static String clip(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    private static L402Refusal bad(String why) {
        return new L402Refusal(L402Refusal.Code.BAD_FILTER, "bad filter: " + why);
    }
}
