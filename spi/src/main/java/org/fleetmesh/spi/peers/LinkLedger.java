package org.fleetmesh.spi.peers;

import java.util.List;
import java.util.Optional;

/**
 * What a node remembers about each peer it has linked with, across restarts and moves (keyed by the peer's DID in
 * its short form, so a peer that moved keeps its record): its tier, its strain, its quarantine, and the evidence of
 * the violations that quarantined it (docs/spec/link-events.md). Implementations are thread-safe.
 */
public interface LinkLedger {

    /** The record of {@code peer}, or empty for a peer never seen (it starts in tier 0). */
    Optional<PeerRecord> load(String peer);

    /** Writes {@code record} over the stored one (an upsert by {@link PeerRecord#peer()}). */
    void save(PeerRecord record);

    /** Appends an evidence record; the id is the store's. */
    long addEvidence(Evidence evidence);

    /** The evidence about {@code peer}, oldest first, at most {@code limit}. */
    List<Evidence> evidence(String peer, int limit);
}
