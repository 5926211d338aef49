package org.fleetmesh.relay.capacity;

/**
 * Not a test: a timing loop for the report (ns per {@link Capacity#refusal}, the signal read every
 * 100 ms from a fixed load plus the real heap), run by hand with
 * {@code java -cp runtime/target/classes:runtime/target/test-classes:<jboss-logging jar> org.fleetmesh.relay.capacity.CapacityTiming}.
 */
public final class CapacityTiming {
    private CapacityTiming() {
    }

    public static void main(String[] args) {
        Load fixed = new Load(10, 1000, 1_000_000, 0, 0, 0, 4096);
        Capacity admits = new Capacity(CapacityPolicy.DEFAULT, () -> {
            long[] heap = Load.heapAfterCollection();
            return new Load(fixed.writeQueued(), fixed.writeCapacity(), fixed.commitLatencyNanos(), heap[0], heap[1], 0, 4096);
        }, System::nanoTime);
        Capacity sheds = new Capacity(CapacityPolicy.DEFAULT, () -> new Load(600, 1000, 0, 0, 0, 0, 4096), System::nanoTime);
        long sink = 0;
        int n = 20_000_000;
        for (int round = 0; round < 5; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += admits.refusal(Priority.CLIENT_REQ) == null ? 1 : 0;
            }
            long took = System.nanoTime() - start;
            System.out.printf("round %d: %.1f ns per admitting check (clock read included)%n", round, (double) took / n);
        }
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += sheds.refusal(Priority.BACKFILL) == null ? 0 : 1;
        }
        System.out.printf("refused: %.1f ns per refusing check, answer text included (sink %d)%n",
                (double) (System.nanoTime() - start) / n, sink);
        start = System.nanoTime();
        for (int i = 0; i < 100_000; i++) {
            sink += Load.heapAfterCollection()[0] > 0 ? 1 : 0;
        }
        System.out.printf("heap reading: %.0f ns (sink %d)%n", (double) (System.nanoTime() - start) / 100_000, sink);
    }
}
