package org.fleetmesh.peering.link;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.LinkLedger;
import org.fleetmesh.spi.peers.PeerRecord;

/** A {@link LinkLedger} in memory, for tests and nodes without a database: same contract, no durability. */
public final class MemoryLinkLedger implements LinkLedger {
    private final Map<String, PeerRecord> records = new ConcurrentHashMap<>();
    private final List<Evidence> evidence = new ArrayList<>();

    @Override
    public Optional<PeerRecord> load(String peer) {
        return Optional.ofNullable(records.get(peer));
    }

    @Override
    public void save(PeerRecord record) {
        records.put(record.peer(), record);
    }

    @Override
    public synchronized long addEvidence(Evidence e) {
        long id = evidence.size() + 1;
        evidence.add(e.withId(id));
        return id;
    }

    @Override
    public synchronized List<Evidence> evidence(String peer, int limit) {
        return evidence.stream().filter(e -> e.peer().equals(peer)).limit(limit).toList();
    }
}
