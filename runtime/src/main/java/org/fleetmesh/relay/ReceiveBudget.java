package org.fleetmesh.relay;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of unfinished incoming WebSocket messages, held by all connections together. A message is buffered whole
 * before anyone reads it (the transport's cumulation buffer grows to hold it, up to its 2 MiB bound), so a client that
 * sends most of a large message and then nothing holds that memory for as long as it keeps the connection: measured,
 * 64 such connections from one address pinned 269 MB of direct memory. A connection is charged what such a buffer has
 * allocated for what it holds ({@link #capacity}: doubling from 64 bytes, so up to twice the bytes; 4 MiB for a
 * message of 2 MiB with its frame header), not only the bytes. Each connection has an {@link Account}: once
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

    /** Bytes charged for unfinished messages now, by all connections (what their buffers have allocated). */
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

    /** What a buffer that grows by doubling from 64 bytes (Netty's, below 4 MiB) has allocated to hold {@code bytes}. */
    static long capacity(long bytes) {
        return bytes <= 64 ? 64 : Long.highestOneBit(bytes - 1) << 1;
    }

    /** The frame header and the rest a cumulation buffer holds beside the payload, charged with it. */
    static final long OVERHEAD = 64;

    /** One connection's unfinished message; used from that connection's thread only. */
    public final class Account {
        private long mine;
        private long charged;
        private long completed;

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
            long c = capacity(mine + OVERHEAD);
            long total = held.addAndGet(c - charged);
            charged = c;
            if (total <= budget || charged <= MIN_SHARE) {
                return true;
            }
            return charged <= budget / Math.max(1, holders.get());
        }

        /** The message is whole: it is no longer held here (the reader has it). */
        public void completed() {
            completed++;
            release();
        }

        /** Messages this connection has completed so far. */
        public long completedMessages() {
            return completed;
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
                held.addAndGet(-charged);
                holders.decrementAndGet();
                mine = 0;
                charged = 0;
            }
        }
    }
}
