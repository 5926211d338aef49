package org.fleetmesh.standing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fleetmesh.spi.standing.FindingRecord;
import org.fleetmesh.spi.standing.StandingBook;

/** A {@link StandingBook} in memory, for tests and nodes without a database: same contract, no durability. */
public final class MemoryStandingBook implements StandingBook {
    private final TreeMap<Long, FindingRecord> byId = new TreeMap<>();
    private final Map<String, Long> byEvent = new HashMap<>();
    private long next = 1;

    @Override
    public synchronized boolean add(FindingRecord r) {
        if (byEvent.containsKey(r.eventId())) {
            return false;
        }
        long id = next++;
        byId.put(id, r.withId(id));
        byEvent.put(r.eventId(), id);
        return true;
    }

    @Override
    public synchronized List<FindingRecord> all(int limit) {
        return byId.descendingMap().values().stream().limit(Math.max(0, limit)).toList();
    }

    @Override
    public synchronized List<FindingRecord> about(String subject, int limit) {
        return byId.descendingMap().values().stream().filter(r -> r.subject().equals(subject))
                .limit(Math.max(0, limit)).toList();
    }

    @Override
    public synchronized long count() {
        return byId.size();
    }

    @Override
    public synchronized int trim(int keep) {
        int over = byId.size() - Math.max(0, keep);
        if (over <= 0) {
            return 0;
        }
        List<FindingRecord> order = new ArrayList<>(byId.values());
        order.sort(Comparator.comparingInt(FindingRecord::keepRank).thenComparingLong(FindingRecord::id));
        for (FindingRecord r : order.subList(0, over)) {
            byId.remove(r.id());
            byEvent.remove(r.eventId());
        }
        return over;
    }
}
