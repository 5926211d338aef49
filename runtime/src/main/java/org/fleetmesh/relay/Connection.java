package org.fleetmesh.relay;

/** One client connection as the relay core sees it; the WebSocket layer implements it. */
public interface Connection {

    String id();

    /** The Host the client connected to (for NIP-42 relay URL checks), or null when unknown. */
    default String host() {
        return null;
    }

    /**
     * The client's source address, as its budgets are keyed (docs/spec/relay.md, "Client limits"), or null when
     * unknown (all such connections then share one key).
     */
    default String address() {
        return null;
    }

    /**
     * Queues a text frame. Returns false when the connection's send budget is exhausted; the
     * implementation has then told the client why and is closing it.
     */
    boolean send(String text);

    /**
     * Closes the connection with a WebSocket close code and reason (the relay ends a connection it refuses as it opens,
     * after a {@code NOTICE} saying why). The default does nothing.
     */
    default void close(int code, String reason) {
    }

    /**
     * Sends a WebSocket ping (the client's pong comes back by itself): traffic that keeps a quiet connection from the
     * server's idle timeout, which closes sockets that never send anything. The default does nothing.
     */
    default void ping() {
    }

    /**
     * Queues {@code ["EVENT",<subscriptionId>,<event>]} for an event whose JSON is already UTF-8 bytes (a stored
     * event as the store read it), under the same budget as {@link #send}. The default builds the message as a
     * string; a WebSocket layer overrides it to write the bytes into the frame as they are. The array may be
     * shared with other connections (a live event's, with every subscriber): read it, never change it.
     */
    default boolean sendEvent(String subscriptionId, byte[] eventJson) {
        return send(RelayMessages.event(subscriptionId, new String(eventJson, java.nio.charset.StandardCharsets.UTF_8)));
    }

    /**
     * The bytes this connection's event message puts before the event's JSON for this subscription, when it frames
     * events in place ({@link #sendEvent(String, byte[], int, int)}); 0 when it does not (the default).
     */
    default int eventHeadroom(String subscriptionId) {
        return 0;
    }

    /**
     * {@link #sendEvent(String, byte[])} for JSON at {@code buf[offset, offset + length)} in an array that is this
     * connection's to keep and write: with {@link #eventHeadroom} bytes before the JSON and one after it, a WebSocket
     * layer writes the message's prefix and closing bracket around the JSON and sends the array as the frame. The
     * default copies the JSON out.
     */
    default boolean sendEvent(String subscriptionId, byte[] buf, int offset, int length) {
        return sendEvent(subscriptionId, offset == 0 && length == buf.length ? buf
                : java.util.Arrays.copyOfRange(buf, offset, offset + length));
    }
}
