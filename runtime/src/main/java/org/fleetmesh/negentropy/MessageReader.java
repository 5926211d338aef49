package org.fleetmesh.negentropy;

import java.util.Arrays;

/** A cursor over an incoming message; every read fails cleanly at the end instead of overrunning. */
final class MessageReader {
    private final byte[] bytes;
    private int position;

    MessageReader(byte[] bytes) {
        this.bytes = bytes;
    }

    boolean isEmpty() {
        return position == bytes.length;
    }

    int readByte() {
        if (isEmpty()) {
            throw new NegentropyException("parse ends prematurely");
        }
        return bytes[position++] & 0xFF;
    }

    byte[] readBytes(long n) {
        if (n < 0 || n > bytes.length - position) {
            throw new NegentropyException("parse ends prematurely");
        }
        byte[] out = Arrays.copyOfRange(bytes, position, position + (int) n);
        position += (int) n;
        return out;
    }
}
