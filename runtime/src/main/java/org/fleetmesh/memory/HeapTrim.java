package org.fleetmesh.memory;

/**
 * When to give the heap's garbage back to the system (docs/OPERATING.md "Memory and disk"). Pure: readings in, a
 * decision out.
 *
 * <p>
 * The relay runs the serial collector. Its young collections promote what survives into the old generation, and when
 * that is full they grow it (up to {@code -Xmx}) rather than collect it: only a full collection finds the old
 * generation's garbage, and only after one does the JVM shrink the heap (to {@code MaxHeapFreeRatio}; at once with
 * {@code -XX:-ShrinkHeapInSteps}). Measured on Java 25: a 200,000-event ingest took the old generation from 33 to 341
 * MiB with 36 MiB live, the relay's RSS to 500 MiB, and nothing collected it afterwards; one full collection brought the
 * RSS to 213 MiB. G1 has {@code G1PeriodicGCInterval} for the idle half of this; this is the same for the serial
 * collector, with a bound on the busy half.
 *
 * <p>
 * A reading is taken every interval. A full collection is due when the old generation holds more than it did right
 * after the last full collection (its live data then) by at least:
 * <ul>
 * <li>{@code busyGrowthBytes}, whatever the node is doing: a soft ceiling on garbage that keeps a burst's footprint
 * near the live data instead of {@code -Xmx}, without a hard limit on the live data itself;</li>
 * <li>{@code idleGrowthBytes}, once the node has been quiet for {@code quietNanos} (no interval in that window with more
 * than {@code quietYoungCollections} young collections: a young collection is one eden filled, the allocation rate's
 * unit), the heap's committed size is above {@code floorBytes}, and no idle trim ran in the last
 * {@code idleSpacingNanos}.</li>
 * </ul>
 * The first quiet reading above the floor after start-up runs one whatever the growth: the old generation then holds
 * what booting left (measured on Java 25: 33-36 MiB of which 11 live with the AOT cache; without it the JVM's own full
 * collections during boot, on metaspace growth, saw it half-built, so the growth since reads under the idle bound
 * while 5 MiB of garbage sits there). After it, the growth rule holds.
 */
public final class HeapTrim {

    /**
     * @param quietYoungCollections young collections per interval that still count as quiet
     * @param quietNanos how long the node must have been quiet for an idle trim
     * @param idleGrowthBytes old-generation growth since the last full collection that makes an idle trim worth it
     * @param busyGrowthBytes old-generation growth since the last full collection that is collected even when busy
     *        ({@code 0}: never)
     * @param floorBytes committed heap below which no idle trim runs
     * @param idleSpacingNanos the least time between two idle trims
     */
    public record Policy(int quietYoungCollections, long quietNanos, long idleGrowthBytes, long busyGrowthBytes,
            long floorBytes, long idleSpacingNanos) {
        public Policy {
            if (quietYoungCollections < 0 || quietNanos < 0 || idleGrowthBytes < 0 || busyGrowthBytes < 0
                    || floorBytes < 0 || idleSpacingNanos < 0) {
                throw new IllegalArgumentException("negative heap trim setting");
            }
        }
    }

    /**
     * One reading of the heap.
     *
     * @param nanos when ({@link System#nanoTime()})
     * @param youngCollections young collections so far
     * @param oldUsed bytes in the old generation now
     * @param oldUsedAfterFull bytes in the old generation right after the last full collection (0: none yet)
     * @param heapCommitted bytes of heap the JVM holds from the system
     */
    public record Reading(long nanos, long youngCollections, long oldUsed, long oldUsedAfterFull, long heapCommitted) {
    }

    /** What to do after a reading. */
    public enum Decision {
        NONE, IDLE, BUSY
    }

    private final Policy policy;
    private Reading previous;
    private long quietSince;
    private long lastIdleTrim;
    private boolean idleTrimmed;
    private boolean busyOff;
    private boolean collectedOnce;

    public HeapTrim(Policy policy) {
        this.policy = policy;
    }

    /** Takes a reading; whether to run a full collection now, and why. */
    public Decision next(Reading now) {
        Reading before = previous;
        previous = now;
        if (before == null) {
            quietSince = now.nanos();
            return Decision.NONE;
        }
        if (now.youngCollections() - before.youngCollections() > policy.quietYoungCollections()) {
            quietSince = now.nanos();
        }
        long growth = now.oldUsed() - now.oldUsedAfterFull();
        if (!busyOff && policy.busyGrowthBytes() > 0 && growth >= policy.busyGrowthBytes()) {
            return Decision.BUSY;
        }
        boolean quiet = now.nanos() - quietSince >= policy.quietNanos();
        boolean spaced = !idleTrimmed || now.nanos() - lastIdleTrim >= policy.idleSpacingNanos();
        if (quiet && spaced && (!collectedOnce || growth >= policy.idleGrowthBytes())
                && now.heapCommitted() > policy.floorBytes()) {
            return Decision.IDLE;
        }
        return Decision.NONE;
    }

    /** Whether the busy bound was turned off (see {@link #collected}). */
    public boolean busyOff() {
        return busyOff;
    }

    /**
     * Records that a full collection ran for {@code decision}, and the reading right after it (which becomes the
     * previous reading: the collection's own young-generation sweep does not count as allocation). A busy collection
     * after which the old generation still reads as grown by the busy bound (the readings do not see full collections)
     * turns the busy bound off, rather than collecting at every reading.
     */
    public void collected(Decision decision, Reading after) {
        collectedOnce = true;
        if (decision == Decision.BUSY && after.oldUsed() - after.oldUsedAfterFull() >= policy.busyGrowthBytes()) {
            busyOff = true;
        }
        if (decision == Decision.IDLE) {
            lastIdleTrim = after.nanos();
            idleTrimmed = true;
        }
        previous = after;
    }
}
