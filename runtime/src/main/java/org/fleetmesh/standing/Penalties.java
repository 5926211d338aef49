package org.fleetmesh.standing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Bounds the penalty findings (a false or malformed finding's publisher, docs/spec/standing.md) this node signs, so a
 * stranger cannot make it sign without end: at most one per publisher and minute, and of publishers it holds no link
 * with, at most {@code strangersPerMinute} in all. Remembers the last {@code remembered} publishers. Thread-safe.
 */
public final class Penalties {
    static final long MINUTE = 60_000;

    private final int strangersPerMinute;
    private final Map<String, Long> last;
    private long strangerWindow = Long.MIN_VALUE / 2; // far in the past, without overflow
    private int strangersInWindow;

    public Penalties(int strangersPerMinute, int remembered) {
        if (strangersPerMinute < 0 || remembered < 1) {
            throw new IllegalArgumentException("strangers per minute >= 0, remembered >= 1");
        }
        this.strangersPerMinute = strangersPerMinute;
        this.last = new LinkedHashMap<>(64, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > remembered;
            }
        };
    }

    /** Whether a penalty against {@code publisher} may be signed now (and takes it from the budget when so). */
    public synchronized boolean take(String publisher, boolean linked, long nowMillis) {
        Long before = last.get(publisher);
        if (before != null && nowMillis - before < MINUTE) {
            return false;
        }
        if (!linked) {
            if (nowMillis - strangerWindow >= MINUTE) {
                strangerWindow = nowMillis;
                strangersInWindow = 0;
            }
            if (strangersInWindow >= strangersPerMinute) {
                return false;
            }
            strangersInWindow++;
        }
        last.put(publisher, nowMillis);
        return true;
    }
}
