package org.fleetmesh.relay.limits;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A map of at most {@code capacity} keys that forgets the least recently used one when a new key would pass it:
 * strangers cannot make it grow, and a forgotten key is simply fresh again when it comes back.
 */
public final class BoundedKeys<V> {
    private final int capacity;
    private final LinkedHashMap<String, V> map;

    public BoundedKeys(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a key map must hold at least one key, was " + capacity);
        }
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(Math.min(capacity, 1024) * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > BoundedKeys.this.capacity;
            }
        };
    }

    /** The value for {@code key}, made by {@code fresh} when the key is new (or was forgotten). */
    public synchronized V get(String key, Function<String, V> fresh) {
        V v = map.get(key);
        if (v == null) {
            v = fresh.apply(key);
            map.put(key, v);
        }
        return v;
    }

    /** The value for {@code key} if it is remembered, else null (nothing is made). */
    public synchronized V peek(String key) {
        return map.get(key);
    }

    public synchronized int size() {
        return map.size();
    }

    public int capacity() {
        return capacity;
    }
}
