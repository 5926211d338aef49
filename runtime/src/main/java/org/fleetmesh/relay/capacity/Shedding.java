package org.fleetmesh.relay.capacity;

/**
 * Which tiers are shed, as a state machine over pressure readings (pure: the time comes in with
 * each reading). A tier is shed as soon as the pressure reaches its level and restored only after
 * the pressure has stayed below {@code restoreRatio} times that level for {@code restoreHold}, so a
 * signal hovering at a level does not flap. The levels rise with priority, so the lowest tier is
 * shed first and comes back last.
 */
final class Shedding {
    private static final Priority[] TIERS = Priority.values();

    private final CapacityPolicy policy;
    private final long holdNanos;
    /** Bit {@code p.ordinal()} set: {@code p} is shed. */
    private int shed;
    /** Per tier, since when the pressure has been below its restore mark; {@code calm[i] == false}: it is not. */
    private final long[] calmSince = new long[TIERS.length];
    private final boolean[] calm = new boolean[TIERS.length];

    Shedding(CapacityPolicy policy) {
        this.policy = policy;
        this.holdNanos = policy.restoreHold().toNanos();
    }

    /** Takes the reading {@code level} made at {@code now} (nanoseconds, any origin); returns the shed tiers as bits. */
    int update(double level, long now) {
        if (!policy.enabled()) {
            shed = 0;
            return 0;
        }
        for (Priority p : TIERS) {
            int i = p.ordinal();
            double at = policy.shedLevel(p);
            int bit = 1 << i;
            if (level >= at) {
                shed |= bit;
                calm[i] = false;
            } else if ((shed & bit) != 0) {
                if (level < at * policy.restoreRatio()) {
                    if (!calm[i]) {
                        calm[i] = true;
                        calmSince[i] = now;
                    }
                    if (now - calmSince[i] >= holdNanos) {
                        shed &= ~bit;
                        calm[i] = false;
                    }
                } else {
                    calm[i] = false;
                }
            }
        }
        return shed;
    }

    boolean sheds(Priority p) {
        return (shed & (1 << p.ordinal())) != 0;
    }

    int bits() {
        return shed;
    }
}
