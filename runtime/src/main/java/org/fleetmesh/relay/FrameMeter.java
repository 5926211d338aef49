package org.fleetmesh.relay;

/**
 * Follows the WebSocket frames (RFC 6455 §5.2) of one connection's incoming bytes, as they arrive in chunks of any
 * size, and charges the payload of data frames to a {@link ReceiveBudget.Account} until the frame that ends their
 * message (FIN) is whole. Control frames are not charged. Only headers are read; payload bytes are counted, not looked
 * at. Pure: bytes in, a verdict out.
 */
public final class FrameMeter {
    /** The bytes of a chunk, by index. */
    @FunctionalInterface
    public interface Bytes {
        int get(int index);
    }

    private final ReceiveBudget.Account account;
    private final long maxMessage;
    private final byte[] header = new byte[14];
    private long messageBytes; // payload bytes the frames of the current message announced
    private boolean tooLarge;
    private int have; // header bytes collected
    private long remaining = -1; // payload bytes of the current frame still to come; -1: reading a header
    private boolean data; // the current frame is a data frame (text, binary, continuation)
    private boolean fin;

    public FrameMeter(ReceiveBudget.Account account) {
        this(account, 0);
    }

    /**
     * @param maxMessage the most payload bytes a message's frames may announce in all (0: no bound); a frame header
     *        that takes its message past it is refused before its payload is read
     */
    public FrameMeter(ReceiveBudget.Account account, long maxMessage) {
        this.account = account;
        this.maxMessage = maxMessage;
    }

    /** Whether the last refusal was of a message over {@code maxMessage} (else the budget refused). */
    public boolean tooLarge() {
        return tooLarge;
    }

    /**
     * Reads {@code length} bytes; false when the budget refuses the connection, or a frame takes its message past
     * {@code maxMessage} ({@link #tooLarge}).
     */
    public boolean feed(Bytes bytes, int length) {
        int i = 0;
        while (i < length) {
            if (remaining < 0) {
                header[have++] = (byte) bytes.get(i++);
                int need = need();
                if (have < need) {
                    continue;
                }
                start();
                if (tooLarge) {
                    return false;
                }
                if (remaining == 0) {
                    end();
                }
                continue;
            }
            int take = (int) Math.min(remaining, length - i);
            i += take;
            remaining -= take;
            if (data && !account.received(take)) {
                return false;
            }
            if (remaining == 0) {
                end();
            }
        }
        return true;
    }

    /** Header bytes this frame's header has, as far as known. */
    private int need() {
        if (have < 2) {
            return 2;
        }
        int len7 = header[1] & 0x7f;
        int ext = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
        int mask = (header[1] & 0x80) != 0 ? 4 : 0;
        return 2 + ext + mask;
    }

    private void start() {
        int opcode = header[0] & 0x0f;
        fin = (header[0] & 0x80) != 0;
        data = opcode < 8;
        int len7 = header[1] & 0x7f;
        long len = len7;
        if (len7 == 126) {
            len = ((header[2] & 0xff) << 8) | (header[3] & 0xff);
        } else if (len7 == 127) {
            len = 0;
            for (int k = 2; k < 10; k++) {
                len = (len << 8) | (header[k] & 0xff);
            }
            if (len < 0) {
                len = Long.MAX_VALUE; // not a valid length; the transport refuses the frame
            }
        }
        remaining = len;
        have = 0;
        if (data) {
            // a text or binary frame starts a message; a continuation (opcode 0) adds to it
            messageBytes = opcode == 0 ? messageBytes + len : len;
            if (maxMessage > 0 && (messageBytes > maxMessage || messageBytes < 0)) {
                tooLarge = true;
            }
        }
    }

    /** The frame is whole. */
    private void end() {
        remaining = -1;
        if (data && fin) {
            messageBytes = 0;
            account.completed();
        }
    }
}
