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
 * pausing the socket while it is full, and sends wait for the connection's send budget.
 */
public final class RelayLink implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Messages held unread before the socket is paused. */
    static final int INBOX = 4096;

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
    private final AtomicInteger unread = new AtomicInteger();
    private volatile boolean paused;
    private final long timeoutMillis;
    private OutboundConnection connection;

    private RelayLink(Dialer dialer, boolean ownsDialer, long timeoutMillis) {
        this.dialer = dialer;
        this.ownsDialer = ownsDialer;
        this.timeoutMillis = timeoutMillis;
    }

    /** Connects on a dialer of its own (closed with the link). */
    public static RelayLink connect(URI uri, long timeoutSeconds) throws Exception {
        Dialer dialer = Dialer.standalone(1, Dialer.Options.DEFAULTS.withMaxMessageSize(64 << 20)
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
                link.inbox.add(new Closed(why.replace("the other side", "the relay")));
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
        inbox.add(in);
        if (unread.incrementAndGet() >= INBOX && !paused) {
            paused = true;
            connection.pause();
        }
    }

    /** The next thing the relay said, or null when nothing arrived within the timeout. */
    public Incoming next(long timeout, TimeUnit unit) throws InterruptedException {
        Incoming i = inbox.poll(timeout, unit);
        if (i instanceof Closed) {
            inbox.add(i); // the end stays the end for every later reader
        } else if (i != null && unread.decrementAndGet() <= INBOX / 2 && paused) {
            paused = false;
            connection.resume();
        }
        return i;
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
