package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.PubKey;

/**
 * A shard's filter in its one canonical JSON text (docs/spec/shards.md §2): two nodes compare shards by that text, and a
 * claim carries it. Keys in the order ids, authors, kinds, {@code #x} tags by letter (ASCII), since, until; values
 * sorted ascending (strings by code point, kinds numerically) and deduplicated; never a limit; no spaces.
 */
public final class ShardFilter {
    /** Values one array of a shard filter may hold (FilterJson's default). */
    public static final FilterJson.Limits LIMITS = FilterJson.Limits.DEFAULT;

    private static final Comparator<String> BY_CODE_POINT = (a, b) -> {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i), cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    };

    private ShardFilter() {
    }

    /** The canonical JSON of {@code f}; its {@code limit}, if any, is left out. */
    public static String canonicalJson(Filter f) {
        StringBuilder sb = new StringBuilder(64).append('{');
        boolean[] first = { true };
        if (f.ids() != null) {
            strings(sb, first, "ids", f.ids().stream().map(EventId::hex).toList());
        }
        if (f.authors() != null) {
            strings(sb, first, "authors", f.authors().stream().map(PubKey::hex).toList());
        }
        if (f.kinds() != null) {
            key(sb, first, "kinds").append('[');
            List<Integer> kinds = new ArrayList<>(f.kinds());
            kinds.sort(null);
            for (int i = 0; i < kinds.size(); i++) {
                sb.append(i > 0 ? "," : "").append(kinds.get(i));
            }
            sb.append(']');
        }
        for (Map.Entry<String, Set<String>> t : new TreeMap<>(f.tags()).entrySet()) {
            strings(sb, first, "#" + t.getKey(), List.copyOf(t.getValue()));
        }
        if (f.since() != null) {
            key(sb, first, "since").append(f.since());
        }
        if (f.until() != null) {
            key(sb, first, "until").append(f.until());
        }
        return sb.append('}').toString();
    }

    /**
     * Reads a shard filter: FilterJson's rules, and no {@code limit} (a shard is a whole set). The result's canonical
     * JSON may differ from {@code json} in order and spacing only.
     */
    public static Filter parse(String json) throws FilterSyntaxException {
        Filter f = FilterJson.parse(json, LIMITS);
        if (f.limit() != null) {
            throw new FilterSyntaxException(FilterSyntaxException.Kind.INVALID, "a shard filter has no limit");
        }
        return f;
    }

    /** True when {@code json} is a shard filter written exactly in its canonical form. */
    public static boolean isCanonical(String json) {
        try {
            return canonicalJson(parse(json)).equals(json);
        } catch (FilterSyntaxException e) {
            return false;
        }
    }

    private static StringBuilder key(StringBuilder sb, boolean[] first, String name) {
        if (!first[0]) {
            sb.append(',');
        }
        first[0] = false;
        NostrJson.appendString(sb, name, false);
        return sb.append(':');
    }

    private static void strings(StringBuilder sb, boolean[] first, String name, List<String> values) {
        List<String> sorted = new ArrayList<>(values);
        sorted.sort(BY_CODE_POINT);
        key(sb, first, name).append('[');
        String prev = null;
        boolean any = false;
        for (String v : sorted) {
            if (v.equals(prev)) {
                continue;
            }
            if (any) {
                sb.append(',');
            }
            NostrJson.appendString(sb, v, false);
            prev = v;
            any = true;
        }
        sb.append(']');
    }
}
