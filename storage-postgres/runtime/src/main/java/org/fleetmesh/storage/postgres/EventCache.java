package org.fleetmesh.storage.postgres;

import java.nio.ByteBuffer;

/**
 * A bounded in-process copy of stored events' JSON, keyed by {@code event.seq}, for the reads that one index alone
 * can answer ({@link IndexRead}). An event's {@code seq} is never reused and its JSON never changes, so an entry can
 * only be stale by naming an event that has since been removed, and a read never reaches such an entry: it looks up
 * only the seqs an index scan returned just before (the scan reads the live index of {@code event} itself, or
 * {@code tag}, whose rows are deleted in the transaction that deletes their event). A seq used again, after a table
 * was emptied and its sequence restarted under a running node, is caught by the reader: it compares the entry's
 * {@code created_at} with the scanned row's.
 *
 * <p>Memory is the budget and no more, outside the Java heap: a ring of direct-memory chunks of {@link #CHUNK} bytes,
 * allocated as the ring first reaches them (an idle node holds none), in which each event is one record
 * {@code [seq 8][created_at 8][expires_at 8][length 4][JSON]}, written at the ring's head; when the ring is full the
 * head overwrites the oldest records (first in, first out) and drops them from the index, an open-addressing table of
 * {@code seq -> position} in two {@code long} arrays (no object per entry, nothing for the collector to trace). The
 * heap holds only that table, about 32 bytes per cached event. A record never spans two chunks; an event larger than
 * {@link #MAX_RECORD} is not kept.
 *
 * <p>Thread-safe: every operation holds the cache's lock, and {@link #get} copies the JSON out under it (a few hundred
 * bytes per event), so a reader never sees a record being overwritten.
 */
final class EventCache {
    static final int CHUNK = 1 << 20;
    private static final int HEADER = 28;
    /** The largest record kept: a quarter of a chunk, so that at most a quarter of a chunk is left unused at its end. */
    static final int MAX_RECORD = CHUNK / 4;

    /** One event, copied out: its JSON at {@code buf[offset, offset + length)}, its created_at and NIP-40 expiry. */
    record Entry(byte[] buf, int offset, int length, long createdAt, long expiresAt) {
        /** An entry whose JSON is the whole of {@code json}. */
        Entry(byte[] json, long createdAt, long expiresAt) {
            this(json, 0, json.length, createdAt, expiresAt);
        }
    }

    private final long budget;
    private final ByteBuffer[] chunks;
    /** Absolute positions: bytes ever written (the head) and the start of the oldest record still held (the tail). */
    private long head;
    private long tail;
    private final SeqIndex index = new SeqIndex();
    private long hits;
    private long misses;
    /** Set when the JVM refused a chunk: nothing more is kept. */
    private boolean refused;
    private long bytes;

    /** @param budget bytes, at least 0; rounded down to whole chunks (less than one chunk: nothing is kept) */
    EventCache(long budget) {
        if (budget < 0) {
            throw new IllegalArgumentException("negative cache budget " + budget);
        }
        long n = budget / CHUNK;
        if (n > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("cache budget too large: " + budget);
        }
        this.chunks = new ByteBuffer[(int) n];
        this.budget = n * CHUNK;
    }

    /** The bound in bytes (whole chunks). */
    long budget() {
        return budget;
    }

    /**
     * The entry for {@code seq}, its JSON copied into a new array with {@code headroom} bytes before it and
     * {@code tailroom} after it; or null.
     */
    synchronized Entry get(long seq, int headroom, int tailroom) {
        long pos = index.get(seq);
        if (pos < 0) {
            misses++;
            return null;
        }
        hits++;
        ByteBuffer c = chunks[chunkOf(pos)];
        int at = (int) (pos % CHUNK);
        long createdAt = c.getLong(at + 8);
        long expiresAt = c.getLong(at + 16);
        int length = c.getInt(at + 24);
        byte[] out = new byte[headroom + length + tailroom];
        c.get(at + HEADER, out, headroom, length);
        return new Entry(out, headroom, length, createdAt, expiresAt);
    }

    /** Keeps {@code e}'s JSON for {@code seq} (replacing what was kept for it), overwriting the oldest as needed. */
    synchronized void put(long seq, Entry e) {
        int size = HEADER + e.length();
        if (chunks.length == 0 || size > MAX_RECORD || seq < 0 || refused) {
            return;
        }
        index.remove(seq); // an older record of it stays in the ring, unreachable, until overwritten
        int room = CHUNK - (int) (head % CHUNK);
        boolean skip = room < size; // records never span two chunks: the rest of this one stays unused
        evictUpTo((skip ? head + room : head) + size);
        if (skip) {
            if (room >= HEADER) {
                // a filler record (seq -1) over the unused end, so that the tail can step over it
                chunks[chunkOf(head)].putLong((int) (head % CHUNK), -1).putInt((int) (head % CHUNK) + 24, room - HEADER);
            }
            head += room;
        }
        int ci = chunkOf(head);
        ByteBuffer c = chunks[ci];
        if (c == null) {
            try {
                c = chunks[ci] = ByteBuffer.allocateDirect(CHUNK);
            } catch (OutOfMemoryError oom) {
                // the JVM's direct memory limit (-XX:MaxDirectMemorySize, by default the heap's maximum) is below the
                // budget: keep what is held and add nothing more, rather than fail again on every put
                refused = true;
                return;
            }
        }
        int at = (int) (head % CHUNK);
        c.putLong(at, seq).putLong(at + 8, e.createdAt()).putLong(at + 16, e.expiresAt()).putInt(at + 24, e.length());
        c.put(at + HEADER, e.buf(), e.offset(), e.length());
        index.put(seq, head);
        head += size;
        bytes += size;
    }

    synchronized void remove(long seq) {
        index.remove(seq);
    }

    /** Drops the oldest records until the ring has room up to absolute position {@code end}. */
    private void evictUpTo(long end) {
        while (tail < end - budget) {
            int room = CHUNK - (int) (tail % CHUNK);
            if (room < HEADER) {
                tail += room; // an unused end too short for a filler
                continue;
            }
            ByteBuffer c = chunks[chunkOf(tail)];
            int at = (int) (tail % CHUNK);
            long seq = c.getLong(at);
            int size = HEADER + c.getInt(at + 24);
            if (seq >= 0) {
                if (index.get(seq) == tail) {
                    index.remove(seq);
                }
                bytes -= size;
            }
            tail += size;
        }
    }

    private int chunkOf(long pos) {
        return (int) ((pos / CHUNK) % chunks.length);
    }

    /** Bytes held in records (headers included), at most {@link #budget}. */
    synchronized long bytes() {
        return bytes;
    }

    /** Events held. */
    synchronized int size() {
        return index.size();
    }

    synchronized long hits() {
        return hits;
    }

    synchronized long misses() {
        return misses;
    }

    /** Chunks allocated so far (each {@link #CHUNK} bytes of direct memory). */
    synchronized int chunksAllocated() {
        int n = 0;
        for (ByteBuffer c : chunks) {
            n += c == null ? 0 : 1;
        }
        return n;
    }

    /**
     * {@code seq -> position}, both non-negative: open addressing with linear probing in two arrays, deletion by
     * shifting back (no tombstones), doubled at a load of one half, halved below one eighth.
     */
    static final class SeqIndex {
        private static final long EMPTY = -1;
        private long[] keys = newKeys(16);
        private long[] values = new long[16];
        private int size;

        private static long[] newKeys(int n) {
            long[] k = new long[n];
            java.util.Arrays.fill(k, EMPTY);
            return k;
        }

        private int slot(long key) {
            long h = key * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32)) & (keys.length - 1);
        }

        int size() {
            return size;
        }

        /** The position of {@code key}, or -1. */
        long get(long key) {
            if (key < 0) {
                return -1;
            }
            int mask = keys.length - 1;
            for (int i = slot(key);; i = (i + 1) & mask) {
                long k = keys[i];
                if (k == key) {
                    return values[i];
                }
                if (k == EMPTY) {
                    return -1;
                }
            }
        }

        void put(long key, long value) {
            if (2 * (size + 1) > keys.length) {
                resize(keys.length * 2);
            }
            int mask = keys.length - 1;
            for (int i = slot(key);; i = (i + 1) & mask) {
                long k = keys[i];
                if (k == key) {
                    values[i] = value;
                    return;
                }
                if (k == EMPTY) {
                    keys[i] = key;
                    values[i] = value;
                    size++;
                    return;
                }
            }
        }

        void remove(long key) {
            if (key < 0) {
                return;
            }
            int mask = keys.length - 1;
            int i = slot(key);
            while (keys[i] != key) {
                if (keys[i] == EMPTY) {
                    return;
                }
                i = (i + 1) & mask;
            }
            // shift back the entries after it that probed past i
            int gap = i;
            for (int j = (i + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
                int home = slot(keys[j]);
                // j's entry may fill the gap when its home is not in (gap, j], cyclically
                boolean movable = gap <= j ? (home <= gap || home > j) : (home <= gap && home > j);
                if (movable) {
                    keys[gap] = keys[j];
                    values[gap] = values[j];
                    gap = j;
                }
            }
            keys[gap] = EMPTY;
            size--;
            if (keys.length > 16 && 8 * size < keys.length) {
                resize(keys.length / 2);
            }
        }

        private void resize(int n) {
            long[] oldKeys = keys;
            long[] oldValues = values;
            keys = newKeys(n);
            values = new long[n];
            size = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != EMPTY) {
                    put(oldKeys[i], oldValues[i]);
                }
            }
        }
    }
}
