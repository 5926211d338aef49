package org.fleetmesh.relay.capacity;

/**
 * The pressure signal: each source as a share of its high mark (1.0 at the mark), and the level,
 * the largest of them. One saturated resource is enough to slow the whole relay, so the worst
 * source speaks for all.
 */
public record Pressure(double level, Source source, double writeQueue, double commitLatency, double heap,
        double queryQueue, Load load) {

    public enum Source {
        NONE("idle"), WRITE_QUEUE("write queue"), COMMIT_LATENCY("commit latency"), HEAP("heap"), QUERY_QUEUE("query queue");

        private final String description;

        Source(String description) {
            this.description = description;
        }

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public static final Pressure NONE = new Pressure(0, Source.NONE, 0, 0, 0, 0, Load.IDLE);

    public static Pressure of(Load load, CapacityPolicy policy) {
        double write = fill(load.writeQueued(), load.writeCapacity()) / policy.writeQueueHigh();
        double commit = (double) load.commitLatencyNanos() / policy.commitLatencyHigh().toNanos();
        double heap = load.heapMax() <= 0 ? 0
                : Math.max(0, fill(load.heapUsed(), load.heapMax()) - policy.heapFloor()) / (policy.heapHigh() - policy.heapFloor());
        double query = fill(load.queryQueued(), load.queryCapacity()) / policy.queryQueueHigh();
        double level = 0;
        Source source = Source.NONE;
        if (write > level) {
            level = write;
            source = Source.WRITE_QUEUE;
        }
        if (commit > level) {
            level = commit;
            source = Source.COMMIT_LATENCY;
        }
        if (heap > level) {
            level = heap;
            source = Source.HEAP;
        }
        if (query > level) {
            level = query;
            source = Source.QUERY_QUEUE;
        }
        return new Pressure(level, source, write, commit, heap, query, load);
    }

    private static double fill(long used, long capacity) {
        return capacity <= 0 ? 0 : Math.min(1.0, Math.max(0.0, (double) used / capacity));
    }

    /** The cause as an answer names it, e.g. "write queue 60% full" or "commits taking 2400 ms". */
    public String describe() {
        switch (source) {
        case WRITE_QUEUE:
            return "write queue " + percent(load.writeQueued(), load.writeCapacity()) + "% full";
        case COMMIT_LATENCY:
            return "commits taking " + load.commitLatencyNanos() / 1_000_000 + " ms";
        case HEAP:
            return "heap " + percent(load.heapUsed(), load.heapMax()) + "% used";
        case QUERY_QUEUE:
            return "query queue " + percent(load.queryQueued(), load.queryCapacity()) + "% full";
        default:
            return source.description;
        }
    }

    private static long percent(long used, long capacity) {
        return capacity <= 0 ? 0 : Math.round(100.0 * used / capacity);
    }
}
