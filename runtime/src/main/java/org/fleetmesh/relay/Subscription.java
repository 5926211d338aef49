package org.fleetmesh.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;

/**
 * One REQ. It is live from the moment it is registered; events that arrive while the stored
 * part is still being sent are held back (at most {@code maxHeldBack}; past that the subscription
 * is closed) and sent after EOSE, minus those the stored part sent. The ids the stored part sent
 * are kept after EOSE until the fan-out has passed every event committed before the query
 * ({@link #forgetStored()}), so an event both read and broadcast late is sent once.
 *
 * <p>{@link #offerLive} is called by the fan-out thread only.
 */
final class Subscription {
    final String id;
    final List<Filter> filters;
    final ClientState owner;
    private final Connection connection;
    private final int maxHeldBack;
    private volatile boolean cancelled;
    /** Set by the fan-out on registration: events it was handed up to this number are not live for this subscription. */
    volatile long liveAfter;
    /** Guarded by this; null once EOSE is sent. */
    private List<Event> heldBack = new ArrayList<>();
    /** Guarded by this; what the stored part sent, from EOSE until the fan-out has caught up. */
    private Set<EventId> storedSent;

    Subscription(String id, List<Filter> filters, ClientState owner, int maxHeldBack) {
        this.id = id;
        this.filters = filters;
        this.owner = owner;
        this.connection = owner.connection;
        this.maxHeldBack = maxHeldBack;
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

    /**
     * Once this returns, no stored event of this subscription is sent any more: a REQ that reuses the id may
     * send its EOSE at once (one that reads nothing stored does, on the caller's thread) and nothing of the old
     * filters follows it.
     */
    synchronized void cancel() {
        cancelled = true;
    }

    /** Sends one event of the stored part, unless cancelled; false if cancelled or the connection took no more. */
    synchronized boolean sendStored(String json) {
        return !cancelled && connection.send(RelayMessages.event(id, json));
    }

    /** {@link #sendStored(String)} for JSON the store read as UTF-8 bytes. */
    synchronized boolean sendStored(byte[] json) {
        return !cancelled && connection.sendEvent(id, json);
    }

    /** The bytes before the JSON that {@link #sendStored(byte[], int, int)} can frame the event in place with. */
    int storedHeadroom() {
        return connection.eventHeadroom(id);
    }

    /** {@link #sendStored(byte[])} for JSON at {@code buf[offset, offset + length)}, framed in place when it can be. */
    synchronized boolean sendStored(byte[] buf, int offset, int length) {
        return !cancelled && connection.sendEvent(id, buf, offset, length);
    }

    /** A live event as the fan-out hands it to its subscribers: the JSON's UTF-8 bytes made once, when first needed. */
    static final class Live {
        final Event event;
        private byte[] utf8;

        Live(Event event) {
            this.event = event;
        }

        /** Shared by every subscriber of this event: read only. */
        byte[] utf8() {
            byte[] b = utf8;
            if (b == null) {
                b = event.json().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                utf8 = b;
            }
            return b;
        }
    }

    /**
     * A live event for this subscription: sent, or held back during the stored phase. Returns false when it would
     * overflow the held-back events: the caller closes the subscription.
     */
    boolean offerLive(Live live) {
        Event e = live.event;
        if (cancelled) {
            return true;
        }
        synchronized (this) {
            if (heldBack != null) {
                if (heldBack.size() >= maxHeldBack) {
                    return false;
                }
                heldBack.add(e);
                return true;
            }
            if (storedSent != null && storedSent.contains(e.id())) {
                return true;
            }
        }
        connection.sendEvent(id, live.utf8());
        return true;
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
            storedSent = alreadySent.isEmpty() ? null : alreadySent;
        }
    }

    /** The fan-out has delivered every event committed before the stored part was read. */
    synchronized void forgetStored() {
        storedSent = null;
    }

    synchronized int heldBackCount() {
        return heldBack == null ? 0 : heldBack.size();
    }
}
