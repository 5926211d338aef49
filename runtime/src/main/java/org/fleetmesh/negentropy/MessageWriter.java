package org.fleetmesh.negentropy;

import java.util.Arrays;

/** A growing outgoing message or message part. */
final class MessageWriter {
    private byte[] bytes = new byte[64];
    private int size;

    int size() {
        return size;
    }

    MessageWriter write(int b) {
        ensure(1);
        bytes[size++] = (byte) b;
        return this;
    }

    MessageWriter write(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
        return this;
    }

    MessageWriter write(MessageWriter other) {
        ensure(other.size);
        System.arraycopy(other.bytes, 0, bytes, size, other.size);
        size += other.size;
        return this;
    }

    MessageWriter writeVarint(long n) {
        return write(Varint.encode(n));
    }

    byte[] toBytes() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int extra) {
        if (size + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + extra));
        }
    }
}
