package org.fleetmesh.relay;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.relay.capacity.CommitTimes;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.jboss.logging.Logger;

/**
 * Group commit, the writer behind {@link Ingest}: one writer thread takes every event that is
 * waiting and writes them in one durable transaction, so that a commit's fsync is shared by all
 * events that arrived meanwhile. Each submitter learns its outcome, exactly once, only after the commit.
 */
final class GroupCommit implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(GroupCommit.class);

    /** Called on the writer thread once the event's transaction has ended. */
    interface Callback {
        void done(Event event, SaveOutcome outcome);
    }

    /** Compared by identity (a submit takes back its own, {@link #submit}). */
    private static final class Pending {
        private final Event event;
        private final Callback callback;

        Pending(Event event, Callback callback) {
            this.event = event;
            this.callback = callback;
        }

        Event event() {
            return event;
        }

        Callback callback() {
            return callback;
        }
    }

    private final EventStore store;
    private final BlockingQueue<Pending> queue;
    private final int maxBatch;
    private final Thread writer;
    private final Consumer<List<Event>> afterCommit;
    private final Object handoff = new Object();
    private volatile boolean running = true;
    private volatile long committedEvents;
    private volatile long batches;
    /** Commit latency for the pressure signal, and each batch for metrics. */
    final CommitTimes times = new CommitTimes();

    /** @param afterCommit given the events each commit stored; what it throws is logged, never turned into outcomes */
    GroupCommit(EventStore store, int capacity, int maxBatch, Consumer<List<Event>> afterCommit) {
        this.store = store;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.maxBatch = maxBatch;
        this.afterCommit = afterCommit;
        this.writer = new Thread(this::run, "fleetmesh-group-commit");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    /** Returns false when the queue is full; the caller answers {@code rate-limited:}. */
    boolean submit(Event event, Callback callback) {
        if (!running) {
            return false;
        }
        Pending p = new Pending(event, callback);
        if (!queue.offer(p)) {
            return false;
        }
        // closed meanwhile: the writer may have made its last poll; take it back unless the writer (or its final
        // drain, which answers FAILED) already has it, so that every true returned is answered
        return running || !queue.remove(p);
    }

    /** Whether {@link #close} was called: nothing more is taken. */
    boolean closing() {
        return !running;
    }

    boolean isAlive() {
        return writer.isAlive();
    }

    long committedEvents() {
        return committedEvents;
    }

    long batches() {
        return batches;
    }

    /** Events waiting for the writer, and the most that may. */
    int queued() {
        return queue.size();
    }

    int capacity() {
        return queue.size() + queue.remainingCapacity();
    }

    private void run() {
        List<Pending> batch = new ArrayList<>(maxBatch);
        while (running || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, maxBatch - 1);
                write(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } finally {
                batch.clear();
            }
        }
        // closed before these were written: each still gets its one answer
        Pending p;
        while ((p = queue.poll()) != null) {
            complete(p, SaveOutcome.FAILED);
        }
    }

    private void write(List<Pending> batch) {
        // the same event submitted twice in one batch is written once; the later copy is a duplicate
        List<Event> unique = new ArrayList<>(batch.size());
        Map<EventId, Integer> firstIndex = new HashMap<>(batch.size() * 2);
        int[] slot = new int[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i).event();
            Integer seen = firstIndex.putIfAbsent(e.id(), unique.size());
            if (seen == null) {
                slot[i] = unique.size();
                unique.add(e);
            } else {
                slot[i] = -1;
            }
        }
        List<SaveOutcome> outcomes;
        synchronized (handoff) { // committed and handed to the fan-out as one step (see fence)
            outcomes = save(unique);
            List<Event> stored = new ArrayList<>(unique.size());
            for (int i = 0; i < unique.size(); i++) {
                if (outcomes.get(i) == SaveOutcome.STORED) {
                    stored.add(unique.get(i));
                }
            }
            if (!stored.isEmpty()) {
                try {
                    afterCommit.accept(stored);
                } catch (RuntimeException e) {
                    LOG.error("handing committed events to fan-out failed; their outcomes stand", e);
                }
            }
        }
        for (int i = 0; i < batch.size(); i++) {
            Pending p = batch.get(i);
            SaveOutcome o;
            if (slot[i] >= 0) {
                o = outcomes.get(slot[i]);
            } else {
                SaveOutcome firstOutcome = outcomes.get(firstIndex.get(p.event().id()));
                o = firstOutcome == SaveOutcome.STORED ? SaveOutcome.DUPLICATE : firstOutcome;
            }
            complete(p, o);
        }
    }

    private List<SaveOutcome> save(List<Event> unique) {
        times.began(System.nanoTime());
        boolean ok = false;
        try {
            List<SaveOutcome> outcomes = store.save(unique);
            if (outcomes.size() != unique.size()) {
                throw new IllegalStateException("the store answered " + outcomes.size() + " outcomes for " + unique.size() + " events");
            }
            committedEvents += unique.size();
            batches++;
            ok = true;
            return outcomes;
        } catch (RuntimeException e) {
            // only a failed save is a failed batch: nothing of it was committed
            LOG.error("group commit failed; answering the batch with an error", e);
            return Collections.nCopies(unique.size(), SaveOutcome.FAILED);
        } finally {
            times.ended(ok ? unique.size() : 0, System.nanoTime(), ok);
        }
    }

    /**
     * Runs {@code r} at a point where every event committed so far has been handed to
     * {@code afterCommit}: no commit is between its save and its hand-off.
     */
    void fence(Runnable r) {
        synchronized (handoff) {
            r.run();
        }
    }

    private static void complete(Pending p, SaveOutcome o) {
        try {
            p.callback().done(p.event(), o);
        } catch (RuntimeException e) {
            LOG.warn("answering a submitter failed", e);
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
