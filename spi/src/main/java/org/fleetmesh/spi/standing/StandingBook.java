package org.fleetmesh.spi.standing;

import java.util.List;

/**
 * Every finding this node has recorded (its own and the ones it received), with its verdict: what standing is
 * computed from (docs/spec/standing.md). Keyed by the finding event's id. Implementations are thread-safe.
 */
public interface StandingBook {

    /** Records a finding under a new id; false (and nothing changes) when a finding with its event id is known. */
    boolean add(FindingRecord r);

    /** The newest records first (by id), at most {@code limit}. */
    List<FindingRecord> all(int limit);

    /**
     * {@link #all} without the event JSON ({@code event} is empty): what {@code Standing.compute} reads, without
     * loading up to 60 kB of evidence per record on every recomputation.
     */
    default List<FindingRecord> summaries(int limit) {
        return all(limit).stream().map(FindingRecord::withoutEvent).toList();
    }

    /** The records about {@code subject} (DID short form), newest first, at most {@code limit}. */
    List<FindingRecord> about(String subject, int limit);

    /** How many records are kept. */
    long count();

    /**
     * Bounds the book to {@code keep} records: drops the oldest of those that count for nothing first (a verdict other
     * than VERIFIED or ATTESTED, from a peer), then, only if still over, the oldest peers' ATTESTED, then the oldest
     * peers' VERIFIED, and this node's own last ({@link FindingRecord#keepRank}). After it, {@code count() <= keep}.
     *
     * @return how many were dropped
     */
    int trim(int keep);
}
