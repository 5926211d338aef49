package org.fleetmesh.peering.budget;

/**
 * Not a test: a timing loop for the report (ns per {@link Bucket#reserve}), run by hand with
 * {@code java -cp runtime/target/classes:runtime/target/test-classes org.fleetmesh.peering.budget.BucketTiming}.
 */
public final class BucketTiming {
    private BucketTiming() {
    }

    public static void main(String[] args) {
        Bucket b = new Bucket(1_000_000_000L, 1_000_000_000L, System.nanoTime());
        long sink = 0;
        for (int round = 0; round < 5; round++) {
            int n = 20_000_000;
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long now = System.nanoTime();
                sink += b.reserve(1, now);
            }
            long took = System.nanoTime() - start;
            System.out.printf("round %d: %.1f ns per reserve (clock read included)%n", round, (double) took / n);
        }
        long start = System.nanoTime();
        int n = 20_000_000;
        long now = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += b.reserve(1, now + i);
        }
        System.out.printf("fixed clock: %.1f ns per reserve (sink %d)%n", (double) (System.nanoTime() - start) / n, sink);
        Bucket empty = new Bucket(10, 1_000_000_000L, now);
        empty.reserve(10, now);
        start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += empty.reserve(1, now + i);
        }
        System.out.printf("refused: %.1f ns per reserve (sink %d)%n", (double) (System.nanoTime() - start) / n, sink);
    }
}
