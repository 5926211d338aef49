package org.fleetmesh.relay;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of unfinished incoming WebSocket messages, held by all connections together. A message is buffered whole
 * before anyone reads it (the transport's cumulation buffer grows to hold it, up to its 2 MiB bound), so a client that
 * sends most of a large message and then nothing holds that memory for as long as it keeps the connection: measured,
 * 64 such connections from one address pinned 269 MB of direct memory. Each connection has an {@link Account}: once
 * all of them together hold more than the budget, a connection growing past its fair share (the budget divided by the
 * connections holding anything, and at least {@link #MIN_SHARE}) is refused, and its transport closes it. A client
 * whose messages are small is never the one refused. The counterpart of {@link SendBudget} for the other direction.
 */
public final class ReceiveBudget {
    /** A connection holding no more than this of an unfinished message is never refused (a large event fits). */
    public static final long MIN_SHARE = 256 * 1024;

    private final long budget;
    private final AtomicLong held = new AtomicLong();
    private final AtomicInteger holders = new AtomicInteger();

    /** @param budget bytes all connections together may hold before the largest holders are refused (at least 1) */
    public ReceiveBudget(long budget) {
        if (budget < 1) {
            throw new IllegalArgumentException("a receive budget is at least 1 byte, not " + budget);
        }
        this.budget = budget;
    }

    public Account open() {
        return new Account();
    }

    /** Bytes of unfinished messages held now, by all connections. */
    public long held() {
        return held.get();
    }

    /** Connections holding part of a message now. */
    public int holders() {
        return holders.get();
    }

    public long budget() {
        return budget;
    }

    /** One connection's unfinished message; used from that connection's thread only. */
    public final class Account {
        private long mine;

        private Account() {
        }

        /**
         * {@code n} more bytes of the unfinished message arrived. False: all connections hold more than the budget and
         * this one more than its share; refuse it (its bytes are counted until {@link #closed}).
         */
        public boolean received(long n) {
            if (n <= 0) {
                return true;
            }
            if (mine == 0) {
                holders.incrementAndGet();
            }
            mine += n;
            long total = held.addAndGet(n);
            if (total <= budget || mine <= MIN_SHARE) {
                return true;
            }
            return mine <= budget / Math.max(1, holders.get());
        }

        /** The message is whole: it is no longer held here (the reader has it). */
        public void completed() {
            release();
        }

        /** The connection closed. */
        public void closed() {
            release();
        }

        /** Bytes of its unfinished message this connection holds. */
        public long holding() {
            return mine;
        }

        private void release() {
            if (mine > 0) {
                held.addAndGet(-mine);
                holders.decrementAndGet();
                mine = 0;
            }
        }
    }
}
