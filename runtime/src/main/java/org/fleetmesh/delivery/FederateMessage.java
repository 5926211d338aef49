package org.fleetmesh.delivery;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.NostrJson;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * {@code ["MESH-FEDERATE", [<NIP-01 filter>, ...]]} (docs/spec/delivery.md): the filters a receiver wants from this
 * peer; {@code []} is nothing. At most {@code maxFilters}, each read with the relay's filter limits.
 */
public final class FederateMessage {
    public static final String TYPE = "MESH-FEDERATE";

    private FederateMessage() {
    }

    /** The message for {@code filters}. */
    public static String encode(List<Filter> filters) {
        return "[\"" + TYPE + "\"," + json(filters) + "]";
    }

    /** A JSON array of filters, each written by {@link #json(Filter)}. */
    public static String json(List<Filter> filters) {
        StringBuilder sb = new StringBuilder(32 * filters.size() + 2).append('[');
        for (int i = 0; i < filters.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(json(filters.get(i)));
        }
        return sb.append(']').toString();
    }

    /** One filter as NIP-01 JSON, members in a fixed order, values sorted (so equal filters write equally). */
    public static String json(Filter f) {
        StringBuilder sb = new StringBuilder(64).append('{');
        if (f.ids() != null) {
            member(sb, "ids", hexes(f.ids().stream().map(org.fleetmesh.nostr.EventId::hex).toList()));
        }
        if (f.authors() != null) {
            member(sb, "authors", hexes(f.authors().stream().map(org.fleetmesh.nostr.PubKey::hex).toList()));
        }
        if (f.kinds() != null) {
            member(sb, "kinds", new TreeSet<>(f.kinds()).toString().replace(" ", ""));
        }
        for (Map.Entry<String, java.util.Set<String>> t : new TreeMap<>(f.tags()).entrySet()) {
            StringBuilder v = new StringBuilder("[");
            for (String s : new TreeSet<>(t.getValue())) {
                if (v.length() > 1) {
                    v.append(',');
                }
                v.append(NostrJson.quote(s));
            }
            member(sb, "#" + t.getKey(), v.append(']').toString());
        }
        if (f.since() != null) {
            member(sb, "since", f.since().toString());
        }
        if (f.until() != null) {
            member(sb, "until", f.until().toString());
        }
        if (f.limit() != null) {
            member(sb, "limit", f.limit().toString());
        }
        return sb.append('}').toString();
    }

    private static String hexes(List<String> values) {
        StringBuilder v = new StringBuilder("[");
        for (String b : new TreeSet<>(values)) {
            if (v.length() > 1) {
                v.append(',');
            }
            v.append('"').append(b).append('"');
        }
        return v.append(']').toString();
    }

    private static void member(StringBuilder sb, String name, String value) {
        if (sb.length() > 1) {
            sb.append(',');
        }
        sb.append('"').append(name).append("\":").append(value);
    }

    /**
     * Reads a whole {@code MESH-FEDERATE} message.
     *
     * @throws FrameException {@code invalid: MESH-FEDERATE ...}, naming the first rule broken
     */
    public static List<Filter> parse(String text, int maxFilters, FilterJson.Limits limits) throws FrameException {
        try (JsonParser p = DeliveryJson.FACTORY.createParser(text)) {
            if (p.nextToken() != JsonToken.START_ARRAY || p.nextToken() != JsonToken.VALUE_STRING
                    || !TYPE.equals(p.getText())) {
                throw invalid("is [\"MESH-FEDERATE\", [<filter>, ...]]");
            }
            List<Filter> filters = readArray(p, p.nextToken(), maxFilters, limits);
            if (p.nextToken() != JsonToken.END_ARRAY || p.nextToken() != null) {
                throw invalid("has two elements");
            }
            return filters;
        } catch (IOException e) {
            throw invalid("is not JSON");
        }
    }

    /**
     * Reads a JSON array of filters on its own (the persisted {@code Outbound.filters}, the configuration's
     * {@code fleetmesh.delivery.federate}).
     */
    public static List<Filter> parseFilters(String json, int maxFilters, FilterJson.Limits limits) throws FrameException {
        try (JsonParser p = DeliveryJson.FACTORY.createParser(json)) {
            List<Filter> filters = readArray(p, p.nextToken(), maxFilters, limits);
            if (p.nextToken() != null) {
                throw invalid("filters: trailing data after the array");
            }
            return filters;
        } catch (IOException e) {
            throw invalid("filters are not JSON");
        }
    }

    private static List<Filter> readArray(JsonParser p, JsonToken start, int maxFilters, FilterJson.Limits limits)
            throws IOException, FrameException {
        if (start != JsonToken.START_ARRAY) {
            throw invalid("needs an array of filters");
        }
        List<Filter> filters = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) {
                throw invalid("filter " + filters.size() + " is not a JSON object");
            }
            if (filters.size() == maxFilters) {
                throw invalid("holds at most " + maxFilters + " filters");
            }
            try {
                filters.add(FilterJson.read(p, limits));
            } catch (FilterSyntaxException e) {
                throw invalid("filter " + filters.size() + ": " + e.reason());
            }
        }
        return List.copyOf(filters);
    }

    private static FrameException invalid(String detail) {
        return new FrameException("invalid: MESH-FEDERATE " + detail);
    }
}
