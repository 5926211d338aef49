package org.fleetmesh.negentropy;

/** A sorted, indexed collection of items that Negentropy reads ranges of. */
public interface Storage {
    int size();

    Item item(int index);

    /** Visits items {@code begin} (inclusive) to {@code end} (exclusive) until the visitor returns false. */
    void iterate(int begin, int end, ItemVisitor visitor);

    /** The index of the first item in [begin, end) not below {@code bound}, or {@code end}. */
    int findLowerBound(int begin, int end, Bound bound);

    Fingerprint fingerprint(int begin, int end);

    @FunctionalInterface
    interface ItemVisitor {
        boolean visit(Item item, int index);
    }
}
