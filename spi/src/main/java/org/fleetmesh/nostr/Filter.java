package org.fleetmesh.nostr;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A NIP-01 filter. Null means the field was absent (matches anything); an empty set matches
 * nothing. {@code since} and {@code until} are inclusive. {@code limit} applies to stored events
 * only, newest first, ties broken by the lowest id.
 *
 * @param tags single-letter tag name to the accepted values ({@code #e} is key "e")
 */
public record Filter(Set<EventId> ids, Set<PubKey> authors, Set<Integer> kinds, Map<String, Set<String>> tags,
        Long since, Long until, Integer limit) {

    public static final Filter ALL = new Filter(null, null, null, Map.of(), null, null, null);

    public Filter {
        tags = tags == null ? Map.of() : tags;
    }

    public boolean matches(Event e) {
        if (ids != null && !ids.contains(e.id())) {
            return false;
        }
        if (authors != null && !authors.contains(e.pubkey())) {
            return false;
        }
        if (kinds != null && !kinds.contains(e.kind())) {
            return false;
        }
        if (since != null && e.createdAt() < since) {
            return false;
        }
        if (until != null && e.createdAt() > until) {
            return false;
        }
        for (Map.Entry<String, Set<String>> want : tags.entrySet()) {
            if (!hasTag(e, want.getKey(), want.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasTag(Event e, String name, Set<String> values) {
        for (List<String> t : e.tags()) {
            if (t.size() >= 2 && t.get(0).equals(name) && values.contains(t.get(1))) {
                return true;
            }
        }
        return false;
    }

    /** True when no stored event can match: an empty set, an inverted range, or {@code limit: 0}. */
    public boolean matchesNothingStored() {
        if ((ids != null && ids.isEmpty()) || (authors != null && authors.isEmpty())
                || (kinds != null && kinds.isEmpty())) {
            return true;
        }
        for (Set<String> v : tags.values()) {
            if (v.isEmpty()) {
                return true;
            }
        }
        if (since != null && until != null && since > until) {
            return true;
        }
        return limit != null && limit == 0;
    }

    public Filter withLimit(Integer newLimit) {
        return new Filter(ids, authors, kinds, tags, since, until, newLimit);
    }
}
