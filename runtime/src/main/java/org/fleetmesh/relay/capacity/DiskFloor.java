package org.fleetmesh.relay.capacity;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The free disk the relay keeps (docs/spec/relay.md, "A full disk"): below {@code minFreeBytes} on the store's disk it
 * takes no event that adds to the store (deletions and ephemeral events still pass), so clients and peers cannot fill
 * the disk the database needs to work, to checkpoint and to delete. The free space is read at most every
 * {@code sampleEveryNanos} by whichever thread checks first; between readings a check is one volatile read. A reading
 * that fails is taken as room (the database refuses writes itself when it has none). Thread-safe.
 */
public final class DiskFloor {
    /** No floor: every check passes and nothing is read. */
    public static final DiskFloor NONE = new DiskFloor(0, () -> Long.MAX_VALUE, Long.MAX_VALUE, System::nanoTime);

    private final long minFreeBytes;
    private final LongSupplier usableBytes;
    private final long sampleEveryNanos;
    private final LongSupplier nanoClock;
    private final AtomicLong nextSample;
    private final LongAdder refused = new LongAdder();
    private volatile long free = Long.MAX_VALUE;

    /**
     * @param usableBytes the bytes a new file could take on the store's disk now (may throw: then unknown)
     */
    public DiskFloor(long minFreeBytes, LongSupplier usableBytes, long sampleEveryNanos, LongSupplier nanoClock) {
        if (minFreeBytes < 0 || sampleEveryNanos < 1) {
            throw new IllegalArgumentException("a disk floor is at least 0 bytes, sampled at least every nanosecond");
        }
        this.minFreeBytes = minFreeBytes;
        this.usableBytes = usableBytes;
        this.sampleEveryNanos = sampleEveryNanos;
        this.nanoClock = nanoClock;
        this.nextSample = new AtomicLong(nanoClock.getAsLong());
    }

    /** Null when an event that adds to the store may be taken now; otherwise the {@code error:} reason (counted). */
    public String refusal() {
        if (minFreeBytes == 0) {
            return null;
        }
        sampleIfDue();
        long f = free;
        if (f >= minFreeBytes) {
            return null;
        }
        refused.increment();
        return "error: the relay's disk is nearly full (" + mib(f) + " MiB free, it keeps " + mib(minFreeBytes)
                + " MiB); it takes no new events now, only deletions";
    }

    private void sampleIfDue() {
        long now = nanoClock.getAsLong();
        long next = nextSample.get();
        if (now - next < 0 || !nextSample.compareAndSet(next, now + sampleEveryNanos)) {
            return;
        }
        try {
            free = usableBytes.getAsLong();
        } catch (RuntimeException unknown) {
            free = Long.MAX_VALUE;
        }
    }

    /** The free bytes last read ({@link Long#MAX_VALUE} before the first reading or when it failed). */
    public long free() {
        return free;
    }

    public long minFreeBytes() {
        return minFreeBytes;
    }

    /** Events refused for the floor so far. */
    public long refused() {
        return refused.sum();
    }

    private static long mib(long bytes) {
        return bytes / (1024 * 1024);
    }
}
