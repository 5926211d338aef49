package org.fleetmesh.relay.capacity;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * One reading of what the relay has waiting: the sources of the pressure signal.
 *
 * @param writeQueued events waiting for the group-commit writer
 * @param writeCapacity the write queue's size
 * @param commitLatencyNanos how long the commit in progress has run, or the last one took (see {@link CommitTimes#latency})
 * @param heapUsed heap bytes in use after the last collection (live data, not garbage)
 * @param heapMax the heap's maximum size in bytes (0: unknown)
 * @param queryQueued REQ, COUNT and NEG-OPEN tasks waiting for a query thread
 * @param queryCapacity the query queue's size
 */
public record Load(int writeQueued, int writeCapacity, long commitLatencyNanos, long heapUsed, long heapMax,
        int queryQueued, int queryCapacity) {

    public static final Load IDLE = new Load(0, 1, 0, 0, 0, 0, 1);
    /** The heap pools that report their use after a collection (looked up once: the lookup costs tens of microseconds). */
    private static final List<MemoryPoolMXBean> HEAP_POOLS = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP && p.isCollectionUsageThresholdSupported()).toList();

    /**
     * Heap in use after the last garbage collection, over the heap pools that report it (the old
     * generation holds the live data; right after a young collection eden is empty), and the heap's
     * maximum: {@code {used, max}}.
     */
    public static long[] heapAfterCollection() {
        long used = 0;
        boolean any = false;
        for (MemoryPoolMXBean pool : HEAP_POOLS) {
            MemoryUsage after = pool.getCollectionUsage();
            if (after != null) {
                used += after.getUsed();
                any = true;
            }
        }
        Runtime rt = Runtime.getRuntime();
        long max = rt.maxMemory() == Long.MAX_VALUE ? 0 : rt.maxMemory();
        if (!any) {
            used = rt.totalMemory() - rt.freeMemory(); // no pool reports: garbage counts too
        }
        return new long[] { used, max };
    }
}
