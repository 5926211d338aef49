package org.fleetmesh.settlement.lightning.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clock of a {@link SimulatedLightningNetwork} (a simulation, not wall time): wall time plus an
 * offset that tests move forward with {@link #advance(Duration)}. Invoice timestamps, invoice expiry,
 * the payer's "invoice expired" check, the simulated block height and the lifetime of held HTLCs all
 * read this clock. Moving it runs the network's expiry sweep before {@code advance} returns, so a test
 * sees expired invoices as CANCELED right after advancing.
 */
public final class SimulatedClock {
    private final AtomicLong offsetNanos = new AtomicLong();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    public Instant now() {
        return Instant.now().plusNanos(offsetNanos.get());
    }

    public long epochSeconds() {
        return now().getEpochSecond();
    }

    /** Moves the clock forward by {@code d} (never backward) and runs the expiry sweep. */
    public void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("the simulated clock only moves forward");
        }
        offsetNanos.addAndGet(d.toNanos());
        listeners.forEach(Runnable::run);
    }

    void onChange(Runnable listener) {
        listeners.add(listener);
    }
}
