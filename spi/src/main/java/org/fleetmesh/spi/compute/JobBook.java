package org.fleetmesh.spi.compute;

import java.util.List;
import java.util.Optional;

/**
 * Where a node keeps the compute/1.0 jobs it buys and sells, so that either side resumes after a crash without paying
 * twice or releasing k unpaid (docs/spec/compute.md, "Crash resumption"). Every state is saved before its side effect.
 * Implementations are thread-safe.
 */
public interface JobBook {

    /**
     * Saves {@code e}: inserts version 1, or replaces the stored entry when {@code e.version()} is one more than its
     * version. Returns false (and changes nothing) when the stored version is not {@code e.version() - 1}: someone
     * moved the job meanwhile.
     */
    boolean save(JobEntry e);

    Optional<JobEntry> find(JobEntry.Role role, String id);

    /** The newest first, at most {@code limit}. */
    List<JobEntry> recent(JobEntry.Role role, int limit);

    /** Entries of {@code role} in one of {@code states}, oldest first: what a restart must follow up. */
    List<JobEntry> inStates(JobEntry.Role role, List<String> states);

    /** How many entries of {@code role} are in each state (for the status page). */
    java.util.Map<String, Long> counts(JobEntry.Role role);
}
