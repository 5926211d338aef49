package org.fleetmesh.relay.client;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One connection to a Nostr relay, read by a blocking caller (the sync client): every whole text message is
 * parsed and queued; the end of the connection is queued as a {@link Closed} marker. The queue is bounded by
 * pausing the socket while it is full (by count, {@link #INBOX} messages, and by size, {@link #INBOX_CHARS}
 * characters), and sends wait for the connection's send budget. A message over the link's largest message size
 * ends the connection.
 */
public final class RelayLink implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Messages held unread before the socket is paused. */
    static final int INBOX = 4096;
    /** Characters held unread before the socket is paused: a few of the largest messages, not thousands. */
    static final long INBOX_CHARS = 8L << 20;
    /**
     * Largest message read by default, in bytes: 1 MiB. A relay's EVENT holds one event, and an event this node
     * would store is well below it (its own relays read messages of at most 512 KiB); a NEG-MSG is the relay's
     * negentropy frame in hex, 1 MiB holding a frame of up to 512 KiB.
     */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 1 << 20;

    /** What the queue holds: a parsed message, an unparsable text, or the end of the connection. */
    public sealed interface Incoming permits Message, Garbage, Closed {
    }

    public record Message(JsonNode node) implements Incoming {
    }

    public record Garbage(String text) implements Incoming {
    }

    public record Closed(String why) implements Incoming {
    }

    private final Dialer dialer;
    private final boolean ownsDialer;
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
    /** The text length of each queued message, in the same order (the Closed marker has none). */
    private final java.util.Queue<Integer> sizes = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AtomicInteger unread = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong unreadChars = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean paused;
    private final long timeoutMillis;
    private OutboundConnection connection;

    private RelayLink(Dialer dialer, boolean ownsDialer, long timeoutMillis) {
        this.dialer = dialer;
        this.ownsDialer = ownsDialer;
        this.timeoutMillis = timeoutMillis;
    }

    /** Connects on a dialer of its own (closed with the link), reading messages of up to 1 MiB. */
    public static RelayLink connect(URI uri, long timeoutSeconds) throws Exception {
        return connect(uri, timeoutSeconds, DEFAULT_MAX_MESSAGE_SIZE);
    }

    /** Connects on a dialer of its own (closed with the link), reading messages of up to {@code maxMessageSize} bytes. */
    public static RelayLink connect(URI uri, long timeoutSeconds, int maxMessageSize) throws Exception {
        Dialer dialer = Dialer.standalone(1, Dialer.Options.DEFAULTS.withMaxMessageSize(maxMessageSize)
                .withConnectTimeout(Duration.ofSeconds(timeoutSeconds)));
        try {
            return connect(dialer, true, uri, timeoutSeconds);
        } catch (Exception e) {
            dialer.close();
            throw e;
        }
    }

    /** Connects on a shared dialer (left open when the link closes). */
    public static RelayLink connect(Dialer dialer, URI uri, long timeoutSeconds) throws Exception {
        return connect(dialer, false, uri, timeoutSeconds);
    }

    private static RelayLink connect(Dialer dialer, boolean owns, URI uri, long timeoutSeconds) throws Exception {
        RelayLink link = new RelayLink(dialer, owns, TimeUnit.SECONDS.toMillis(timeoutSeconds));
        link.connection = dialer.dial(uri, new OutboundConnection.Handler() {
            @Override
            public void onText(String text) {
                link.received(text);
            }

            @Override
            public void onClosed(String why) {
                String w = why.replace("the other side", "the relay");
                if (w.contains("Max frame length") || w.contains("TooLongFrame")) {
                    // Netty's words for a message over the dialer's maxMessageSize
                    w = "the relay sent a message over " + dialer.options().maxMessageSize()
                            + " bytes, the most this side reads (" + w + ")";
                }
                link.inbox.add(new Closed(w));
            }
        });
        try {
            link.connection.opened().toCompletableFuture().get(timeoutSeconds + 1, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            link.connection.close();
            throw e.getCause() instanceof Exception x ? x : e;
        } catch (TimeoutException e) {
            link.connection.close();
            throw e;
        }
        return link;
    }

    private void received(String text) {
        Incoming in;
        try {
            in = new Message(JSON.readTree(text));
        } catch (Exception e) {
            in = new Garbage(text);
        }
        // counted before it is queued, so that a reader never takes away more than was counted
        sizes.add(text.length());
        long chars = unreadChars.addAndGet(text.length());
        int count = unread.incrementAndGet();
        inbox.add(in);
        if ((count >= INBOX || chars >= INBOX_CHARS) && !paused) {
            paused = true;
            connection.pause();
        }
    }

    /** The next thing the relay said, or null when nothing arrived within the timeout. */
    public Incoming next(long timeout, TimeUnit unit) throws InterruptedException {
        Incoming i = inbox.poll(timeout, unit);
        if (i instanceof Closed) {
            inbox.add(i); // the end stays the end for every later reader
        } else if (i != null) {
            Integer size = sizes.poll();
            long chars = unreadChars.addAndGet(-(size == null ? 0 : size));
            if (unread.decrementAndGet() <= INBOX / 2 && chars <= INBOX_CHARS / 2 && paused) {
                paused = false;
                connection.resume();
            }
        }
        return i;
    }

    /** Characters of the messages received and not yet read. */
    long unreadChars() {
        return unreadChars.get();
    }

    public boolean isClosed() {
        return connection.isClosed();
    }

    /** Sends, waiting up to the link's timeout for room in the send budget; closes the link if none comes. */
    public void send(JsonNode message) {
        send(message.toString());
    }

    public void send(String text) {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!connection.trySend(text)) {
            if (connection.isClosed()) {
                return;
            }
            long left = deadline - System.currentTimeMillis();
            try {
                if (left <= 0) {
                    throw new TimeoutException();
                }
                connection.writable().toCompletableFuture().get(left, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                connection.close();
                return;
            } catch (TimeoutException | ExecutionException e) {
                connection.close(OutboundConnection.POLICY_VIOLATION, "send budget exceeded: the relay is not reading");
                return;
            }
        }
    }

    @Override
    public void close() {
        try {
            if (!connection.isClosed()) {
                connection.close();
                connection.closed().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).exceptionally(t -> null).join();
            }
        } finally {
            if (ownsDialer) {
                dialer.close();
            }
        }
    }
}
