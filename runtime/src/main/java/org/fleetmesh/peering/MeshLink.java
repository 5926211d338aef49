package org.fleetmesh.peering;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One relay-to-relay connection at {@code /mesh}, either side: runs the {@link MeshHandshake} over a {@link Socket}
 * the edge adapts (the websockets-next endpoint, the Vert.x client, a test server), closes it on refusal, and after
 * MESH-OK answers what it does not serve yet with {@code MESH-ERR "unsupported: ..."} while keeping the link open.
 */
public final class MeshLink {
    /** Close code after a MESH-ERR (RFC 6455 policy violation). */
    public static final int POLICY_VIOLATION = 1008;
    public static final int NORMAL_CLOSURE = 1000;

    /** What the link needs of a WebSocket. Sends and the close are delivered in call order. */
    public interface Socket {
        void send(String text);

        void close(int code, String reason);
    }

    private final MeshHandshake handshake;
    private final Socket socket;
    private final CompletableFuture<PeerIdentity> authenticated = new CompletableFuture<>();

    public MeshLink(MeshHandshake handshake, Socket socket) {
        this.handshake = Objects.requireNonNull(handshake, "handshake");
        this.socket = Objects.requireNonNull(socket, "socket");
    }

    /** The connection opened: the responder sends MESH-HELLO. */
    public synchronized void open() {
        apply(handshake.start());
    }

    /** A text message arrived. */
    public synchronized void receive(String text) {
        if (!handshake.isOver()) {
            apply(handshake.receive(text));
        } else if (handshake.peer().isPresent()) {
            afterHandshake(text);
        }
        // refused: the connection is closing; nothing more to say
    }

    /** The edge's handshake timer fired. */
    public synchronized void timedOut() {
        apply(handshake.expire());
    }

    /** The connection closed, by either side. */
    public synchronized void closed() {
        apply(handshake.closed());
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
        socket.send(text);
    }

    /** Closes the link normally. */
    public void close() {
        socket.close(NORMAL_CLOSURE, "closing");
    }

    private void afterHandshake(String text) {
        Optional<String> type = MeshMessage.typeOf(text);
        if (type.isPresent() && type.get().equals(MeshMessage.ERR)) {
            return; // never answer MESH-ERR with MESH-ERR: two nodes would echo each other forever
        }
        String what = type.map(t -> "message type \"" + MeshJson.clip(t) + "\"").orElse("a message that is not a typed JSON array");
        socket.send(MeshErr.of(Refusal.of(Refusal.Kind.UNSUPPORTED, what + " is not served on this link yet"))
                .encode());
    }

    private void apply(MeshHandshake.Step step) {
        step.send().forEach(socket::send);
        if (step.outcome().isEmpty()) {
            return;
        }
        MeshHandshake.Outcome outcome = step.outcome().get();
        if (outcome instanceof MeshHandshake.Outcome.Authenticated a) {
            authenticated.complete(a.peer());
        } else if (outcome instanceof MeshHandshake.Outcome.Refused r) {
            Refusal refusal = r.refusal();
            if (refusal.kind() != Refusal.Kind.CLOSED) {
                socket.close(refusal.kind().sent() ? POLICY_VIOLATION : NORMAL_CLOSURE, closeReason(refusal));
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
