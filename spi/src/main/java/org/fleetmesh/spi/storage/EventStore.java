package org.fleetmesh.spi.storage;

import java.util.List;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;

/**
 * Where a node keeps its events. An implementation applies NIP-01 replacement, NIP-09 deletion
 * and NIP-40 expiration itself, atomically with the write, so that several nodes sharing one
 * store stay consistent.
 */
public interface EventStore extends AutoCloseable {

    /**
     * Stores a batch of already-validated, non-ephemeral events in one durable transaction.
     * Returns one outcome per event, in order; when this returns, every STORED event is committed.
     */
    List<SaveOutcome> save(List<Event> batch);

    /**
     * Streams the stored events matching {@code filter} that {@code reader} may read, newest first
     * (ties: lowest id first), at most {@code filter.limit()} of them when set (hidden events take
     * no place), skipping events expired at {@code now}. Stops early when the sink returns false.
     */
    void query(Filter filter, long now, Reader reader, EventSink sink);

    /**
     * Counts the stored, unexpired events that match at least one of {@code filters} and that
     * {@code reader} may read, each event once (NIP-45 with several filters); limits are ignored.
     */
    long count(List<Filter> filters, long now, Reader reader);

    /**
     * Enumerates {@code (created_at, id)} of the events matching at least one of {@code filters}
     * that {@code reader} may read, each event once, in ascending order (created_at, then id): the
     * item order Negentropy reconciles over. A filter with a limit contributes its newest
     * {@code limit} visible matches.
     */
    void enumerate(List<Filter> filters, long now, Reader reader, ItemSink sink);

    /** {@link #query(Filter, long, Reader, EventSink)} as the operator, who sees every event. */
    default void query(Filter filter, long now, EventSink sink) {
        query(filter, now, Reader.operator(), sink);
    }

    /** Counts stored, unexpired events matching the filter (NIP-45); the limit is ignored. */
    default long count(Filter filter, long now) {
        return count(List.of(filter), now, Reader.operator());
    }

    /**
     * Enumerates {@code (created_at, id)} of matching events in ascending order (created_at,
     * then id): the item order Negentropy reconciles over.
     */
    default void enumerate(Filter filter, long now, ItemSink sink) {
        enumerate(List.of(filter), now, Reader.operator(), sink);
    }

    /**
     * Removes the given events (an operator's decision: no tombstone is written, so they may be
     * published again). Returns how many were removed.
     */
    int delete(java.util.Collection<EventId> ids);

    /** Removes events whose NIP-40 expiration is before {@code now}; returns how many. */
    int purgeExpired(long now);

    /** Receives events (stored or ephemeral) that another node sharing this store committed. */
    void onForeignEvents(Consumer<List<String>> listener);

    /** Tells nodes sharing this store about an ephemeral event, which is never stored. */
    void announceEphemeral(Event event);

    /**
     * Registers a listener told, after each commit made through this store object, which events
     * became stored and which stopped being stored (replaced, deleted by NIP-09 or by the operator,
     * purged after NIP-40 expiration). Removals committed by other processes sharing the database
     * (sibling nodes, the CLI's {@code delete}, {@code import} and {@code sync}) are reported too,
     * as removals only, on the store's listening thread; their additions arrive through
     * {@link #onForeignEvents}, in the same order as the removals. Live indexes (the Negentropy
     * fingerprint trees) follow the store with it. Returns false if this store cannot report changes.
     */
    default boolean onCommitted(ChangeListener listener) {
        return false;
    }

    /**
     * Whether this store numbers its events in commit order ({@link #scan}); the mesh's store-and-forward needs it
     * (docs/spec/delivery.md).
     */
    default boolean sequenced() {
        return false;
    }

    /**
     * Streams stored events with a sequence number above {@code afterSeq}, lowest first, at most {@code limit}: every
     * stored event gets the next number when it is committed, so a reader that remembers the last number it saw misses
     * nothing this store object committed later. Expired events are included (the reader decides); events that stopped
     * being stored are not. Stops early when the sink returns false.
     */
    default void scan(long afterSeq, int limit, SequencedSink sink) {
        throw new UnsupportedOperationException("this store does not number its events");
    }

    /**
     * What the store keeps in memory to answer reads, for the relay's metrics: {@code {bytes allowed, bytes held,
     * events held, lookups found, lookups missed, reads answered with it}}; null when it keeps nothing of the kind.
     */
    default long[] readCacheStats() {
        return null;
    }

    /**
     * Rewrites the stored events in {@code created_at} order, for a store that has just taken a bulk import in another
     * order (a backfill, a corpus): a read of a time window then touches adjacent pages instead of about one page per
     * event. It holds the events exclusively while it runs (every read and write of them waits), so it is for a store
     * no relay is serving; it gives up, throwing, rather than wait long for a lock another session holds. Returns false
     * when the backend keeps no such order.
     */
    default boolean reorderByTime() {
        return false;
    }

    /**
     * The highest sequence number of a stored event, or higher (0 when none): {@code scan(lastSequence(), ...)}
     * returns only events committed after the call.
     */
    default long lastSequence() {
        return 0;
    }

    @FunctionalInterface
    interface SequencedSink {
        /** Returns false to stop the stream. */
        boolean accept(long seq, EventId id, String json);
    }

    /** Cheap liveness probe for health checks. */
    boolean isHealthy();

    @Override
    void close();

    @FunctionalInterface
    interface EventSink {
        /** Returns false to stop the stream. */
        boolean accept(EventId id, String json);

        /**
         * The same event with its JSON as UTF-8 bytes, for a store that holds them that way: a sink that writes the
         * event out as bytes (a relay's WebSocket frame) overrides this and skips decoding the JSON to a string and
         * encoding it back. The array is the sink's to keep. Returns false to stop the stream.
         */
        default boolean acceptUtf8(EventId id, byte[] json) {
            return accept(id, new String(json, java.nio.charset.StandardCharsets.UTF_8));
        }

        /**
         * Bytes the sink wants free before the JSON in the array {@link #acceptUtf8(EventId, byte[], int, int)}
         * hands it: a relay frames each event as {@code ["EVENT","<subscription>",<event>]}, and a store that builds
         * the JSON itself can build it inside that frame, one array per event instead of two. 0 by default.
         */
        default int headroom() {
            return 0;
        }

        /** Bytes the sink wants free after the JSON (the frame's closing bracket); 0 by default. */
        default int tailroom() {
            return 0;
        }

        /**
         * The event's JSON as UTF-8 at {@code buf[offset, offset + length)}, with at least {@link #headroom()} bytes
         * before it and {@link #tailroom()} after it that the sink may overwrite: the array is the sink's to keep.
         * The default hands the JSON alone to {@link #acceptUtf8(EventId, byte[])}. Returns false to stop the stream.
         */
        default boolean acceptUtf8(EventId id, byte[] buf, int offset, int length) {
            return acceptUtf8(id, offset == 0 && length == buf.length ? buf
                    : java.util.Arrays.copyOfRange(buf, offset, offset + length));
        }
    }

    /** An event as a live index sees it. */
    record StoredItem(long createdAt, EventId id) {
    }

    @FunctionalInterface
    interface ChangeListener {
        /**
         * Called after the commit, on the committing thread (or, for another process's removals,
         * on the thread that receives them); must be quick and must not throw.
         * {@code added}: the events now stored; {@code removed}: what stopped being stored.
         */
        void committed(List<Event> added, List<StoredItem> removed);
    }

    @FunctionalInterface
    interface ItemSink {
        void accept(long createdAt, EventId id);
    }
}
