package org.fleetmesh.relay;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the node may hold queued for its clients to read, per connection and over all of them (docs/spec/relay.md,
 * "REQ, CLOSE, COUNT"; docs/OPERATING.md "Slow readers").
 *
 * <p>A message handed to the WebSocket layer stays in memory until the client's socket takes it. A connection's own
 * bound alone does not bound the node: a hundred connections that subscribe to a busy stream and read nothing may each
 * fill theirs, and measured, 100 connections x 8 MiB queued filled a 512 MiB heap and left the JVM doing nothing but
 * full collections (the relay took 63 events/s instead of 7,000). So the queue is also bounded over all connections:
 * past {@code total}, a connection holding more than its fair share ({@code total} divided by the connections that hold
 * anything) is refused, while one holding less may still queue. Every connection under its fair share keeps the sum
 * under {@code total}, so the overshoot is at most one message per connection.
 *
 * <p>Each queued message is charged its length plus {@link #MESSAGE_OVERHEAD}: Netty and Vert.x keep about 330 bytes
 * of heap per queued message beside its bytes (an outbound-buffer entry, a buffer object, two promises and their
 * listeners; a class histogram of a relay with 506,000 queued messages), which for short events is as much as the
 * events themselves.
 *
 * <p>Pure and thread-safe; a refusal is the caller's to act on (the relay tells the client why and closes it).
 */
public final class SendBudget {
    /** Heap bytes a queued message costs beside its own (measured: about 330; see above). */
    public static final int MESSAGE_OVERHEAD = 320;

    private final long perConnection;
    private final long total;
    private final AtomicLong queued = new AtomicLong();
    /** Connections holding anything queued: the divisor of the fair share. */
    private final AtomicInteger holding = new AtomicInteger();

    /**
     * @param perConnection the most one connection may hold queued
     * @param total the most all connections together may hold before those above their fair share are refused
     */
    public SendBudget(long perConnection, long total) {
        if (perConnection <= 0 || total <= 0) {
            throw new IllegalArgumentException("send budgets must be positive: " + perConnection + ", " + total);
        }
        this.perConnection = perConnection;
        this.total = total;
    }

    public long perConnection() {
        return perConnection;
    }

    public long total() {
        return total;
    }

    /** Bytes charged to every connection's queue now. */
    public long queued() {
        return queued.get();
    }

    /** One connection's account. */
    public Account open() {
        return new Account();
    }

    /** What one message of {@code length} bytes is charged. */
    public static long charge(long length) {
        return length + MESSAGE_OVERHEAD;
    }

    public final class Account {
        private final AtomicLong pending = new AtomicLong();

        private Account() {
        }

        /** Bytes charged to every connection now. */
        public long queuedByAll() {
            return queued.get();
        }

        /** Bytes charged to this connection now. */
        public long pending() {
            return pending.get();
        }

        /**
         * Charges {@code cost} (see {@link SendBudget#charge}); false, with nothing charged, when this connection's bound
         * or, past the total, its fair share would be exceeded.
         */
        public boolean reserve(long cost) {
            long before = pending.getAndAdd(cost);
            if (before == 0) {
                holding.incrementAndGet();
            }
            long mine = before + cost;
            long all = queued.addAndGet(cost);
            if (mine > perConnection || (all > total && mine > total / Math.max(1, holding.get()))) {
                release(cost);
                return false;
            }
            return true;
        }

        /** Gives back what a reserve charged, once the message left (or failed to). */
        public void release(long cost) {
            queued.addAndGet(-cost);
            if (pending.addAndGet(-cost) == 0) {
                holding.decrementAndGet();
            }
        }
    }
}
