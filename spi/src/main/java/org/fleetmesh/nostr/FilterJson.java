package org.fleetmesh.nostr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * The strict NIP-01 filter reader shared by the relay's REQ/COUNT/NEG-OPEN parser and other
 * filter-accepting endpoints. It streams (no tree) and refuses, with the first rule that fails:
 * <ul>
 * <li>a duplicate field, and any field other than {@code ids}, {@code authors}, {@code kinds},
 * {@code since}, {@code until}, {@code limit} and single-letter {@code #x} tags (ASCII letter);
 * {@code search} is refused as {@link FilterSyntaxException.Kind#UNSUPPORTED};</li>
 * <li>{@code ids}, {@code authors} and tags that are not arrays of strings; ids and authors that are
 * not 64 lower-case hex characters;</li>
 * <li>{@code kinds} that are not an array of integers between 0 and 65535;</li>
 * <li>{@code since}, {@code until}, {@code limit} that are not non-negative integers within a long;</li>
 * <li>more than {@link Limits#maxValues()} values in one array.</li>
 * </ul>
 * A {@code limit} above {@link Limits#maxLimit()} is clamped to it, not refused.
 */
public final class FilterJson {

    /**
     * Bounds applied while reading.
     *
     * @param maxValues values allowed in one array (ids, authors, kinds, each tag)
     * @param maxLimit {@code limit} values above this are clamped to it
     */
    public record Limits(int maxValues, int maxLimit) {
        public static final Limits DEFAULT = new Limits(1000, 5000);
    }

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).build())
            .build();

    private FilterJson() {
    }

    /**
     * Parses a text that holds exactly one filter object. Malformed JSON, a non-object and trailing
     * data are {@link FilterSyntaxException.Kind#NOT_A_FILTER}.
     */
    public static Filter parse(String json, Limits limits) throws FilterSyntaxException {
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw notAFilter("a filter must be a JSON object");
            }
            Filter f = read(p, limits);
            if (p.nextToken() != null) {
                throw notAFilter("trailing data after the filter");
            }
            return f;
        } catch (JsonProcessingException e) {
            throw notAFilter("malformed JSON (" + Snippet.of(e.getOriginalMessage()) + ")");
        } catch (IOException e) {
            throw notAFilter("unreadable filter");
        }
    }

    /**
     * Reads one filter object; {@code p} is on its START_OBJECT and is left on its END_OBJECT.
     * Malformed JSON surfaces as the parser's {@link IOException}.
     */
    public static Filter read(JsonParser p, Limits limits) throws IOException, FilterSyntaxException {
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
                throw invalid("duplicate filter field " + NostrJson.quote(Snippet.of(name)));
            }
            switch (name) {
                case "ids" -> {
                    ids = new HashSet<>();
                    for (String s : readStrings(p, v, name, limits)) {
                        ids.add(EventId.ofHex(requireHex(s, name)));
                    }
                }
                case "authors" -> {
                    authors = new HashSet<>();
                    for (String s : readStrings(p, v, name, limits)) {
                        authors.add(PubKey.ofHex(requireHex(s, name)));
                    }
                }
                case "kinds" -> kinds = readKinds(p, v, limits);
                case "since" -> since = readNonNegative(p, v, name);
                case "until" -> until = readNonNegative(p, v, name);
                case "limit" -> limit = (int) Math.min(readNonNegative(p, v, name), limits.maxLimit());
                default -> {
                    if (name.length() == 2 && name.charAt(0) == '#' && isLetter(name.charAt(1))) {
                        tags.put(name.substring(1), new HashSet<>(readStrings(p, v, name, limits)));
                    } else if (name.equals("search")) {
                        throw new FilterSyntaxException(FilterSyntaxException.Kind.UNSUPPORTED,
                                "NIP-50 search is not supported");
                    } else {
                        throw invalid("unknown filter field " + NostrJson.quote(Snippet.of(name)));
                    }
                }
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw invalid("malformed filter");
        }
        return new Filter(ids, authors, kinds, tags, since, until, limit);
    }

    private static boolean isLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static List<String> readStrings(JsonParser p, JsonToken v, String field, Limits limits)
            throws IOException, FilterSyntaxException {
        if (v != JsonToken.START_ARRAY) {
            throw invalid(field + " must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_STRING) {
                throw invalid(field + " must be an array of strings");
            }
            if (out.size() == limits.maxValues()) {
                throw invalid("too many values in " + field + " (at most " + limits.maxValues() + ")");
            }
            out.add(p.getText());
        }
        return out;
    }

    private static String requireHex(String s, String field) throws FilterSyntaxException {
        if (!Hex.isLowerHex(s, 64)) {
            throw invalid(field + " must hold 64 lower-case hex characters");
        }
        return s;
    }

    private static Set<Integer> readKinds(JsonParser p, JsonToken v, Limits limits) throws IOException, FilterSyntaxException {
        if (v != JsonToken.START_ARRAY) {
            throw invalid("kinds must be an array of integers");
        }
        Set<Integer> kinds = new HashSet<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT || p.getIntValue() < 0
                    || p.getIntValue() > 65535) {
                throw invalid("kinds must be integers between 0 and 65535");
            }
            if (kinds.size() == limits.maxValues()) {
                throw invalid("too many kinds");
            }
            kinds.add(p.getIntValue());
        }
        return kinds;
    }

    private static long readNonNegative(JsonParser p, JsonToken v, String field) throws IOException, FilterSyntaxException {
        if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || p.getLongValue() < 0) {
            throw invalid(field + " must be a non-negative integer");
        }
        return p.getLongValue();
    }

    private static FilterSyntaxException invalid(String reason) {
        return new FilterSyntaxException(FilterSyntaxException.Kind.INVALID, reason);
    }

    private static FilterSyntaxException notAFilter(String reason) {
        return new FilterSyntaxException(FilterSyntaxException.Kind.NOT_A_FILTER, reason);
    }
}
