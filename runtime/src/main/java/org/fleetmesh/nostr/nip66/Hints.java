package org.fleetmesh.nostr.nip66;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What other monitors say about relays, kept as hints only (never evidence): the latest discovery event per monitor
 * and relay URL, only for the watched URLs ({@link #watch}), at most {@code perUrl} monitors per URL and
 * {@code maxUrls} URLs, so a stranger publishing discovery events cannot make the node hold more. A full URL keeps the
 * newest: a newer event replaces the oldest held.
 */
public final class Hints {
    /** One monitor's latest word on one relay, cut to size. */
    public record Hint(String monitor, String eventId, long createdAt, OptionalLong rttOpen, OptionalLong rttRead,
            OptionalLong rttWrite, List<String> networks, List<Integer> nips, List<String> requirements) {
        static final int MAX_VALUES = 32;

        static Hint of(Discovery d) {
            return new Hint(d.event().pubkey().hex(), d.event().id().hex(), d.event().createdAt(), d.rttOpen(),
                    d.rttRead(), d.rttWrite(), cut(d.networks(), 4), cut(d.nips(), Discovery.MAX_NIPS),
                    cut(d.requirements(), MAX_VALUES));
        }

        private static <T> List<T> cut(List<T> l, int max) {
            return List.copyOf(l.size() <= max ? l : l.subList(0, max));
        }
    }

    private final int perUrl;
    private final int maxUrls;
    private final Map<String, Map<String, Hint>> byUrl = new HashMap<>();
    private Set<String> watched = Set.of();

    public Hints(int perUrl, int maxUrls) {
        if (perUrl < 1 || maxUrls < 1) {
            throw new IllegalArgumentException("hints need room for at least one monitor and one URL");
        }
        this.perUrl = perUrl;
        this.maxUrls = maxUrls;
    }

    /** The key a discovery event is held under: its {@code d} normalized when it is a relay URL, else as it is. */
    public static String key(String d) {
        try {
            return RelayUrl.normalize(d);
        } catch (IllegalArgumentException notAUrl) {
            return d;
        }
    }

    /** Keeps {@code d} if it is news about a watched URL; false when not, when older than what is held, or no room. */
    public synchronized boolean offer(Discovery d) {
        String url = key(d.url());
        if (!watched.contains(url)) {
            return false;
        }
        Map<String, Hint> monitors = byUrl.get(url);
        if (monitors == null) {
            if (byUrl.size() >= maxUrls) {
                return false;
            }
            monitors = new HashMap<>();
            byUrl.put(url, monitors);
        }
        Hint fresh = Hint.of(d);
        Hint held = monitors.get(fresh.monitor());
        if (held != null) {
            if (held.createdAt() >= fresh.createdAt()) {
                return false;
            }
            monitors.put(fresh.monitor(), fresh);
            return true;
        }
        if (monitors.size() >= perUrl) {
            Hint oldest = monitors.values().stream().min(Comparator.comparingLong(Hint::createdAt)).orElseThrow();
            if (oldest.createdAt() >= fresh.createdAt()) {
                return false;
            }
            monitors.remove(oldest.monitor());
        }
        monitors.put(fresh.monitor(), fresh);
        return true;
    }

    /** The hints about {@code url} (normalized here), newest first. */
    public synchronized List<Hint> about(String url) {
        Map<String, Hint> monitors = byUrl.get(key(url));
        if (monitors == null) {
            return List.of();
        }
        List<Hint> out = new ArrayList<>(monitors.values());
        out.sort(Comparator.comparingLong(Hint::createdAt).reversed().thenComparing(Hint::monitor));
        return out;
    }

    /** Hints are kept about these URLs only (normalized here); what is held about any other is forgotten. */
    public synchronized void watch(Set<String> urls) {
        Set<String> keys = new java.util.HashSet<>();
        for (String u : urls) {
            keys.add(key(u));
        }
        watched = Set.copyOf(keys);
        byUrl.keySet().retainAll(watched);
    }

    /** Whether hints about {@code url} are kept. */
    public synchronized boolean watches(String url) {
        return watched.contains(key(url));
    }

    public synchronized int urls() {
        return byUrl.size();
    }

    /** Hints held, over every URL. */
    public synchronized int size() {
        return byUrl.values().stream().mapToInt(Map::size).sum();
    }
}
