package org.fleetmesh.peering;

import java.util.Objects;

/**
 * Why a handshake did not authenticate, or why this node ends a link. A refusal this node makes is sent to the peer
 * as {@code ["MESH-ERR", "<word>: <detail>"]} before the link closes with its {@link Kind#closeCode()} (1008 for the
 * handshake's own refusals); a refusal that came from the peer, or a connection that closed, is only reported locally.
 */
public record Refusal(Kind kind, String detail) {

    public enum Kind {
        /** Not JSON, wrong arity, a missing or mistyped field, bad hex, a message too long. */
        MALFORMED("malformed", true),
        /** A protocol version, DID method or message type this node does not speak. */
        UNSUPPORTED("unsupported", true),
        /** A proof that does not verify or is bound to another challenge, DID or key. */
        INVALID("invalid", true),
        /** A time more than the allowed skew before this node's clock. */
        EXPIRED("expired", true),
        /** A time more than the allowed skew after this node's clock. */
        FUTURE("future", true),
        /** A proof this node has already accepted once. */
        REPLAYED("replayed", true),
        /** The peer presented this node's own DID or key. */
        SELF("self", true),
        /** A message that is valid but not the one this side waits for. */
        UNEXPECTED("unexpected", true),
        /** The handshake did not complete in time. */
        TIMEOUT("timeout", true),
        /** This node has no room for the link now (connection caps, handshake verifiers): try again later. */
        BUSY("busy", true, 1013),
        /** The peer does not read what this node sends: more than the send budget is queued to it. */
        SLOW("slow", true),
        /** An authenticated link on which the peer said nothing for the idle timeout. */
        IDLE("idle", true, 1000),
        /** This node failed, not the peer (a bug; logged with its cause). */
        ERROR("error", true, 1011),
        /** A second authenticated link between the same two nodes: the tie-break closes one (close 1000). */
        DUPLICATE("duplicate", true, 1000),
        /** The peer is quarantined here (S3: too many budget violations), until the time in the detail. */
        QUARANTINED("quarantined", true),
        /** The peer did not answer heartbeats within the link's latency bound (close 1000; redialled). */
        LATE("late", true, 1000),
        /** The peer refused us with MESH-ERR; its reason is the detail. */
        PEER("peer", false),
        /** The connection closed before the handshake completed. */
        CLOSED("closed", false);

        private final String word;
        private final boolean sent;
        private final int closeCode;

        Kind(String word, boolean sent) {
            this(word, sent, sent ? 1008 : 1000);
        }

        Kind(String word, boolean sent, int closeCode) {
            this.word = word;
            this.sent = sent;
            this.closeCode = closeCode;
        }

        /**
         * The WebSocket close code after this refusal: 1008 (policy violation) for what the peer did wrong, 1013
         * (try again later) for {@code busy}, 1000 for {@code idle} and for refusals only reported locally, 1011
         * for this node's own failure.
         */
        public int closeCode() {
            return closeCode;
        }

        /** The prefix of the MESH-ERR reason. */
        public String word() {
            return word;
        }

        /** Whether this node tells the peer (MESH-ERR, then close 1008). */
        public boolean sent() {
            return sent;
        }
    }

    public Refusal {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
    }

    public static Refusal of(Kind kind, String detail) {
        return new Refusal(kind, detail);
    }

    /** The MESH-ERR reason, {@code "<word>: <detail>"}; for {@link Kind#PEER} the peer's own reason. */
    public String reason() {
        return kind == Kind.PEER ? detail : kind.word() + ": " + detail;
    }

    /** This refusal as an exception, for code that unwinds. */
    MeshRefusedException exception() {
        return new MeshRefusedException(this);
    }

    @Override
    public String toString() {
        return kind == Kind.PEER ? "refused by the peer: " + detail : reason();
    }
}
