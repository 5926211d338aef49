package org.fleetmesh.negentropy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growing outgoing message or message part. */
final class MessageWriter {
    private static final VarHandle LIMB = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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

    /** Writes the 32-byte id held as four little-endian limbs at {@code limbs[off .. off+3]}. */
    MessageWriter writeIdLimbs(long[] limbs, int off) {
        ensure(Id.SIZE);
        LIMB.set(bytes, size, limbs[off]);
        LIMB.set(bytes, size + 8, limbs[off + 1]);
        LIMB.set(bytes, size + 16, limbs[off + 2]);
        LIMB.set(bytes, size + 24, limbs[off + 3]);
        size += Id.SIZE;
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
