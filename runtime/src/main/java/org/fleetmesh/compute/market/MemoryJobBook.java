package org.fleetmesh.compute.market;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;

/** A {@link JobBook} in memory, at most {@code capacity} jobs (the oldest finished ones go first). */
public final class MemoryJobBook implements JobBook {
    private final Map<String, JobEntry> entries = new LinkedHashMap<>();
    private final int capacity;

    public MemoryJobBook(int capacity) {
        this.capacity = capacity;
    }

    public MemoryJobBook() {
        this(100_000);
    }

    private static String key(JobEntry.Role role, String id) {
        return role.name() + ":" + id;
    }

    @Override
    public synchronized boolean save(JobEntry e) {
        String k = key(e.role(), e.id());
        JobEntry old = entries.get(k);
        long have = old == null ? 0 : old.version();
        if (have != e.version() - 1) {
            return false;
        }
        entries.put(k, e);
        if (entries.size() > capacity) {
            entries.values().stream().filter(x -> JobState.of(x.state()).isFinal()).findFirst()
                    .ifPresent(x -> entries.remove(key(x.role(), x.id())));
        }
        return true;
    }

    @Override
    public synchronized Optional<JobEntry> find(JobEntry.Role role, String id) {
        return Optional.ofNullable(entries.get(key(role, id)));
    }

    @Override
    public synchronized List<JobEntry> recent(JobEntry.Role role, int limit) {
        List<JobEntry> out = new ArrayList<>();
        for (JobEntry e : entries.values()) {
            if (e.role() == role) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparingLong(JobEntry::createdAt).reversed());
        return out.size() > limit ? new ArrayList<>(out.subList(0, limit)) : out;
    }

    @Override
    public synchronized List<JobEntry> inStates(JobEntry.Role role, List<String> states) {
        List<JobEntry> out = new ArrayList<>();
        for (JobEntry e : entries.values()) {
            if (e.role() == role && states.contains(e.state())) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparingLong(JobEntry::updatedAt));
        return out;
    }

    @Override
    public synchronized Map<String, Long> counts(JobEntry.Role role) {
        Map<String, Long> out = new TreeMap<>();
        Map<String, Long> m = new HashMap<>();
        for (JobEntry e : entries.values()) {
            if (e.role() == role) {
                m.merge(e.state(), 1L, Long::sum);
            }
        }
        out.putAll(m);
        return out;
    }
}
