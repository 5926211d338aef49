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
    private final String sentEventId;

    public ProtocolException(String verb, String eventId, String subscriptionId, String message) {
        this(verb, eventId, subscriptionId, message, null);
    }

    /**
     * @param sentEventId the event's {@code id} field as the client sent it when it was a string but not
     *     well-formed hex (at most {@link #MAX_ECHOED_ID} characters), so that the refusal can still be an
     *     {@code OK false} the client can match to its EVENT; else null
     */
    public ProtocolException(String verb, String eventId, String subscriptionId, String message, String sentEventId) {
        super(message, null, false, false);
        this.verb = verb;
        this.eventId = eventId;
        this.subscriptionId = subscriptionId;
        this.sentEventId = sentEventId;
    }

    /** The longest malformed {@code id} string echoed back in an {@code OK}. */
    public static final int MAX_ECHOED_ID = 128;

    /** The message verb when it could be read ("EVENT", "REQ", ...), else null. */
    public String verb() {
        return verb;
    }

    /** The event id when it was well-formed hex, else null. */
    public String eventId() {
        return eventId;
    }

    /**
     * The {@code id} string the client sent when it was not well-formed (to echo in {@code OK false}, quoted),
     * else null.
     */
    public String sentEventId() {
        return sentEventId;
    }

    public String subscriptionId() {
        return subscriptionId;
    }
}
