package org.fleetmesh.relay;

import java.util.ArrayDeque;

/**
 * The complete messages of one WebSocket connection that have arrived and not yet been handled (docs/spec/relay.md,
 * "Transport"). The WebSocket server hands each message to the endpoint as a task behind the previous one, and keeps
 * reading while they wait, so a client whose messages take longer to handle than to send (a NEG-MSG that costs
 * 100 ms, a compressed message that inflates a thousandfold) would queue them without end. Past {@code maxMessages}
 * or {@code maxBytes} waiting, reading from the connection {@link #arrived pauses} (TCP then holds the sender back)
 * until the endpoint has worked the queue down to half of both. Thread-safe; {@code pause} and {@code resume} are
 * called with the queue's lock held, once per change.
 */
public final class InboundQueue {
    private final int maxMessages;
    private final long maxBytes;
    private final Runnable pause;
    private final Runnable resume;
    private final ArrayDeque<Long> sizes = new ArrayDeque<>(); // guarded by this
    private long bytes; // guarded by this
    private boolean paused; // guarded by this
    private long pauses; // guarded by this

    public InboundQueue(int maxMessages, long maxBytes, Runnable pause, Runnable resume) {
        if (maxMessages < 2 || maxBytes < 2) {
            throw new IllegalArgumentException("an inbound queue holds at least 2 messages and 2 bytes");
        }
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.pause = pause;
        this.resume = resume;
    }

    /** A complete message of {@code size} bytes was handed on to the endpoint. */
    public synchronized void arrived(long size) {
        sizes.addLast(size);
        bytes += size;
        if (!paused && (sizes.size() >= maxMessages || bytes >= maxBytes)) {
            paused = true;
            pauses++;
            pause.run();
        }
    }

    /** The endpoint has handled the oldest message that arrived (nothing when none is waiting). */
    public synchronized void handled() {
        Long size = sizes.pollFirst();
        if (size == null) {
            return;
        }
        bytes -= size;
        if (paused && sizes.size() <= maxMessages / 2 && bytes <= maxBytes / 2) {
            paused = false;
            resume.run();
        }
    }

    public synchronized int waiting() {
        return sizes.size();
    }

    public synchronized long waitingBytes() {
        return bytes;
    }

    public synchronized boolean paused() {
        return paused;
    }

    /** How often reading was paused. */
    public synchronized long pauses() {
        return pauses;
    }
}
