package org.fleetmesh.compute.market;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.fleetmesh.compute.JobSpec;
import org.jboss.logging.Logger;

/**
 * Modules and inputs by SHA-256 (docs/spec/compute.md, "Blobs"): at most {@code maxBlob} bytes each and
 * {@code capacity} bytes in all; a blob not read or written for {@code ttlMillis} makes room for a new one, and when
 * none can, the store is full. With a directory, each blob is a file named by its hash (written under a temporary
 * name and renamed), read from the file when asked for, and the store survives a restart: what a job needs after one
 * (a buyer's re-execution of a job that ended while it was down, a worker's run) is still there. A file that no longer
 * hashes to its name is dropped when read. Without a directory the blobs are kept in memory.
 */
public final class BlobStore {
    private static final Logger LOG = Logger.getLogger(BlobStore.class);
    private static final Pattern NAME = Pattern.compile("[0-9a-f]{64}");

    private final long maxBlob;
    private final long capacity;
    private final long ttlMillis;
    private final LongSupplier millis;
    private final Path dir;
    private final Map<String, Entry> blobs = new LinkedHashMap<>(16, 0.75f, true);
    private long used;

    private static final class Entry {
        /** The bytes, or null when they are in the directory. */
        final byte[] bytes;
        final long size;
        long touched;

        Entry(byte[] bytes, long size, long touched) {
            this.bytes = bytes;
            this.size = size;
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

        /** True: the blob is over the per-blob limit; false: the store is full (or cannot write). */
        public boolean tooLarge() {
            return tooLarge;
        }
    }

    /** A store in memory. */
    public BlobStore(long maxBlob, long capacity, long ttlMillis, LongSupplier millis) {
        this.maxBlob = maxBlob;
        this.capacity = capacity;
        this.ttlMillis = ttlMillis;
        this.millis = millis;
        this.dir = null;
    }

    /**
     * A store in {@code dir} (made when missing): the blobs already there are taken in, oldest first by their files'
     * times, as far as {@code capacity} and {@code maxBlob} allow (the rest, and leftovers of interrupted writes, are
     * deleted).
     */
    public BlobStore(long maxBlob, long capacity, long ttlMillis, LongSupplier millis, Path dir) throws IOException {
        this.maxBlob = maxBlob;
        this.capacity = capacity;
        this.ttlMillis = ttlMillis;
        this.millis = millis;
        this.dir = dir;
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(files::add);
        }
        record Found(String hash, long size, long modified) {
        }
        List<Found> found = new ArrayList<>();
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (!NAME.matcher(name).matches() || !Files.isRegularFile(f)) {
                Files.deleteIfExists(f); // a write that did not finish
                continue;
            }
            found.add(new Found(name, Files.size(f), Files.getLastModifiedTime(f).toMillis()));
        }
        // the newest are kept when they do not all fit; the map is filled oldest first (its access order)
        found.sort(Comparator.comparingLong(Found::modified).reversed());
        List<Found> kept = new ArrayList<>();
        long total = 0;
        for (Found f : found) {
            if (f.size() > maxBlob || total + f.size() > capacity) {
                Files.deleteIfExists(dir.resolve(f.hash()));
                continue;
            }
            total += f.size();
            kept.add(f);
        }
        for (int i = kept.size() - 1; i >= 0; i--) {
            Found f = kept.get(i);
            blobs.put(f.hash(), new Entry(null, f.size(), f.modified()));
        }
        used = total;
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
            Iterator<Map.Entry<String, Entry>> it = blobs.entrySet().iterator();
            while (used + bytes.length > capacity && it.hasNext()) {
                Map.Entry<String, Entry> old = it.next();
                if (now - old.getValue().touched < ttlMillis) {
                    break; // access order: the rest are fresher
                }
                it.remove();
                used -= old.getValue().size;
                delete(old.getKey());
            }
            if (used + bytes.length > capacity) {
                throw new Refused(false, "the blob store is full (" + used + " of " + capacity + " bytes)");
            }
            if (dir == null) {
                blobs.put(hash, new Entry(bytes.clone(), bytes.length, now));
            } else {
                Path tmp = dir.resolve("." + hash + ".tmp");
                try {
                    Files.write(tmp, bytes);
                    Files.move(tmp, dir.resolve(hash), StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException ex) {
                    try {
                        Files.deleteIfExists(tmp);
                    } catch (IOException ignored) {
                        // reported below
                    }
                    throw new Refused(false, "the blob store cannot write: " + ex.getMessage());
                }
                blobs.put(hash, new Entry(null, bytes.length, now));
            }
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
        if (e.bytes != null) {
            return Optional.of(e.bytes.clone());
        }
        byte[] b;
        try {
            b = Files.readAllBytes(dir.resolve(hash));
        } catch (IOException ex) {
            b = null;
        }
        if (b == null || !JobSpec.sha256(b).equals(hash)) {
            LOG.warnf("blob %s: its file is %s; dropped", hash, b == null ? "gone" : "not its bytes");
            blobs.remove(hash);
            used -= e.size;
            delete(hash);
            return Optional.empty();
        }
        return Optional.of(b);
    }

    private void delete(String hash) {
        if (dir == null) {
            return;
        }
        try {
            Files.deleteIfExists(dir.resolve(hash));
        } catch (IOException ex) {
            LOG.warnf("blob %s: its file could not be deleted: %s", hash, ex.getMessage());
        }
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
