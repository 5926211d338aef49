package org.fleetmesh.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;

/**
 * One REQ. It is live from the moment it is registered; events that arrive while the stored
 * part is still being sent are held back and sent after EOSE, minus those the stored part sent,
 * so that nothing committed during the query is missed and nothing is sent twice.
 */
final class Subscription {
    final String id;
    final List<Filter> filters;
    private final Connection connection;
    private volatile boolean cancelled;
    private List<Event> heldBack = new ArrayList<>();

    Subscription(String id, List<Filter> filters, Connection connection) {
        this.id = id;
        this.filters = filters;
        this.connection = connection;
    }

    boolean matches(Event e) {
        for (Filter f : filters) {
            if (f.matches(e)) {
                return true;
            }
        }
        return false;
    }

    boolean isCancelled() {
        return cancelled;
    }

    void cancel() {
        cancelled = true;
    }

    void offerLive(Event e) {
        if (cancelled) {
            return;
        }
        synchronized (this) {
            if (heldBack != null) {
                heldBack.add(e);
                return;
            }
        }
        connection.send(RelayMessages.event(id, e.json()));
    }

    /** Sends EOSE, then what arrived live during the stored phase and was not already sent. */
    void storedPhaseDone(Set<EventId> alreadySent) {
        synchronized (this) {
            if (cancelled) {
                heldBack = null;
                return;
            }
            connection.send(RelayMessages.eose(id));
            for (Event e : heldBack) {
                if (!alreadySent.contains(e.id())) {
                    connection.send(RelayMessages.event(id, e.json()));
                }
            }
            heldBack = null;
        }
    }
}
