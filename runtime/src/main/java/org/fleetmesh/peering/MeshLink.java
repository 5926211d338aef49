package org.fleetmesh.peering;

import org.fleetmesh.nostr.Utf8;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * One relay-to-relay connection at {@code /mesh}, either side: runs the {@link MeshHandshake} over a {@link Socket}
 * the edge adapts (the websockets-next endpoint, the Vert.x client, a test server), closes it on refusal, and after
 * MESH-OK hands every message to the link's {@link LinkSession} (by default one that answers
 * {@code MESH-ERR "unsupported: ..."} and keeps the link open).
 *
 * <p>
 * Every entry point is called on the connection's own thread (its event loop). A handshake message whose handling
 * verifies or signs goes to the {@link Offload}'s worker and its result comes back to the connection's thread; while
 * it is away the link holds at most one more message (the protocol never needs more: each side waits for the
 * other's answer), and a second one refuses the link as {@code unexpected}.
 */
public final class MeshLink {
    /** Close code after a MESH-ERR of the handshake (RFC 6455 policy violation). */
    public static final int POLICY_VIOLATION = 1008;
    public static final int NORMAL_CLOSURE = 1000;

    /** What the link needs of a WebSocket. Sends and the close are delivered in call order. */
    public interface Socket {
        void send(String text);

        void close(int code, String reason);
    }

    /** Where a handshake step that verifies or signs runs, and how its result returns to the connection. */
    public interface Offload {
        /** Runs every task where it is called: for an initiator, a test, a socket that is no event loop. */
        Offload INLINE = new Offload() {
            @Override
            public void toWorker(Runnable task) {
                task.run();
            }

            @Override
            public void toConnection(Runnable task) {
                task.run();
            }
        };

        /** Runs {@code task} on a worker; throws {@link RejectedExecutionException} when there is no room. */
        void toWorker(Runnable task);

        /** Runs {@code task} on the connection's own thread, after what is already queued there. */
        void toConnection(Runnable task);
    }

    private final MeshHandshake handshake;
    private final Socket socket;
    private final Offload offload;
    private final LongSupplier nanoTime;
    private final LinkSessions sessions;
    private LinkSession session;
    private volatile LinkTraffic traffic = LinkTraffic.NONE;
    private final CompletableFuture<PeerIdentity> authenticated = new CompletableFuture<>();
    private long lastHeard;
    private boolean ending;
    /** A step is on the worker; what arrives meanwhile waits (one message) or is remembered (timeout, close). */
    private boolean working;
    private String held;
    private boolean heldTooMany;
    private boolean expiredWhileWorking;
    private boolean closedWhileWorking;
    /** Volatile, read without the link's lock: the link table reads it under its own lock. */
    private volatile String peerError;

    public MeshLink(MeshHandshake handshake, Socket socket) {
        this(handshake, socket, Offload.INLINE, System::nanoTime);
    }

    /**
     * @param offload where verifying and signing steps run
     * @param nanoTime the clock of the idle timeout, {@link System#nanoTime()} outside tests
     */
    public MeshLink(MeshHandshake handshake, Socket socket, Offload offload, LongSupplier nanoTime) {
        this(handshake, socket, offload, nanoTime, LinkSessions.UNSUPPORTED);
    }

    /** @param sessions opens what runs on the link after MESH-OK */
    public MeshLink(MeshHandshake handshake, Socket socket, Offload offload, LongSupplier nanoTime,
            LinkSessions sessions) {
        this.sessions = Objects.requireNonNull(sessions, "sessions");
        this.handshake = Objects.requireNonNull(handshake, "handshake");
        this.socket = Objects.requireNonNull(socket, "socket");
        this.offload = Objects.requireNonNull(offload, "offload");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.lastHeard = nanoTime.getAsLong();
    }

    /** The connection opened: the responder sends MESH-HELLO. */
    public synchronized void open() {
        lastHeard = nanoTime.getAsLong();
        apply(handshake.start());
    }

    /** Refuses the connection before (or instead of) the handshake, e.g. {@code busy}: MESH-ERR, then close. */
    public synchronized void refuse(Refusal refusal) {
        if (!handshake.isOver()) {
            apply(handshake.abort(refusal));
        } else {
            end(refusal);
        }
    }

    /** A text message arrived. */
    public synchronized void receive(String text) {
        lastHeard = nanoTime.getAsLong();
        if (working) {
            if (held == null) {
                held = text;
            } else {
                heldTooMany = true;
            }
            return;
        }
        if (!handshake.isOver()) {
            if (handshake.verifiesNext()) {
                verify(text);
            } else {
                apply(handshake.receive(text));
            }
        } else if (session != null && !ending) {
            traffic.received(Utf8.length(text));
            if (text.startsWith("[\"MESH-ERR\"")) {
                notePeerError(text);
            }
            session.receive(text);
        }
        // refused: the connection is closing; nothing more to say
    }

    /** The reason of a MESH-ERR the peer sent on the authenticated link (it ends the link with one), if it did. */
    public Optional<String> peerError() {
        return Optional.ofNullable(peerError);
    }

    private void notePeerError(String text) {
        try {
            if (MeshMessage.parse(text, handshake.settings().maxMessageLength()) instanceof MeshErr err) {
                String r = err.reason();
                peerError = r.length() <= 300 ? r : r.substring(0, 297) + "...";
            }
        } catch (MeshRefusedException e) {
            // not a well-formed MESH-ERR: the session answers it
        }
    }

    /** Something other than a text message arrived (a pong): the peer is still there. */
    public synchronized void heard() {
        lastHeard = nanoTime.getAsLong();
    }

    /** The edge's handshake timer fired. */
    public synchronized void timedOut() {
        if (working) {
            expiredWhileWorking = true;
        } else {
            apply(handshake.expire());
        }
    }

    /** The connection closed, by either side. */
    public synchronized void closed() {
        ending = true;
        if (session != null) {
            LinkSession s = session;
            session = null;
            s.closed();
        }
        if (working) {
            closedWhileWorking = true;
        } else {
            apply(handshake.closed());
        }
    }

    /**
     * Ends an authenticated link on which the peer said nothing for {@code idleTimeout}:
     * {@code MESH-ERR "idle: ..."}, then close 1000. The edge calls it from a timer; true when it closed the link.
     */
    public synchronized boolean closeIfIdle(Duration idleTimeout) {
        if (ending || handshake.peer().isEmpty() || nanoTime.getAsLong() - lastHeard < idleTimeout.toNanos()) {
            return false;
        }
        end(Refusal.of(Refusal.Kind.IDLE, "nothing received for " + idleTimeout.toSeconds() + " s; closing the link"));
        return true;
    }

    /** Completes with the peer after MESH-OK; fails with a {@link MeshRefusedException} when refused. */
    public CompletionStage<PeerIdentity> authenticated() {
        return authenticated.copy();
    }

    public Optional<PeerIdentity> peer() {
        return handshake.peer();
    }

    public Role role() {
        return handshake.role();
    }

    /** Sends a message of a protocol that runs after MESH-OK. */
    public void send(String text) {
        if (handshake.peer().isEmpty()) {
            throw new IllegalStateException("the link is not authenticated");
        }
        traffic.sent(Utf8.length(text));
        socket.send(text);
    }

    /** Counts what crosses the link from now on (the link manager sets the peer's counters). */
    public void traffic(LinkTraffic counters) {
        traffic = java.util.Objects.requireNonNull(counters, "counters");
    }

    /** Closes the link normally. */
    public void close() {
        socket.close(NORMAL_CLOSURE, "closing");
    }

    private void verify(String text) {
        working = true;
        try {
            offload.toWorker(() -> {
                MeshHandshake.Step step;
                try {
                    step = handshake.receive(text);
                } catch (RuntimeException e) {
                    step = handshake.abort(Refusal.of(Refusal.Kind.ERROR, "this node failed to check the message ("
                            + e.getClass().getSimpleName() + ")"));
                }
                MeshHandshake.Step done = step;
                offload.toConnection(() -> verified(done));
            });
        } catch (RejectedExecutionException full) {
            working = false;
            apply(handshake.abort(Refusal.of(Refusal.Kind.BUSY,
                    "this node is verifying too many handshakes; try again later")));
        }
    }

    private synchronized void verified(MeshHandshake.Step step) {
        working = false;
        apply(step);
        if (heldTooMany) {
            held = null;
            apply(handshake.abort(Refusal.of(Refusal.Kind.UNEXPECTED,
                    "more than one message arrived before this node answered the last one")));
        }
        if (held != null) {
            String next = held;
            held = null;
            receive(next);
        }
        if (expiredWhileWorking && !working) {
            expiredWhileWorking = false;
            apply(handshake.expire());
        }
        if (closedWhileWorking && !working) {
            closedWhileWorking = false;
            apply(handshake.closed());
        }
    }

    /** Ends an authenticated link: MESH-ERR with the reason, then the close (the refusal's close code). */
    public synchronized void end(Refusal refusal) {
        if (ending) {
            return;
        }
        ending = true;
        socket.send(MeshErr.of(refusal).encode());
        socket.close(refusal.kind().closeCode(), closeReason(refusal));
    }

    private void apply(MeshHandshake.Step step) {
        step.send().forEach(socket::send);
        if (step.outcome().isEmpty()) {
            return;
        }
        MeshHandshake.Outcome outcome = step.outcome().get();
        if (outcome instanceof MeshHandshake.Outcome.Authenticated a) {
            lastHeard = nanoTime.getAsLong();
            session = sessions.open(this);
            authenticated.complete(a.peer());
        } else if (outcome instanceof MeshHandshake.Outcome.Refused r) {
            Refusal refusal = r.refusal();
            if (refusal.kind() != Refusal.Kind.CLOSED) {
                ending = true;
                socket.close(refusal.kind().closeCode(), closeReason(refusal));
            }
            authenticated.completeExceptionally(refusal.exception());
        }
    }

    /** A close frame's reason is at most 123 bytes of UTF-8. */
    static String closeReason(Refusal refusal) {
        String reason = refusal.kind().sent() ? refusal.reason() : "refused by the peer";
        byte[] utf8 = reason.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= 123) {
            return reason;
        }
        int end = 120;
        while (end > 0 && (utf8[end] & 0xC0) == 0x80) {
            end--;
        }
        return new String(utf8, 0, end, StandardCharsets.UTF_8) + "...";
    }
}
