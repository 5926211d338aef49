package org.fleetmesh.relay;

import org.fleetmesh.nostr.MessageParser;

/**
 * The bounds a relay enforces; those NIP-11 defines are advertised in its {@code limitation} object.
 *
 * @param maxMessageLength largest client message in UTF-8 bytes (NIP-11 {@code max_message_length})
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
 * @param maxInflightQueries REQ, COUNT and NEG-OPEN queued or running per connection
 * @param negMaxSessions NIP-77 sessions open (or opening) per connection
 * @param negMaxSessionsTotal NIP-77 sessions open (or opening) on the whole relay
 * @param negMaxItemsTotal items all per-session snapshots (sessions not served by a live index) may hold together
 * @param fanOutQueueEvents events waiting for live fan-out before the writer waits and ephemeral events are refused
 * @param maxHeldBackEvents live events one subscription may hold back while its stored events are sent
 * @param ephemeralPersistSeconds an ephemeral event whose NIP-40 expiration is at most this far ahead is stored until
 *        it expires; 0 (the default) stores none, as NIP-01 and NIP-40 ("An expiration timestamp does not affect
 *        storage of ephemeral events") expect
 */
public record RelayLimits(int maxMessageLength, int maxSubscriptions, int maxFilters, int maxLimit, int defaultLimit,
        int maxEventTags, int maxContentLength, long createdAtUpperSkew, long createdAtLowerSkew, long sendQueueBytes,
        int writeQueueEvents, int negMaxItems, int negFrameSizeLimit, int negIdleSeconds, int maxInflightQueries,
        int negMaxSessions, int negMaxSessionsTotal, long negMaxItemsTotal, int fanOutQueueEvents, int maxHeldBackEvents,
        long ephemeralPersistSeconds) {

    public static final int DEFAULT_MAX_INFLIGHT_QUERIES = 8;
    public static final int DEFAULT_NEG_MAX_SESSIONS = 8;
    public static final int DEFAULT_NEG_MAX_SESSIONS_TOTAL = 1024;
    public static final long DEFAULT_NEG_MAX_ITEMS_TOTAL = 2_000_000;
    public static final int DEFAULT_FAN_OUT_QUEUE_EVENTS = 65536;
    public static final int DEFAULT_MAX_HELD_BACK_EVENTS = 4096;
    public static final long DEFAULT_EPHEMERAL_PERSIST_SECONDS = 0;

    public static final RelayLimits DEFAULT = new RelayLimits(524288, 32, 16, 5000, 500, 2500, 262144, 900, 0,
            8L * 1024 * 1024, 50000, 1_000_000, 200_000, 60);

    /** The first fourteen bounds; the rest take their defaults. */
    public RelayLimits(int maxMessageLength, int maxSubscriptions, int maxFilters, int maxLimit, int defaultLimit,
            int maxEventTags, int maxContentLength, long createdAtUpperSkew, long createdAtLowerSkew, long sendQueueBytes,
            int writeQueueEvents, int negMaxItems, int negFrameSizeLimit, int negIdleSeconds) {
        this(maxMessageLength, maxSubscriptions, maxFilters, maxLimit, defaultLimit, maxEventTags, maxContentLength,
                createdAtUpperSkew, createdAtLowerSkew, sendQueueBytes, writeQueueEvents, negMaxItems, negFrameSizeLimit,
                negIdleSeconds, DEFAULT_MAX_INFLIGHT_QUERIES, DEFAULT_NEG_MAX_SESSIONS, DEFAULT_NEG_MAX_SESSIONS_TOTAL,
                DEFAULT_NEG_MAX_ITEMS_TOTAL, DEFAULT_FAN_OUT_QUEUE_EVENTS, DEFAULT_MAX_HELD_BACK_EVENTS);
    }

    /** All but the last bound; ephemeral events persist at most the default. */
    public RelayLimits(int maxMessageLength, int maxSubscriptions, int maxFilters, int maxLimit, int defaultLimit,
            int maxEventTags, int maxContentLength, long createdAtUpperSkew, long createdAtLowerSkew, long sendQueueBytes,
            int writeQueueEvents, int negMaxItems, int negFrameSizeLimit, int negIdleSeconds, int maxInflightQueries,
            int negMaxSessions, int negMaxSessionsTotal, long negMaxItemsTotal, int fanOutQueueEvents, int maxHeldBackEvents) {
        this(maxMessageLength, maxSubscriptions, maxFilters, maxLimit, defaultLimit, maxEventTags, maxContentLength,
                createdAtUpperSkew, createdAtLowerSkew, sendQueueBytes, writeQueueEvents, negMaxItems, negFrameSizeLimit,
                negIdleSeconds, maxInflightQueries, negMaxSessions, negMaxSessionsTotal, negMaxItemsTotal, fanOutQueueEvents,
                maxHeldBackEvents, DEFAULT_EPHEMERAL_PERSIST_SECONDS);
    }

    public RelayLimits {
        if (ephemeralPersistSeconds < 0) {
            throw new IllegalArgumentException("ephemeral persistence must be 0 or more seconds: " + ephemeralPersistSeconds);
        }
        if (maxInflightQueries < 1 || negMaxSessions < 1 || negMaxSessionsTotal < 1 || negMaxItemsTotal < 1
                || fanOutQueueEvents < 1 || maxHeldBackEvents < 1) {
            throw new IllegalArgumentException("relay limits must be at least 1: " + maxInflightQueries + ", " + negMaxSessions
                    + ", " + negMaxSessionsTotal + ", " + negMaxItemsTotal + ", " + fanOutQueueEvents + ", " + maxHeldBackEvents);
        }
    }

    /** These limits with the resource bounds (everything after {@code negIdleSeconds}) replaced. */
    public RelayLimits withResourceBounds(int maxInflightQueries, int negMaxSessions, int negMaxSessionsTotal,
            long negMaxItemsTotal, int fanOutQueueEvents, int maxHeldBackEvents) {
        return new RelayLimits(maxMessageLength, maxSubscriptions, maxFilters, maxLimit, defaultLimit, maxEventTags,
                maxContentLength, createdAtUpperSkew, createdAtLowerSkew, sendQueueBytes, writeQueueEvents, negMaxItems,
                negFrameSizeLimit, negIdleSeconds, maxInflightQueries, negMaxSessions, negMaxSessionsTotal, negMaxItemsTotal,
                fanOutQueueEvents, maxHeldBackEvents, ephemeralPersistSeconds);
    }

    /**
     * Whether an ephemeral event is stored (until it expires): only when the operator set
     * {@link #ephemeralPersistSeconds} above 0 and its NIP-40 expiration is ahead of {@code now} by at most that; any
     * other ephemeral event only goes to live subscribers. NIP-40 today: "An expiration timestamp does not affect
     * storage of ephemeral events" (the sentence "Relays SHOULD persist ephemeral events until their expiration
     * timestamp" was removed from NIP-40 in December 2022), so storing them is off by default.
     */
    public boolean storesEphemeral(org.fleetmesh.nostr.Event e, long now) {
        if (e.eventClass() != org.fleetmesh.nostr.EventClass.EPHEMERAL) {
            return false;
        }
        Long expiration = e.expiration();
        return expiration != null && expiration > now && expiration - now <= ephemeralPersistSeconds;
    }

    /** Whether the relay stores {@code e} (if admitted): every event but an ephemeral one {@link #storesEphemeral} refuses. */
    public boolean stores(org.fleetmesh.nostr.Event e, long now) {
        return e.eventClass() != org.fleetmesh.nostr.EventClass.EPHEMERAL || storesEphemeral(e, now);
    }

    public MessageParser.Limits parserLimits() {
        return new MessageParser.Limits(maxFilters, maxLimit, maxEventTags, 1000);
    }
}
