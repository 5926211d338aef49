package org.fleetmesh.compute.nip90;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Job requests per customer pubkey: at most {@code perMinute} in any sliding minute-long bucket (a token bucket that
 * refills {@code perMinute} a minute), for at most {@code maxKeys} pubkeys at once (the least recently seen is
 * forgotten, so a flood of fresh keys costs memory only up to the bound). Thread-safe.
 */
public final class RequestRate {
    private final int perMinute;
    private final int maxKeys;
    private final Map<String, double[]> buckets;

    public RequestRate(int perMinute, int maxKeys) {
        if (perMinute < 1 || maxKeys < 1) {
            throw new IllegalArgumentException("request rate bounds are positive");
        }
        this.perMinute = perMinute;
        this.maxKeys = maxKeys;
        this.buckets = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, double[]> eldest) {
                return size() > RequestRate.this.maxKeys;
            }
        };
    }

    /** Takes one request from {@code pubkey}'s bucket at {@code nowMillis}; false when it is empty. */
    public synchronized boolean take(String pubkey, long nowMillis) {
        double[] b = buckets.get(pubkey);
        if (b == null) {
            b = new double[] {perMinute, nowMillis};
            buckets.put(pubkey, b);
        }
        double refill = Math.max(0, nowMillis - b[1]) * perMinute / 60_000.0;
        b[0] = Math.min(perMinute, b[0] + refill);
        b[1] = nowMillis;
        if (b[0] < 1) {
            return false;
        }
        b[0] -= 1;
        return true;
    }

    public synchronized int keys() {
        return buckets.size();
    }
}
