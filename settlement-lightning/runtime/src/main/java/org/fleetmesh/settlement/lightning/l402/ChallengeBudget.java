package org.fleetmesh.settlement.lightning.l402;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many L402 challenges the export makes (docs/spec/settlement.md §7, "Bounds"): each one counts matching events
 * and opens an invoice on the Lightning node, which keeps it, so a stranger's requests without a token are held to
 * {@code perAddress} a window from one client address and {@code total} a window node-wide. Each allowance refills
 * continuously (GCRA: one every window / allowance). At most {@code addresses} addresses are remembered, the least
 * recently seen forgotten first. Pure and thread-safe; times are {@link System#nanoTime()}-style values.
 */
final class ChallengeBudget {
    private final long perAddressInterval;
    private final long totalInterval;
    private final long window;
    private final Map<String, Long> tats; // guarded by this: theoretical arrival time per address
    private long totalTat; // guarded by this
    private boolean started; // guarded by this

    ChallengeBudget(int perAddress, int total, long windowNanos, int addresses) {
        if (perAddress < 1 || total < 1 || addresses < 1 || windowNanos < Math.max(perAddress, total)) {
            throw new IllegalArgumentException("challenges a window are at least 1, and addresses at least 1");
        }
        this.window = windowNanos;
        this.perAddressInterval = windowNanos / perAddress;
        this.totalInterval = windowNanos / total;
        this.tats = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > addresses;
            }
        };
    }

    /** Counts a challenge for {@code address} at {@code now}: 0 when it may be made, else nanoseconds to wait (none counted). */
    synchronized long admit(String address, long now) {
        if (!started) {
            totalTat = now;
            started = true;
        }
        Long tat = tats.get(address);
        long mine = tat == null || tat - now < 0 ? now : tat;
        long all = totalTat - now < 0 ? now : totalTat;
        long waitMine = mine + perAddressInterval - window - now;
        long waitAll = all + totalInterval - window - now;
        if (waitMine > 0 || waitAll > 0) {
            return Math.max(waitMine, waitAll);
        }
        tats.put(address, mine + perAddressInterval);
        totalTat = all + totalInterval;
        return 0;
    }
}
