package org.fleetmesh.relay.capacity;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

/**
 * The relay's capacity check: reads the pressure signal (at most every {@code sample-every}, on
 * whichever thread checks first) and says whether work of a {@link Priority} may start now. A
 * check between samples is one volatile read.
 *
 * <p>For peering code: call {@link #refusal(Priority) refusal(Priority.PEER_SYNC)} when a peer's
 * event frame arrives, before parsing or verifying it; a non-null answer is the
 * {@code rate-limited: ...} reason to send back on the link (the frame is then not worked on).
 * Events submitted through {@code Ingest} with a peer origin are checked there as well.
 */
public final class Capacity {
    private static final Logger LOG = Logger.getLogger(Capacity.class);
    private static final Priority[] TIERS = Priority.values();

    private final Supplier<Load> load;
    private final LongSupplier nanoClock;
    private final AtomicLong nextSample;
    private final LongAdder[] refused = new LongAdder[TIERS.length];
    private volatile CapacityPolicy policy;
    /** Guarded by this. */
    private Shedding shedding;
    private volatile int shedBits;
    private volatile Pressure latest = Pressure.NONE;

    /**
     * @param load reads the sources of the signal; called at most every {@code policy.sampleEvery()}
     * @param nanoClock {@link System#nanoTime} but in tests
     */
    public Capacity(CapacityPolicy policy, Supplier<Load> load, LongSupplier nanoClock) {
        this.policy = policy;
        this.load = load;
        this.nanoClock = nanoClock;
        this.shedding = new Shedding(policy);
        this.nextSample = new AtomicLong(nanoClock.getAsLong());
        for (int i = 0; i < refused.length; i++) {
            refused[i] = new LongAdder();
        }
    }

    /** A check that never sheds and reads nothing (the CLI's ingest). */
    public static Capacity unlimited() {
        return new Capacity(CapacityPolicy.OFF, () -> Load.IDLE, System::nanoTime);
    }

    /** Replaces the policy (configuration at start); what is shed is decided afresh at the next reading. */
    public synchronized void apply(CapacityPolicy newPolicy) {
        policy = newPolicy;
        shedding = new Shedding(newPolicy);
        shedBits = 0;
        nextSample.set(nanoClock.getAsLong());
    }

    public CapacityPolicy policy() {
        return policy;
    }

    /**
     * Null when work of tier {@code p} may start now; otherwise the reason to answer, starting
     * {@code rate-limited:}, and the refusal is counted.
     */
    public String refusal(Priority p) {
        if (!policy.enabled() || p == Priority.LIVE_ROUTING) {
            return null;
        }
        sampleIfDue();
        if ((shedBits & (1 << p.ordinal())) == 0) {
            return null;
        }
        refused[p.ordinal()].increment();
        return "rate-limited: the relay is under load (" + latest.describe() + "); " + p.description()
                + " paused; try again in a few seconds";
    }

    /** Whether {@code p} is being shed right now (reads the signal if a reading is due). */
    public boolean sheds(Priority p) {
        sampleIfDue();
        return (shedBits & (1 << p.ordinal())) != 0;
    }

    /** The latest reading (reads the signal if a reading is due). */
    public Pressure pressure() {
        sampleIfDue();
        return latest;
    }

    /** Requests of tier {@code p} refused so far. */
    public long refused(Priority p) {
        return refused[p.ordinal()].sum();
    }

    private void sampleIfDue() {
        long now = nanoClock.getAsLong();
        long due = nextSample.get();
        if (now - due < 0) {
            return;
        }
        // one thread reads; the others go on with the last reading
        if (!nextSample.compareAndSet(due, now + policy.sampleEvery().toNanos())) {
            return;
        }
        Pressure p;
        try {
            p = Pressure.of(load.get(), policy);
        } catch (RuntimeException e) {
            LOG.warn("reading the pressure signal failed; the last reading stays in force", e);
            return;
        }
        synchronized (this) {
            latest = p;
            shedBits = shedding.update(p.level(), now);
        }
    }
}
