package org.fleetmesh.settlement.lightning.l402;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.PubKey;

/**
 * The NIP-01 filter of an export request: parsed strictly by the relay's own filter reader,
 * {@link FilterJson} (lower-case 64-hex ids and authors, kinds 0..65535, non-negative
 * since/until/limit, single-letter {@code #x} tags, no unknown or duplicate fields, no NIP-50
 * search, at most {@link #MAX_VALUES} values per field), and reduced to a canonical JSON whose
 * SHA-256 the token's {@code filter} caveat carries.
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

    /** The shared strict reader's bounds; {@code limit} is not clamped (the quota caveat bounds the count). */
    private static final FilterJson.Limits LIMITS = new FilterJson.Limits(MAX_VALUES, Integer.MAX_VALUE);

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
        try {
            return FilterJson.parse(json, LIMITS);
        } catch (FilterSyntaxException e) {
            throw bad(e.reason());
        }
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

    private static L402Refusal bad(String why) {
        return new L402Refusal(L402Refusal.Code.BAD_FILTER, "bad filter: " + why);
    }
}
