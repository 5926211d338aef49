package org.fleetmesh.nostr;

/**
 * A client message the relay cannot accept. It carries what the answer needs: the event id (for
 * {@code OK false}), the subscription id (for {@code CLOSED}), or neither (a {@code NOTICE}).
 * The message starts with a NIP-01 machine-readable prefix such as {@code invalid:}.
 */
public final class ProtocolException extends Exception {
    private final String verb;
    private final String eventId;
    private final String subscriptionId;

    public ProtocolException(String verb, String eventId, String subscriptionId, String message) {
        super(message, null, false, false);
        this.verb = verb;
        this.eventId = eventId;
        this.subscriptionId = subscriptionId;
    }

    /** The message verb when it could be read ("EVENT", "REQ", ...), else null. */
    public String verb() {
        return verb;
    }

    /** The event id when it was well-formed hex, else null. */
    public String eventId() {
        return eventId;
    }

    public String subscriptionId() {
        return subscriptionId;
    }
}
