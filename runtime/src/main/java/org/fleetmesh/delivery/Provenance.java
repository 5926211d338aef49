package org.fleetmesh.delivery;

import java.util.LinkedHashMap;
import java.util.Map;

import org.fleetmesh.nostr.EventId;

/**
 * Which peer recently sent this node an event, and with how many hops, held in memory from the moment the event is
 * handed to ingest (before its commit puts it in the store's sequence) until the custody ledger has its leaf: the
 * forwarder then neither sends it back nor loses its hop count. Bounded: the oldest entries go first.
 */
final class Provenance {
    /** Who sent an event (every peer that did, at most {@link #PEERS}) and the fewest hops it arrived with. */
    record Source(java.util.Set<String> peers, int hops) {
        /** The first peer that sent it (for logs and tests). */
        String peer() {
            return peers.iterator().next();
        }

        boolean from(String peer) {
            return peers.contains(peer);
        }
    }

    /** Senders remembered per event: a node has few peers, and a longer list only means more copies were offered. */
    static final int PEERS = 16;

    private final int capacity;
    private final LinkedHashMap<EventId, Source> recent;

    Provenance(int capacity) {
        this.capacity = capacity;
        this.recent = new LinkedHashMap<>(Math.min(capacity, 1024), 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<EventId, Source> eldest) {
                return size() > Provenance.this.capacity;
            }
        };
    }

    /**
     * {@code peer} sent {@code id} with {@code hops}: every sender is kept (a second copy from another peer means
     * that peer holds it too, so it is not offered back), with the fewest hops any copy had.
     */
    synchronized void arrived(EventId id, String peer, int hops) {
        Source s = recent.get(id);
        if (s == null) {
            recent.put(id, new Source(java.util.Set.of(peer), hops));
        } else if (!s.from(peer) && s.peers().size() < PEERS) {
            java.util.Set<String> peers = new java.util.LinkedHashSet<>(s.peers());
            peers.add(peer);
            recent.put(id, new Source(java.util.Collections.unmodifiableSet(peers), Math.min(hops, s.hops())));
        } else if (hops < s.hops()) {
            recent.put(id, new Source(s.peers(), hops));
        }
    }

    synchronized Source of(EventId id) {
        return recent.get(id);
    }

    synchronized int size() {
        return recent.size();
    }
}
