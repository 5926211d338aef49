package org.fleetmesh.relay;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;

/**
 * Live subscriptions indexed by what their filters ask for, so that finding the subscriptions an
 * event matches looks at the few filed under its id, author, kind and tag values (and the filters
 * that name none of these) instead of every subscription of every connection.
 *
 * <p>Each filter is filed once, under its most selective field: ids, then authors, then one tag
 * (the one with the fewest values), then kinds; a filter with none of them is filed as "any". A
 * candidate is then checked against its full filters, so the index only narrows, never decides.
 */
final class SubscriptionIndex {
    private final Map<EventId, Set<Subscription>> byId = new HashMap<>();
    private final Map<PubKey, Set<Subscription>> byAuthor = new HashMap<>();
    private final Map<Integer, Set<Subscription>> byKind = new HashMap<>();
    /** Key: tag name, NUL, value. */
    private final Map<String, Set<Subscription>> byTag = new HashMap<>();
    private final Set<Subscription> any = new LinkedHashSet<>();
    private final Map<Subscription, Boolean> registered = new IdentityHashMap<>();

    synchronized void add(Subscription s) {
        if (registered.put(s, Boolean.TRUE) != null) {
            return;
        }
        for (Filter f : s.filters) {
            file(f, s, true);
        }
    }

    synchronized void remove(Subscription s) {
        if (registered.remove(s) == null) {
            return;
        }
        for (Filter f : s.filters) {
            file(f, s, false);
        }
    }

    synchronized int size() {
        return registered.size();
    }

    /** The registered subscriptions one of whose filters matches {@code e}, each once. */
    List<Subscription> matching(Event e) {
        Set<Subscription> candidates = Collections.newSetFromMap(new IdentityHashMap<>());
        synchronized (this) {
            addAll(candidates, byId.get(e.id()));
            addAll(candidates, byAuthor.get(e.pubkey()));
            addAll(candidates, byKind.get(e.kind()));
            if (!byTag.isEmpty()) {
                for (List<String> t : e.tags()) {
                    if (t.size() >= 2 && t.get(0).length() == 1) {
                        addAll(candidates, byTag.get(tagKey(t.get(0), t.get(1))));
                    }
                }
            }
            candidates.addAll(any);
        }
        List<Subscription> out = new ArrayList<>(candidates.size());
        for (Subscription s : candidates) {
            if (s.matches(e)) {
                out.add(s);
            }
        }
        return out;
    }

    private static void addAll(Set<Subscription> to, Set<Subscription> from) {
        if (from != null) {
            to.addAll(from);
        }
    }

    private void file(Filter f, Subscription s, boolean add) {
        if (neverMatches(f)) {
            return;
        }
        if (f.ids() != null) {
            for (EventId id : f.ids()) {
                update(byId, id, s, add);
            }
        } else if (f.authors() != null) {
            for (PubKey p : f.authors()) {
                update(byAuthor, p, s, add);
            }
        } else if (!f.tags().isEmpty()) {
            Map.Entry<String, Set<String>> narrowest = null;
            for (Map.Entry<String, Set<String>> t : f.tags().entrySet()) {
                if (narrowest == null || t.getValue().size() < narrowest.getValue().size()) {
                    narrowest = t;
                }
            }
            for (String v : narrowest.getValue()) {
                update(byTag, tagKey(narrowest.getKey(), v), s, add);
            }
        } else if (f.kinds() != null) {
            for (Integer k : f.kinds()) {
                update(byKind, k, s, add);
            }
        } else if (add) {
            any.add(s);
        } else {
            any.remove(s);
        }
    }

    /** An empty set among ids, authors, kinds or tag values matches no event, live or stored. */
    private static boolean neverMatches(Filter f) {
        if ((f.ids() != null && f.ids().isEmpty()) || (f.authors() != null && f.authors().isEmpty())
                || (f.kinds() != null && f.kinds().isEmpty())) {
            return true;
        }
        for (Set<String> v : f.tags().values()) {
            if (v.isEmpty()) {
                return true;
            }
        }
        return f.since() != null && f.until() != null && f.since() > f.until();
    }

    private static <K> void update(Map<K, Set<Subscription>> map, K key, Subscription s, boolean add) {
        if (add) {
            map.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(s);
        } else {
            Set<Subscription> set = map.get(key);
            if (set != null && set.remove(s) && set.isEmpty()) {
                map.remove(key);
            }
        }
    }

    private static String tagKey(String name, String value) {
        return name + '\0' + value;
    }
}
