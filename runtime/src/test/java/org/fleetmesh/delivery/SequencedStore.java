package org.fleetmesh.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.fleetmesh.spi.storage.SaveOutcome;

/**
 * A sequenced event store in memory for the delivery tests: every newly stored event gets the next sequence number,
 * a duplicate gets none (so it is never forwarded again). No replacement or deletion rules (the PostgreSQL store's).
 */
final class SequencedStore implements EventStore {
    private final TreeMap<Long, Event> bySeq = new TreeMap<>();
    private final java.util.Map<EventId, Long> seqOf = new java.util.HashMap<>();
    private long last;
    /** The largest page a scan asked for. */
    volatile int largestPage;
    volatile int saves;

    @Override
    public synchronized List<SaveOutcome> save(List<Event> batch) {
        saves++;
        List<SaveOutcome> out = new ArrayList<>(batch.size());
        for (Event e : batch) {
            if (seqOf.containsKey(e.id())) {
                out.add(SaveOutcome.DUPLICATE);
            } else {
                last++;
                bySeq.put(last, e);
                seqOf.put(e.id(), last);
                out.add(SaveOutcome.STORED);
            }
        }
        return out;
    }

    synchronized boolean holds(EventId id) {
        return seqOf.containsKey(id);
    }

    synchronized int size() {
        return bySeq.size();
    }

    synchronized List<Event> events() {
        return new ArrayList<>(bySeq.values());
    }

    @Override
    public boolean sequenced() {
        return true;
    }

    @Override
    public void scan(long afterSeq, int limit, SequencedSink sink) {
        largestPage = Math.max(largestPage, limit);
        List<java.util.Map.Entry<Long, Event>> page;
        synchronized (this) {
            page = new ArrayList<>(bySeq.tailMap(afterSeq, false).entrySet()).subList(0,
                    Math.min(limit, bySeq.tailMap(afterSeq, false).size()));
        }
        for (java.util.Map.Entry<Long, Event> e : page) {
            if (!sink.accept(e.getKey(), e.getValue().id(), e.getValue().json())) {
                return;
            }
        }
    }

    @Override
    public synchronized long lastSequence() {
        return last;
    }

    @Override
    public void query(Filter filter, long now, Reader reader, EventSink sink) {
        for (Event e : events()) {
            if (filter.matches(e) && reader.mayRead(e) && !sink.accept(e.id(), e.json())) {
                return;
            }
        }
    }

    @Override
    public long count(List<Filter> filters, long now, Reader reader) {
        return events().stream().filter(e -> filters.stream().anyMatch(f -> f.matches(e))).count();
    }

    @Override
    public void enumerate(List<Filter> filters, long now, Reader reader, ItemSink sink) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int delete(java.util.Collection<EventId> ids) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int purgeExpired(long now) {
        return 0;
    }

    @Override
    public void onForeignEvents(Consumer<List<String>> listener) {
    }

    @Override
    public void announceEphemeral(Event event) {
    }

    @Override
    public boolean isHealthy() {
        return true;
    }

    @Override
    public void close() {
    }
}
