package org.fleetmesh.settlement.lightning.l402;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.fleetmesh.spi.storage.SaveOutcome;

/**
 * An EventStore over a list: NIP-01 matching and order (newest first, ties lowest id), limit honoured.
 * Public and not final: the deployment module's Quarkus tests subclass it as an application-scoped bean
 * (through this module's test-jar).
 */
public class MemoryEventStore implements EventStore {
    public final List<Event> events = new CopyOnWriteArrayList<>();
    volatile int queries;

    @Override
    public List<SaveOutcome> save(List<Event> batch) {
        List<SaveOutcome> out = new ArrayList<>();
        for (Event e : batch) {
            if (events.contains(e)) {
                out.add(SaveOutcome.DUPLICATE);
            } else {
                events.add(e);
                out.add(SaveOutcome.STORED);
            }
        }
        return out;
    }

    @Override
    public void query(Filter filter, long now, Reader reader, EventSink sink) {
        queries++;
        List<Event> matching = new ArrayList<>(
                events.stream().filter(e -> filter.matches(e) && reader.mayRead(e)).toList());
        matching.sort(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id));
        int n = 0;
        for (Event e : matching) {
            if (filter.limit() != null && n++ >= filter.limit()) {
                return;
            }
            if (!sink.accept(e.id(), e.json())) {
                return;
            }
        }
    }

    @Override
    public long count(List<Filter> filters, long now, Reader reader) {
        return events.stream().filter(e -> reader.mayRead(e) && filters.stream().anyMatch(f -> f.matches(e))).count();
    }

    @Override
    public void enumerate(List<Filter> filters, long now, Reader reader, ItemSink sink) {
        java.util.TreeSet<Event> union = new java.util.TreeSet<>(
                Comparator.comparingLong(Event::createdAt).thenComparing(Event::id));
        for (Filter f : filters) {
            events.stream().filter(e -> f.matches(e) && reader.mayRead(e))
                    .sorted(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id))
                    .limit(f.limit() == null ? Long.MAX_VALUE : f.limit()).forEach(union::add);
        }
        union.forEach(e -> sink.accept(e.createdAt(), e.id()));
    }

    @Override
    public int delete(Collection<EventId> ids) {
        int before = events.size();
        events.removeIf(e -> ids.contains(e.id()));
        return before - events.size();
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
