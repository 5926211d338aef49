package org.fleetmesh.negentropy;

/**
 * A record to reconcile: a timestamp (unsigned 64-bit, usually {@code created_at}) and an id.
 * Items sort by timestamp, then by id.
 */
public record Item(long timestamp, Id id) implements Comparable<Item> {
    public Item {
        if (timestamp == Bound.INFINITY) {
            throw new NegentropyException("timestamp 2^64-1 is reserved for the infinity bound");
        }
    }

    @Override
    public int compareTo(Item other) {
        int byTime = Long.compareUnsigned(timestamp, other.timestamp);
        return byTime != 0 ? byTime : id.compareTo(other.id);
    }
}
