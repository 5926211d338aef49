package org.fleetmesh.relay;

import org.fleetmesh.nostr.MessageParser;

/**
 * The bounds a relay enforces, all advertised in its NIP-11 {@code limitation} object.
 *
 * @param maxMessageLength largest client message in characters
 * @param maxSubscriptions open subscriptions per connection
 * @param maxFilters filters per REQ or COUNT
 * @param maxLimit largest {@code limit} honoured; larger ones are clamped
 * @param defaultLimit stored events returned for a filter that has no {@code limit}
 * @param maxEventTags tags per event
 * @param maxContentLength characters of {@code content}
 * @param createdAtUpperSkew seconds an event's {@code created_at} may lie in the future
 * @param createdAtLowerSkew seconds an event's {@code created_at} may lie in the past (0: no bound)
 * @param sendQueueBytes characters queued to one client before it is dropped as too slow
 * @param writeQueueEvents events waiting for the store before new ones are refused
 * @param negMaxItems events a NIP-77 session may reconcile over before it is refused as too large
 * @param negFrameSizeLimit largest Negentropy message this relay sends, in bytes (before hex)
 * @param negIdleSeconds a NIP-77 session idle this long is closed
 */
public record RelayLimits(int maxMessageLength, int maxSubscriptions, int maxFilters, int maxLimit, int defaultLimit,
        int maxEventTags, int maxContentLength, long createdAtUpperSkew, long createdAtLowerSkew, long sendQueueBytes,
        int writeQueueEvents, int negMaxItems, int negFrameSizeLimit, int negIdleSeconds) {

    public static final RelayLimits DEFAULT = new RelayLimits(524288, 32, 16, 5000, 500, 2500, 262144, 900, 0,
            8L * 1024 * 1024, 50000, 1_000_000, 200_000, 60);

    MessageParser.Limits parserLimits() {
        return new MessageParser.Limits(maxFilters, maxLimit, maxEventTags, 1000);
    }
}
