package org.fleetmesh.relay;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.jboss.logging.Logger;

/**
 * Live fan-out: one thread takes accepted events in the order they were handed over (commit
 * order, which keeps each subscription's order) and sends each to the subscriptions the
 * {@link SubscriptionIndex} finds for it, off the writer thread and the event loop. Sends are
 * queued on each connection within its own send budget. The queue holds at most
 * {@code capacity} events: a full queue makes the writer wait and refuses ephemeral events.
 */
final class FanOut implements Ingest.FanOutSink, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(FanOut.class);

    private final SubscriptionIndex index = new SubscriptionIndex();
    /** Handed events, and barriers (Runnables) which take no room. */
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    /** Events handed over so far; an event's number is its place in the queue. Guarded by queue-adds. */
    private long handed;

    private record Handed(Event event, long seq) {
    }
    private final Semaphore room;
    private final int capacity;
    private final Thread thread;
    private final int maxHeldBack;
    private volatile boolean running = true;

    FanOut(int capacity, int maxHeldBack) {
        this.room = new Semaphore(capacity);
        this.capacity = capacity;
        this.maxHeldBack = maxHeldBack;
        this.thread = new Thread(this::run, "fleetmesh-fan-out");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** From now on: events handed over before this call are committed already, so the stored part reads them. */
    void register(Subscription s) {
        synchronized (queue) {
            s.liveAfter = handed;
        }
        index.add(s);
    }

    void unregister(Subscription s) {
        index.remove(s);
    }

    int subscriptions() {
        return index.size();
    }

    /** Events waiting to be sent to live subscribers. */
    int queued() {
        return capacity - room.availablePermits();
    }

    @Override
    public void committed(List<Event> events) {
        for (Event e : events) {
            enqueueWaiting(e);
        }
    }

    /** Events another node sharing the store committed or announced. */
    void foreign(List<Event> events) {
        committed(events);
    }

    @Override
    public boolean ephemeral(Event event) {
        if (!running || !room.tryAcquire()) {
            return false;
        }
        add(event);
        return true;
    }

    /** Runs {@code r} on the fan-out thread once everything handed over before it has been sent. */
    void barrier(Runnable r) {
        queue.add(r);
    }

    private void enqueueWaiting(Event e) {
        try {
            while (running) {
                if (room.tryAcquire(200, TimeUnit.MILLISECONDS)) {
                    add(e);
                    return;
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void add(Event e) {
        synchronized (queue) {
            queue.add(new Handed(e, ++handed));
        }
    }

    private void run() {
        while (running) {
            Object next;
            try {
                next = queue.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (next == null) {
                continue;
            }
            try {
                if (next instanceof Handed h) {
                    room.release(); // it no longer waits
                    deliver(h.event(), h.seq());
                } else {
                    ((Runnable) next).run();
                }
            } catch (RuntimeException e) {
                LOG.error("live fan-out failed for one event", e);
            }
        }
    }

    private void deliver(Event e, long seq) {
        boolean isPrivate = Visibility.PRIVATE_KINDS.contains(e.kind());
        Subscription.Live live = new Subscription.Live(e); // its UTF-8 JSON is encoded once, for every subscriber
        for (Subscription s : index.matching(e)) {
            if (seq <= s.liveAfter || (isPrivate && !Visibility.visibleTo(e, s.owner.authenticated))) {
                continue;
            }
            try {
                if (!s.offerLive(live)) {
                    overflowed(s);
                }
            } catch (RuntimeException ex) {
                LOG.warnf("sending to subscription %s failed: %s", s.id, ex.toString());
            }
        }
    }

    /** A subscription whose held-back events overflowed is closed; the client may subscribe again (a fresh query). */
    private void overflowed(Subscription s) {
        index.remove(s);
        s.cancel();
        if (s.owner.subscriptions.remove(s.id, s)) {
            s.owner.connection.send(RelayMessages.closed(s.id, "error: more than " + maxHeldBack
                    + " new events arrived while the stored ones were being sent; subscribe again"));
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
