package org.fleetmesh.peering;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * When to redial a peer after {@code n} failures in a row: exponential backoff with full jitter, a delay drawn
 * uniformly from {@code [0, min(cap, base * 2^n)]} (so peers that lost each other at the same moment do not redial in
 * step).
 *
 * @param base the ceiling of the first delay
 * @param cap the largest ceiling
 */
public record Backoff(Duration base, Duration cap) {
    public static final Backoff DEFAULTS = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(60));

    public Backoff {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(cap, "cap");
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("the backoff base must be positive");
        }
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("the backoff cap must be at least its base");
        }
    }

    /** The ceiling of the delay after {@code failures} failures in a row. */
    public long ceilingMillis(int failures) {
        long ceiling = base.toMillis();
        for (int i = 0; i < failures && ceiling < cap.toMillis(); i++) {
            ceiling *= 2;
        }
        return Math.min(ceiling, cap.toMillis());
    }

    /** @param uniform a draw from [0, 1) */
    public long delayMillis(int failures, DoubleSupplier uniform) {
        double u = uniform.getAsDouble();
        if (!(u >= 0 && u < 1)) {
            throw new IllegalArgumentException("not a draw from [0, 1): " + u);
        }
        return (long) Math.floor(u * (ceilingMillis(failures) + 1));
    }
}
