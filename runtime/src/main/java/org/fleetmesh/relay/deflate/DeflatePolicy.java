package org.fleetmesh.relay.deflate;

/**
 * Which outgoing WebSocket messages a permessage-deflate connection (RFC 7692) compresses, and how far an incoming one may
 * inflate. RFC 7692 §6 lets a sender leave any message uncompressed (RSV1 clear), so the decision is per message: one
 * shorter than {@code minBytes} goes as it is. Small messages do not shrink ({@code ["EOSE","sub"]} deflates to more
 * bytes than it has) and every compressed message costs CPU on both ends, which on a fast link is more than the bytes
 * it saves (docs/OPERATING.md, "WebSocket compression").
 *
 * @param minBytes the least payload, in bytes, a message must have to be compressed (0: every message)
 * @param maxInflatedBytes the most bytes one incoming compressed frame may inflate to before the connection is closed
 *        (1009); it bounds the memory a small compressed frame can make the node allocate
 */
public record DeflatePolicy(int minBytes, int maxInflatedBytes) {
    public DeflatePolicy {
        if (minBytes < 0) {
            throw new IllegalArgumentException("deflate min-bytes must be >= 0, not " + minBytes);
        }
        if (maxInflatedBytes < 1024) {
            throw new IllegalArgumentException("deflate max-inflated-bytes must be >= 1024, not " + maxInflatedBytes);
        }
    }

    /**
     * Whether a frame goes uncompressed: a whole text or binary message (a final frame that is not a continuation)
     * shorter than {@code minBytes}. A fragment of a longer message is never skipped, so a message is compressed all
     * through or not at all.
     */
    public boolean skip(boolean textOrBinary, boolean finalFragment, int payloadBytes) {
        return textOrBinary && finalFragment && payloadBytes < minBytes;
    }
}
