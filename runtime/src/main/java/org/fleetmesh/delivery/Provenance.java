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
    /** Who sent an event and the hops it arrived with. */
    record Source(String peer, int hops) {
    }

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

    synchronized void arrived(EventId id, String peer, int hops) {
        Source s = recent.get(id);
        if (s == null || hops < s.hops()) {
            recent.put(id, new Source(peer, hops));
        }
    }

    synchronized Source of(EventId id) {
        return recent.get(id);
    }

    synchronized int size() {
        return recent.size();
    }
}
