package org.fleetmesh.peering.budget;

/**
 * Counts one peer's violations in fixed periods: a period starts at the first violation after the previous period
 * ended, and the count starts again at 0 with it. Thread-safe; violations are rare, so it locks.
 */
public final class Violations {
    private final ViolationPolicy policy;
    private long periodStart;
    private int count;
    private long total;

    public Violations(ViolationPolicy policy) {
        this.policy = policy;
    }

    /** Counts a violation at {@code now} (nanoseconds) and says what it means. */
    public synchronized Verdict record(long now) {
        if (count == 0 || now - periodStart >= policy.periodNanos()) {
            periodStart = now;
            count = 0;
        }
        count++;
        total++;
        if (count > policy.threshold() + policy.tolerance()) {
            return Verdict.DISCONNECT;
        }
        return count > policy.threshold() ? Verdict.OVER_THRESHOLD : Verdict.WITHIN;
    }

    /** Violations in the current period at {@code now}. */
    public synchronized int inPeriod(long now) {
        return count == 0 || now - periodStart >= policy.periodNanos() ? 0 : count;
    }

    /** Every violation counted so far (for the status and the evidence record). */
    public synchronized long total() {
        return total;
    }
}
