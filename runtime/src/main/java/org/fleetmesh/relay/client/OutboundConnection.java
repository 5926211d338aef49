package org.fleetmesh.relay.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.vertx.core.Future;
import io.vertx.core.http.ClientWebSocket;
import io.vertx.core.http.WebSocket;

/**
 * One outbound WebSocket connection. Text messages arrive whole on the {@link Handler} (on the connection's event
 * loop, in order); sends and the close are delivered in call order. Sends are held to a budget: the characters
 * queued and not yet written to the socket. {@link #trySend} refuses a message over the budget (the caller waits
 * for {@link #writable()}); {@link #send} closes the connection instead (1008), for callers with no flow control
 * of their own, so a peer that stops reading cannot make this node buffer without bound.
 */
public final class OutboundConnection {
    /** Close code for a connection closed because the other side did not read what it was sent. */
    public static final short POLICY_VIOLATION = 1008;

    /** What a connection tells its user; every method runs on the connection's event loop. */
    public interface Handler {
        void onText(String text);

        /** The connection ended (closed by either side, or failed); called once, also when it never opened. */
        default void onClosed(String why) {
        }
    }

    private final ClientWebSocket ws;
    private final long budget;
    private volatile Handler handler;
    private final AtomicLong queued = new AtomicLong();
    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    private final CompletableFuture<String> closed = new CompletableFuture<>();
    private volatile CompletableFuture<Void> writable = CompletableFuture.completedFuture(null);

    OutboundConnection(ClientWebSocket ws, long budget) {
        this.ws = ws;
        this.budget = budget;
    }

    /** Sets the handlers, then opens the connection with {@code opener} (Dialer#open). */
    void connect(Function<ClientWebSocket, Future<WebSocket>> opener, Handler handler) {
        this.handler = handler;
        ws.textMessageHandler(handler::onText);
        ws.closeHandler(v -> ended("the other side closed the connection" + (ws.closeStatusCode() != null
                ? " (" + ws.closeStatusCode() + (ws.closeReason() != null && !ws.closeReason().isEmpty()
                        ? " " + ws.closeReason() : "") + ")"
                : "")));
        ws.exceptionHandler(t -> ended("connection error: " + t));
        opener.apply(ws).onSuccess(w -> {
            if (!opened.complete(null)) {
                // closed by this side while it was still connecting (close, or a send that could not go): close it now
                ws.close((short) 1000, "");
            }
        }).onFailure(t -> {
            opened.completeExceptionally(t);
            ended("could not connect: " + t.getMessage());
        });
    }

    private void ended(String why) {
        if (closed.complete(why)) {
            opened.completeExceptionally(new IllegalStateException(why));
            writable.complete(null);
            handler.onClosed(why);
        }
    }

    /** Completes when the WebSocket is open; fails when it could not be opened. */
    public CompletionStage<Void> opened() {
        return opened;
    }

    /** Completes with the reason once the connection has ended. */
    public CompletionStage<String> closed() {
        return closed;
    }

    public boolean isClosed() {
        return closed.isDone();
    }

    /** Characters sent and not yet written to the socket. */
    public long queued() {
        return queued.get();
    }

    public long budget() {
        return budget;
    }

    /**
     * Sends {@code text} if it fits the budget (a message larger than the whole budget is sent when nothing else
     * is queued). False: nothing was sent; wait for {@link #writable()} and try again. Also false once closed.
     */
    public boolean trySend(String text) {
        if (isClosed()) {
            return false;
        }
        long size = text.length();
        while (true) {
            long q = queued.get();
            if (q > 0 && q + size > budget) {
                synchronized (this) {
                    if (writable.isDone()) {
                        writable = new CompletableFuture<>();
                    }
                }
                // a write may have completed between the check and the new future: look again
                if (queued.get() == q) {
                    return false;
                }
                continue;
            }
            if (queued.compareAndSet(q, q + size)) {
                break;
            }
        }
        try {
            ws.writeTextMessage(text).onComplete(r -> written(size));
        } catch (IllegalStateException notConnected) {
            // the WebSocket is still connecting (Vert.x: "Not connected"): nothing can be sent yet
            queued.addAndGet(-size);
            return false;
        }
        return true;
    }

    /** Sends {@code text}, or closes the connection (1008) when it does not fit the budget. */
    public void send(String text) {
        if (!trySend(text) && !isClosed()) {
            close(POLICY_VIOLATION, "send budget exceeded: the other side is not reading");
        }
    }

    private void written(long size) {
        long left = queued.addAndGet(-size);
        if (left <= budget / 2) {
            CompletableFuture<Void> w = writable;
            w.complete(null);
        }
    }

    /**
     * Completes when the queue has drained to half the budget or less, or the connection ended; while it is still
     * connecting, once it opened (or failed to), so a caller retrying {@link #trySend} does not spin meanwhile.
     */
    public CompletionStage<Void> writable() {
        if (!opened.isDone()) {
            return opened.handle((v, t) -> null);
        }
        synchronized (this) {
            return queued.get() <= budget / 2 || isClosed() ? CompletableFuture.completedFuture(null) : writable;
        }
    }

    /** Stops reading from the socket (TCP backpressure on the other side) until {@link #resume()}. */
    public void pause() {
        ws.pause();
    }

    public void resume() {
        ws.resume();
    }

    public void close() {
        close((short) 1000, "");
    }

    public void close(int code, String reason) {
        if (isClosed()) {
            return;
        }
        String why = "closed by this side (" + code + (reason.isEmpty() ? "" : " " + reason) + ")";
        try {
            ws.close((short) code, reason).onComplete(r -> ended(why));
        } catch (IllegalStateException notConnected) {
            // still connecting (a peer that accepted the TCP connection and never answered the upgrade): end it
            // here; the WebSocket is closed if it opens after all, and the dial's timeout ends the attempt
            ended(why + " before it opened");
        }
    }
}
