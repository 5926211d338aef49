package org.fleetmesh.negentropy;

/**
 * Unsigned 64-bit integers as base-128 digits, most significant first, the high bit set on every
 * byte but the last.
 */
public final class Varint {
    /** Ten digits hold 70 bits; anything longer cannot be a 64-bit value. */
    public static final int MAX_LENGTH = 10;

    private Varint() {
    }

    public static byte[] encode(long n) {
        if (n == 0) {
            return new byte[] {0};
        }
        int length = (64 - Long.numberOfLeadingZeros(n) + 6) / 7;
        byte[] out = new byte[length];
        for (int i = length - 1; i >= 0; i--) {
            out[i] = (byte) ((n & 0x7F) | (i == length - 1 ? 0 : 0x80));
            n >>>= 7;
        }
        return out;
    }

    public static long decode(byte[] bytes) {
        MessageReader reader = new MessageReader(bytes);
        long value = decode(reader);
        if (!reader.isEmpty()) {
            throw new NegentropyException("trailing bytes after varint");
        }
        return value;
    }

    static long decode(MessageReader reader) {
        long value = 0;
        for (int length = 1;; length++) {
            if (reader.isEmpty()) {
                throw new NegentropyException("premature end of varint");
            }
            if (length > MAX_LENGTH) {
                throw new NegentropyException("varint too long: more than " + MAX_LENGTH + " bytes");
            }
            int digit = reader.readByte();
            if ((value >>> 57) != 0) {
                throw new NegentropyException("varint overflows 64 bits");
            }
            value = (value << 7) | (digit & 0x7F);
            if ((digit & 0x80) == 0) {
                return value;
            }
        }
    }
}
