package org.fleetmesh.compute.market;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

import org.fleetmesh.compute.JobSpec;

/**
 * Modules and inputs by SHA-256 (docs/spec/compute.md, "Blobs"): at most {@code maxBlob} bytes each and
 * {@code capacity} bytes in all; a blob not read or written for {@code ttlMillis} makes room for a new one, and when
 * none can, the store is full.
 */
public final class BlobStore {
    private final long maxBlob;
    private final long capacity;
    private final long ttlMillis;
    private final LongSupplier millis;
    private final Map<String, Entry> blobs = new LinkedHashMap<>(16, 0.75f, true);
    private long used;

    private static final class Entry {
        final byte[] bytes;
        long touched;

        Entry(byte[] bytes, long touched) {
            this.bytes = bytes;
            this.touched = touched;
        }
    }

    /** Why a blob was not stored. */
    public static final class Refused extends Exception {
        private final boolean tooLarge;

        Refused(boolean tooLarge, String message) {
            super(message, null, false, false);
            this.tooLarge = tooLarge;
        }

        /** True: the blob is over the per-blob limit; false: the store is full. */
        public boolean tooLarge() {
            return tooLarge;
        }
    }

    public BlobStore(long maxBlob, long capacity, long ttlMillis, LongSupplier millis) {
        this.maxBlob = maxBlob;
        this.capacity = capacity;
        this.ttlMillis = ttlMillis;
        this.millis = millis;
    }

    public long maxBlob() {
        return maxBlob;
    }

    /** Stores {@code bytes} and gives its SHA-256 hex. */
    public String put(byte[] bytes) throws Refused {
        if (bytes.length > maxBlob) {
            throw new Refused(true, "a blob is at most " + maxBlob + " bytes, this one is " + bytes.length);
        }
        String hash = JobSpec.sha256(bytes);
        long now = millis.getAsLong();
        synchronized (this) {
            Entry e = blobs.get(hash);
            if (e != null) {
                e.touched = now;
                return hash;
            }
            Iterator<Entry> it = blobs.values().iterator();
            while (used + bytes.length > capacity && it.hasNext()) {
                Entry old = it.next();
                if (now - old.touched < ttlMillis) {
                    break; // access order: the rest are fresher
                }
                it.remove();
                used -= old.bytes.length;
            }
            if (used + bytes.length > capacity) {
                throw new Refused(false, "the blob store is full (" + used + " of " + capacity + " bytes)");
            }
            blobs.put(hash, new Entry(bytes.clone(), now));
            used += bytes.length;
        }
        return hash;
    }

    public synchronized Optional<byte[]> get(String hash) {
        Entry e = blobs.get(hash);
        if (e == null) {
            return Optional.empty();
        }
        e.touched = millis.getAsLong();
        return Optional.of(e.bytes.clone());
    }

    public synchronized boolean has(String hash) {
        return blobs.containsKey(hash);
    }

    public synchronized long used() {
        return used;
    }

    public synchronized int count() {
        return blobs.size();
    }
}
