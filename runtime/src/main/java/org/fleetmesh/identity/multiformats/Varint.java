package org.fleetmesh.identity.multiformats;

import java.io.ByteArrayOutputStream;

/**
 * The multiformats unsigned varint: seven bits a byte, least significant group first, high bit set on every
 * byte but the last. The spec caps it at 9 bytes (63 bits) and requires the shortest encoding.
 */
public final class Varint {
    private static final int MAX_BYTES = 9;

    private Varint() {
    }

    /** A value read from bytes and how many bytes it took. */
    public record Read(long value, int length) {
    }

    public static byte[] encode(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("unsigned varints are not negative: " + value);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(MAX_BYTES);
        do {
            int group = (int) (value & 0x7f);
            value >>>= 7;
            out.write(value == 0 ? group : group | 0x80);
        } while (value != 0);
        return out.toByteArray();
    }

    public static Read decode(byte[] bytes, int offset) {
        long value = 0;
        for (int i = 0; i < MAX_BYTES; i++) {
            if (offset + i >= bytes.length) {
                throw new MultiformatException("varint is truncated after " + i + " byte(s)");
            }
            int b = bytes[offset + i] & 0xff;
            value |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                // a final zero group after the first byte means a longer encoding than needed
                if (b == 0 && i > 0) {
                    throw new MultiformatException("varint is not minimally encoded");
                }
                return new Read(value, i + 1);
            }
        }
        throw new MultiformatException("varint is longer than " + MAX_BYTES + " bytes");
    }
}
