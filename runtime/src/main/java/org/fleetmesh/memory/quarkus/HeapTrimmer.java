package org.fleetmesh.memory.quarkus;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.memory.HeapTrim;
import org.fleetmesh.spi.schedule.Repeating;
import org.jboss.logging.Logger;

import com.sun.management.HotSpotDiagnosticMXBean;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;

/**
 * Runs {@link HeapTrim} on one daemon thread ({@code fleetmesh-heap-trim}): reads the serial collector's counters and
 * the old generation every {@code fleetmesh.memory.heap-trim.interval}, and when a trim is due runs one full collection
 * ({@link System#gc()}), then logs what it gave back. Does nothing under another collector, or when explicit
 * collections are disabled.
 */
@ApplicationScoped
public class HeapTrimmer {
    private static final Logger LOG = Logger.getLogger(HeapTrimmer.class);
    private static final long MIB = 1024 * 1024;

    @Inject
    MemoryConfig config;

    @Inject
    MeterRegistry registry;

    private ScheduledExecutorService timer;
    private final AtomicLong idle = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();

    void start(@Observes StartupEvent ignored) {
        if (!config.enabled()) {
            return;
        }
        Optional<Serial> serial = Serial.find();
        if (serial.isEmpty()) {
            LOG.debugf("heap trim: off (not the serial collector)");
            return;
        }
        if (vmFlag("DisableExplicitGC").map(Boolean::parseBoolean).orElse(false)) {
            LOG.infof("heap trim: off (-XX:+DisableExplicitGC)");
            return;
        }
        if (vmFlag("ShrinkHeapInSteps").map(Boolean::parseBoolean).orElse(false)) {
            // each full collection then shrinks by 0, 10, 40, then 100 % of the excess: one trim gives little back
            LOG.debugf("heap trim: -XX:+ShrinkHeapInSteps (the launcher turns it off); trims give memory back slowly");
        }
        for (String reason : new String[] { "idle", "busy" }) {
            FunctionCounter.builder("fleetmesh.memory.heap.trims", reason.equals("idle") ? idle : busy, AtomicLong::get)
                    .tag("reason", reason).description("Full collections run by the heap trim").register(registry);
        }
        HeapTrim policy = new HeapTrim(new HeapTrim.Policy(config.quietYoungCollections(), config.quiet().toNanos(),
                config.idleGrowthMib() * MIB, config.busyGrowthMib() * MIB, config.floorMib() * MIB,
                config.idleSpacing().toNanos()));
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-heap-trim");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(100, config.interval().toMillis());
        Serial gc = serial.get();
        timer.scheduleWithFixedDelay(Repeating.surviving("the heap trim", () -> {
            try {
                HeapTrim.Reading before = gc.read();
                HeapTrim.Decision decision = policy.next(before);
                if (decision == HeapTrim.Decision.NONE) {
                    return;
                }
                long t0 = System.nanoTime();
                System.gc();
                long t1 = System.nanoTime();
                HeapTrim.Reading after = gc.read();
                policy.collected(decision, after);
                (decision == HeapTrim.Decision.IDLE ? idle : busy).incrementAndGet();
                String why = decision == HeapTrim.Decision.IDLE ? "quiet" : "busy, past the garbage bound";
                LOG.infof("heap trim (%s): old generation %d -> %d MiB, heap committed %d -> %d MiB, %.0f ms", why,
                        before.oldUsed() / MIB, after.oldUsed() / MIB, before.heapCommitted() / MIB,
                        after.heapCommitted() / MIB, (t1 - t0) / 1e6);
                if (decision == HeapTrim.Decision.BUSY && policy.busyOff()) { // said once: no busy trim follows
                    LOG.warnf("heap trim: the old generation still reads %d MiB above its live data after a full"
                            + " collection; busy trims are off", (after.oldUsed() - after.oldUsedAfterFull()) / MIB);
                }
            } catch (RuntimeException e) {
                LOG.warn("heap trim: reading failed", e);
            }
        }), every, every, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    private static Optional<String> vmFlag(String name) {
        try {
            return Optional.of(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(name)
                    .getValue());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The serial collector's young collector ("Copy") and its old generation ("Tenured Gen"). */
    private record Serial(GarbageCollectorMXBean young, MemoryPoolMXBean old) {
        static Optional<Serial> find() {
            Optional<GarbageCollectorMXBean> young = ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .filter(g -> g.getName().equals("Copy")).findFirst();
            Optional<MemoryPoolMXBean> old = ManagementFactory.getMemoryPoolMXBeans().stream()
                    .filter(p -> p.getName().equals("Tenured Gen")).findFirst();
            return young.isPresent() && old.isPresent() ? Optional.of(new Serial(young.get(), old.get()))
                    : Optional.empty();
        }

        HeapTrim.Reading read() {
            MemoryUsage after = old.getCollectionUsage();
            long committed = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
            return new HeapTrim.Reading(System.nanoTime(), young.getCollectionCount(), old.getUsage().getUsed(),
                    after == null ? 0 : after.getUsed(), committed);
        }
    }
}
