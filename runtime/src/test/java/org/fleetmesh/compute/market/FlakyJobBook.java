package org.fleetmesh.compute.market;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;

/**
 * A {@link MemoryJobBook} that fails on demand as the PostgreSQL job book does when its database is gone (an
 * {@link IllegalStateException} naming the I/O error): every call while {@link #down}, or the next save an entry
 * matches while {@link #failSave} is set (once).
 */
final class FlakyJobBook implements JobBook {
    private final MemoryJobBook inner = new MemoryJobBook();
    volatile boolean down;
    volatile Predicate<JobEntry> failSave;
    final AtomicInteger failures = new AtomicInteger();

    private void check(String what) {
        if (down) {
            failures.incrementAndGet();
            throw new IllegalStateException("could not " + what
                    + ": An I/O error occurred while sending to the backend (a simulated database outage)");
        }
    }

    @Override
    public boolean save(JobEntry e) {
        check("save compute job " + e.id());
        Predicate<JobEntry> p = failSave;
        if (p != null && p.test(e)) {
            failSave = null;
            failures.incrementAndGet();
            throw new IllegalStateException("could not save compute job " + e.id()
                    + ": An I/O error occurred while sending to the backend (a simulated database outage)");
        }
        return inner.save(e);
    }

    @Override
    public Optional<JobEntry> find(JobEntry.Role role, String id) {
        check("read compute jobs");
        return inner.find(role, id);
    }

    @Override
    public List<JobEntry> recent(JobEntry.Role role, int limit) {
        check("read compute jobs");
        return inner.recent(role, limit);
    }

    @Override
    public List<JobEntry> inStates(JobEntry.Role role, List<String> states) {
        check("read compute jobs");
        return inner.inStates(role, states);
    }

    @Override
    public Map<String, Long> counts(JobEntry.Role role) {
        check("count compute jobs");
        return inner.counts(role);
    }
}
