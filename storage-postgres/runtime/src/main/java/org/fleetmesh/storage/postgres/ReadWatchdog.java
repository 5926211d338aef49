package org.fleetmesh.storage.postgres;

import java.lang.ref.WeakReference;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jboss.logging.Logger;

/**
 * The statement timeout of the reads that carry no {@code statement_timeout} of their own ({@link EventReader}'s bounded
 * reads): one thread that looks every {@link #period} at the statements in flight and cancels those past their deadline
 * ({@link Statement#cancel()}: pgjdbc sends PostgreSQL a cancel request, the read fails with SQLSTATE 57014 as under
 * {@code statement_timeout}). pgjdbc's own {@code setQueryTimeout} schedules a task on its shared timer thread for
 * every statement and so wakes that thread once per read; a read here costs two writes to its thread's slot.
 *
 * <p>A read is cancelled between its timeout and one period later: a quarter of the timeout, at least 10 ms and at most
 * one second. A cancel can only reach the statement it was meant for: pgjdbc sends one only while that statement is
 * executing, and a statement that ends while its cancel is under way waits for it.
 */
final class ReadWatchdog implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReadWatchdog.class);

    private record Watch(Statement statement, long deadline) {
    }

    /** One reading thread's statement in flight, or null. */
    private static final class Slot {
        final WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
        final AtomicReference<Watch> watch = new AtomicReference<>();
    }

    private final long timeoutNanos;
    private final long period;
    private final Set<Slot> slots = ConcurrentHashMap.newKeySet();
    private final ThreadLocal<Slot> mine = ThreadLocal.withInitial(() -> {
        Slot s = new Slot();
        slots.add(s);
        return s;
    });
    private volatile Thread thread; // started with the first read
    private volatile boolean closed;

    ReadWatchdog(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a watchdog needs a positive timeout, not " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
        this.period = Math.max(10_000_000L, Math.min(1_000_000_000L, timeoutNanos / 4));
    }

    /** How often the watchdog looks (a read is cancelled at most this much after its timeout). */
    Duration period() {
        return Duration.ofNanos(period);
    }

    /** The calling thread runs {@code statement} now; {@link #done()} when it has ended, whatever the outcome. */
    void start(Statement statement) {
        if (thread == null) {
            startThread();
        }
        mine.get().watch.set(new Watch(statement, System.nanoTime() + timeoutNanos));
    }

    /** The calling thread's statement has ended. */
    void done() {
        mine.get().watch.set(null);
    }

    private synchronized void startThread() {
        if (thread != null || closed) {
            return;
        }
        Thread t = new Thread(this::run, "fleetmesh-read-watchdog");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    private void run() {
        while (!closed) {
            LockSupport.parkNanos(this, period);
            long now = System.nanoTime();
            for (Slot s : slots) {
                Watch w = s.watch.get();
                if (w != null && now - w.deadline() >= 0 && s.watch.compareAndSet(w, null)) {
                    try {
                        w.statement().cancel();
                    } catch (SQLException | RuntimeException e) {
                        LOG.debugf(e, "cancelling a read past its timeout");
                    }
                } else if (w == null && s.owner.get() == null) {
                    slots.remove(s); // its thread is gone
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
