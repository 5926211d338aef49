package org.fleetmesh.settlement.lightning.deployment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import jakarta.enterprise.context.ApplicationScoped;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Signature;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;

/** An EventStore bean over a list (NIP-01 matching, newest first, limit honoured) for the route tests. */
@ApplicationScoped
public class TestStore implements EventStore {
    final List<Event> events = new CopyOnWriteArrayList<>();

    Event add(PubKey author, int kind, long createdAt, int n) {
        byte[] id = new byte[32];
        java.util.Arrays.fill(id, (byte) 0x10);
        id[31] = (byte) n;
        Event e = new Event(new EventId(id), author, createdAt, kind, List.of(), "n" + n, new Signature(new byte[64]));
        events.add(e);
        return e;
    }

    @Override
    public List<SaveOutcome> save(List<Event> batch) {
        events.addAll(batch);
        return batch.stream().map(e -> SaveOutcome.STORED).toList();
    }

    @Override
    public void query(Filter filter, long now, EventSink sink) {
        List<Event> m = new ArrayList<>(events.stream().filter(filter::matches).toList());
        m.sort(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id));
        int limit = filter.limit() == null ? Integer.MAX_VALUE : filter.limit();
        for (int i = 0; i < Math.min(limit, m.size()); i++) {
            if (!sink.accept(m.get(i).id(), m.get(i).json())) {
                return;
            }
        }
    }

    @Override
    public long count(Filter filter, long now) {
        return events.stream().filter(filter::matches).count();
    }

    @Override
    public void enumerate(Filter filter, long now, ItemSink sink) {
    }

    @Override
    public int delete(Collection<EventId> ids) {
        return 0;
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
