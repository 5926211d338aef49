package org.fleetmesh.relay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.fleetmesh.spi.storage.SaveOutcome;

/**
 * A test double for the relay core: keeps regular events in a list, no replacement or deletion
 * (those are the PostgreSQL store's job and are tested there). It can be told to fail or to hold
 * a query until released, to drive the relay through its error and concurrency paths.
 */
public final class MemoryStore implements EventStore {
    final List<Event> events = new CopyOnWriteArrayList<>();
    final List<Event> announced = new CopyOnWriteArrayList<>();
    volatile boolean failQueries;
    volatile boolean failSaves;
    volatile boolean timeOutQueries;
    /** When set, save waits for {@link #releaseSave} (after counting down {@link #saveStarted}). */
    volatile CountDownLatch saveStarted;
    volatile CountDownLatch releaseSave;
    /** When set, a read (query, count, enumerate) of a filter {@link #holdWhen} accepts waits for {@link #releaseQuery}. */
    volatile CountDownLatch queryStarted;
    volatile CountDownLatch releaseQuery;
    volatile java.util.function.Predicate<Filter> holdWhen = f -> true;

    /** Holds every read of a filter {@code when} accepts: {@link #queryStarted} counts down, {@link #releaseQuery} lets go. */
    void hold(java.util.function.Predicate<Filter> when) {
        holdWhen = when;
        releaseQuery = new CountDownLatch(1);
        queryStarted = new CountDownLatch(1);
    }
    /** When set, save waits for {@link #releaseSaved} after storing the batch, before it returns. */
    volatile CountDownLatch savedStarted;
    volatile CountDownLatch releaseSaved;
    /** When set, announceEphemeral waits for {@link #releaseAnnounce}. */
    volatile CountDownLatch announceStarted;
    volatile CountDownLatch releaseAnnounce;
    final java.util.concurrent.atomic.AtomicInteger queries = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger enumerations = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger counts = new java.util.concurrent.atomic.AtomicInteger();
    Consumer<List<String>> foreign;
    final List<ChangeListener> changeListeners = new CopyOnWriteArrayList<>();

    @Override
    public boolean onCommitted(ChangeListener listener) {
        changeListeners.add(listener);
        return true;
    }

    @Override
    public List<SaveOutcome> save(List<Event> batch) {
        CountDownLatch release = releaseSave;
        if (release != null) {
            saveStarted.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<SaveOutcome> out = saveNow(batch);
        CountDownLatch released = releaseSaved;
        if (released != null) {
            savedStarted.countDown();
            await(released);
        }
        return out;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void holdRead(List<Filter> filters) {
        CountDownLatch release = releaseQuery;
        if (queryStarted != null && release != null && filters.stream().anyMatch(holdWhen)) {
            queryStarted.countDown();
            await(release);
        }
    }

    private synchronized List<SaveOutcome> saveNow(List<Event> batch) {
        if (failSaves) {
            throw new IllegalStateException("simulated write failure");
        }
        List<SaveOutcome> out = new ArrayList<>();
        List<Event> added = new ArrayList<>();
        for (Event e : batch) {
            if (events.contains(e)) {
                out.add(SaveOutcome.DUPLICATE);
            } else {
                events.add(e);
                added.add(e);
                out.add(SaveOutcome.STORED);
            }
        }
        changeListeners.forEach(l -> l.committed(added, List.of()));
        return out;
    }

    @Override
    public void query(Filter filter, long now, Reader reader, EventSink sink) {
        if (timeOutQueries) {
            throw new org.fleetmesh.spi.storage.QueryTimeoutException(java.time.Duration.ofSeconds(10), null);
        }
        if (failQueries) {
            throw new IllegalStateException("simulated store failure");
        }
        List<Event> matching = new ArrayList<>(
                events.stream().filter(e -> filter.matches(e) && reader.mayRead(e)).toList());
        matching.sort(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(Event::id));
        queries.incrementAndGet();
        holdRead(List.of(filter));
        int n = 0;
        for (Event e : matching) {
            if ((filter.limit() != null && n++ >= filter.limit()) || !sink.accept(e.id(), e.json())) {
                return;
            }
        }
    }

    @Override
    public long count(List<Filter> filters, long now, Reader reader) {
        counts.incrementAndGet();
        holdRead(filters);
        return events.stream().filter(e -> reader.mayRead(e) && filters.stream().anyMatch(f -> f.matches(e))).count();
    }

    @Override
    public void enumerate(List<Filter> filters, long now, Reader reader, ItemSink sink) {
        enumerations.incrementAndGet();
        holdRead(filters);
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
    public int delete(java.util.Collection<org.fleetmesh.nostr.EventId> ids) {
        List<StoredItem> removed = new ArrayList<>();
        for (Event e : events) {
            if (ids.contains(e.id()) && events.remove(e)) {
                removed.add(new StoredItem(e.createdAt(), e.id()));
            }
        }
        changeListeners.forEach(l -> l.committed(List.of(), removed));
        return removed.size();
    }

    @Override
    public int purgeExpired(long now) {
        return 0;
    }

    @Override
    public void onForeignEvents(Consumer<List<String>> listener) {
        foreign = listener;
    }

    @Override
    public void announceEphemeral(Event event) {
        CountDownLatch release = releaseAnnounce;
        if (release != null) {
            announceStarted.countDown();
            await(release);
        }
        announced.add(event);
    }

    @Override
    public boolean isHealthy() {
        return true;
    }

    @Override
    public void close() {
    }
}
