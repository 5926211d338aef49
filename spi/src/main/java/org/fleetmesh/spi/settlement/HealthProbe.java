package org.fleetmesh.spi.settlement;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A rail's health as its backend last told it, asked again at most once per interval. Readiness probes are open to
 * anyone, so without it every {@code GET /q/health/ready} of a stranger would be a call to the mint or to LND. One
 * question at a time: callers meanwhile wait for its answer rather than asking too. Thread-safe.
 */
public final class HealthProbe<T> {
    private final Supplier<T> ask;
    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private T value;
    private RuntimeException failure;
    private long askedAt;
    private boolean asked;

    public HealthProbe(Supplier<T> ask, Duration interval) {
        this(ask, interval, System::nanoTime);
    }

    public HealthProbe(Supplier<T> ask, Duration interval, LongSupplier nanoTime) {
        this.ask = ask;
        this.intervalNanos = interval.toNanos();
        this.nanoTime = nanoTime;
    }

    /** The last answer, asked again when it is older than the interval; a failure is thrown as it was. */
    public synchronized T get() {
        long now = nanoTime.getAsLong();
        if (!asked || now - askedAt >= intervalNanos) {
            try {
                value = ask.get();
                failure = null;
            } catch (RuntimeException e) {
                value = null;
                failure = e;
            }
            askedAt = now;
            asked = true;
        }
        if (failure != null) {
            throw failure;
        }
        return value;
    }
}
