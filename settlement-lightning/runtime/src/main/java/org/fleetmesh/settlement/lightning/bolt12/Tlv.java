package org.fleetmesh.settlement.lightning.bolt12;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;

/**
 * One record of a BOLT #1 TLV stream: its type, its value, and the record's exact encoding
 * ({@code BigSize type || BigSize length || value}), which is what the BOLT #12 Merkle leaves hash.
 * Types are unsigned 64-bit numbers held in a {@code long}; compare them with {@link Long#compareUnsigned}.
 */
public final class Tlv {
    private final long type;
    private final byte[] value;
    private final byte[] encoded;

    private Tlv(long type, byte[] value, byte[] encoded) {
        this.type = type;
        this.value = value;
        this.encoded = encoded;
    }

    /** A record with the minimal encoding of its type and length. */
    public static Tlv of(long type, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 18);
        out.writeBytes(bigSize(type));
        out.writeBytes(bigSize(value.length));
        out.writeBytes(value);
        return new Tlv(type, value.clone(), out.toByteArray());
    }

    public long type() {
        return type;
    }

    public byte[] value() {
        return value.clone();
    }

    byte[] unsafeValue() {
        return value;
    }

    /** {@code type || length || value} as it appeared in the stream. */
    public byte[] encoded() {
        return encoded.clone();
    }

    byte[] unsafeEncoded() {
        return encoded;
    }

    /** The BigSize encoding of the type: the message of the record's {@code LnNonce} leaf. */
    public byte[] typeBytes() {
        return bigSize(type);
    }

    public String valueHex() {
        return Hex.encode(value);
    }

    /**
     * Parses a whole TLV stream: every type and length a minimal BigSize, every value within the data,
     * types strictly increasing. Which types are allowed is the message's business, not the stream's.
     */
    public static List<Tlv> parseStream(byte[] data) throws Bolt12Exception {
        List<Tlv> records = new ArrayList<>();
        int[] at = {0};
        Long previous = null;
        while (at[0] < data.length) {
            int start = at[0];
            long type = readBigSize(data, at, "type");
            long length = readBigSize(data, at, "length of type " + Long.toUnsignedString(type));
            if (Long.compareUnsigned(length, data.length - at[0]) > 0) {
                throw new Bolt12Exception(Reason.TRUNCATED, "type " + Long.toUnsignedString(type) + " claims "
                        + Long.toUnsignedString(length) + " bytes, " + (data.length - at[0]) + " are left");
            }
            if (previous != null && Long.compareUnsigned(type, previous) <= 0) {
                throw new Bolt12Exception(Reason.TYPES_NOT_ASCENDING, "type " + Long.toUnsignedString(type)
                        + " follows type " + Long.toUnsignedString(previous));
            }
            previous = type;
            byte[] value = Arrays.copyOfRange(data, at[0], at[0] + (int) length);
            at[0] += (int) length;
            records.add(new Tlv(type, value, Arrays.copyOfRange(data, start, at[0])));
        }
        return List.copyOf(records);
    }

    /** Reads a BigSize at {@code at[0]}, refusing truncation and non-minimal encodings. */
    static long readBigSize(byte[] data, int[] at, String what) throws Bolt12Exception {
        if (at[0] >= data.length) {
            throw new Bolt12Exception(Reason.TRUNCATED, "data ends before the " + what);
        }
        int first = data[at[0]] & 0xff;
        int width;
        long minimum;
        if (first < 0xfd) {
            at[0]++;
            return first;
        } else if (first == 0xfd) {
            width = 2;
            minimum = 0xfd;
        } else if (first == 0xfe) {
            width = 4;
            minimum = 0x10000;
        } else {
            width = 8;
            minimum = 0x100000000L;
        }
        if (data.length - at[0] - 1 < width) {
            throw new Bolt12Exception(Reason.TRUNCATED, "data ends inside the " + what);
        }
        long v = 0;
        for (int i = 1; i <= width; i++) {
            v = (v << 8) | (data[at[0] + i] & 0xff);
        }
        if (Long.compareUnsigned(v, minimum) < 0) {
            throw new Bolt12Exception(Reason.NON_MINIMAL_BIGSIZE, "the " + what + " " + Long.toUnsignedString(v)
                    + " is not minimally encoded");
        }
        at[0] += 1 + width;
        return v;
    }

    /** The minimal BigSize encoding of an unsigned 64-bit number. */
    static byte[] bigSize(long v) {
        if (Long.compareUnsigned(v, 0xfd) < 0) {
            return new byte[] {(byte) v};
        }
        int width = Long.compareUnsigned(v, 0x10000) < 0 ? 2 : Long.compareUnsigned(v, 0x100000000L) < 0 ? 4 : 8;
        byte[] out = new byte[1 + width];
        out[0] = (byte) (width == 2 ? 0xfd : width == 4 ? 0xfe : 0xff);
        for (int i = 0; i < width; i++) {
            out[width - i] = (byte) (v >>> (8 * i));
        }
        return out;
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(type) + ":" + valueHex();
    }
}
