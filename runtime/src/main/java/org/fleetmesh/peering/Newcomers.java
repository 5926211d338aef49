package org.fleetmesh.peering;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many new peer identities (DIDs this node holds no record of) one source address may bring to {@code /mesh} per
 * hour. A DID costs its maker a key pair; each one a node links with costs the node a signed grant stored as an event,
 * a link record and an account in memory, so without a bound one address could make the node store identities without
 * end (measured: 296 fresh DIDs linked from one address in 15 s). Remembers the last {@code remembered} addresses.
 * Thread-safe.
 */
public final class Newcomers {
    static final long HOUR = 3_600_000;

    private final int perHour;
    private final Map<String, long[]> windows; // address -> {window start, newcomers in it}

    public Newcomers(int perHour, int remembered) {
        if (perHour < 0 || remembered < 1) {
            throw new IllegalArgumentException("new peers per hour >= 0, remembered >= 1");
        }
        this.perHour = perHour;
        this.windows = new LinkedHashMap<>(64, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
                return size() > remembered;
            }
        };
    }

    /** Whether one more new identity from {@code address} is taken now (and counts it when so). */
    public synchronized boolean admit(String address, long nowMillis) {
        long[] w = windows.get(address);
        if (w == null || nowMillis - w[0] >= HOUR) {
            w = new long[] {nowMillis, 0};
            windows.put(address, w);
        }
        if (w[1] >= perHour) {
            return false;
        }
        w[1]++;
        return true;
    }

    public int perHour() {
        return perHour;
    }
}
