package org.fleetmesh.storage.postgres;

import java.nio.charset.StandardCharsets;

import org.fleetmesh.nostr.Hex;

/**
 * A stored event's wire JSON, as UTF-8, from the columns of its row (V11: {@code id}, {@code pubkey},
 * {@code created_at}, {@code kind}, {@code body}, {@code sig}): byte for byte {@code Event.json()}, the same text
 * the SQL rule of docs/spec/storage.md ("Compact rows") builds. Built here rather than in the statement because
 * PostgreSQL's {@code encode(..., 'hex')} and text concatenations cost about 2.6-3.7 µs a row on this machine (a
 * 500-event read spent 1.3 ms of its 4 ms on them; docs/BENCHMARKS.md "Ninth session"), where a table lookup here is
 * a small fraction of that, and the binary columns travel in half the bytes.
 *
 * <p>Pure: bytes and values in, bytes out.
 */
final class StoredJson {
    private static final byte[] ID = ascii("{\"id\":\"");
    private static final byte[] PUBKEY = ascii("\",\"pubkey\":\"");
    private static final byte[] CREATED_AT = ascii("\",\"created_at\":");
    private static final byte[] KIND = ascii(",\"kind\":");
    private static final byte[] TAGS = ascii(",\"tags\":");
    private static final byte[] SIG = ascii(",\"sig\":\"");
    private static final byte[] END = ascii("\"}");
    /** Every fixed part and the three hex fields: 64 + 64 + 128 hex digits. */
    private static final int FIXED = ID.length + PUBKEY.length + CREATED_AT.length + KIND.length + TAGS.length
            + SIG.length + END.length + 64 + 64 + 128;

    private StoredJson() {
    }

    /** Whether {@code json} begins with {@code {"id":"} and 64 lower-case hex digits, as every stored event's does. */
    static boolean startsWithId(byte[] buf, int offset, int length) {
        if (length < ID.length + 64) {
            return false;
        }
        for (int i = 0; i < ID.length; i++) {
            if (buf[offset + i] != ID[i]) {
                return false;
            }
        }
        for (int i = ID.length; i < ID.length + 64; i++) {
            byte b = buf[offset + i];
            if (!((b >= '0' && b <= '9') || (b >= 'a' && b <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The event's id from JSON that {@link #startsWithId}. Lower-case hex sorts as the bytes it encodes, so
     * {@link #BY_ID} compares the digits themselves.
     */
    static byte[] id(byte[] buf, int offset) {
        byte[] id = new byte[32];
        int p = offset + ID.length;
        for (int i = 0; i < 32; i++) {
            id[i] = (byte) (nibble(buf[p + 2 * i]) << 4 | nibble(buf[p + 2 * i + 1]));
        }
        return id;
    }

    private static int nibble(byte b) {
        return b <= '9' ? b - '0' : b - 'a' + 10;
    }

    /** Cache entries by their events' ids, lowest first (each entry's JSON {@link #startsWithId}). */
    static final java.util.Comparator<EventCache.Entry> BY_ID = (a, b) -> java.util.Arrays.compare(a.buf(),
            a.offset() + ID.length, a.offset() + ID.length + 64, b.buf(), b.offset() + ID.length,
            b.offset() + ID.length + 64);

    /**
     * @param body the row's {@code body} as UTF-8 (the tags array, {@code ,"content":} and the content string)
     * @throws IllegalArgumentException when a key or signature is not of its length (a row the writer did not write)
     */
    static byte[] utf8(byte[] id, byte[] pubkey, long createdAt, int kind, byte[] body, byte[] sig) {
        return utf8(0, 0, id, pubkey, createdAt, kind, body, sig);
    }

    /**
     * {@link #utf8(byte[], byte[], long, int, byte[], byte[])} at offset {@code head} of an array with {@code tail}
     * bytes after the JSON (zeros: a caller's frame around it, {@link EventReader#query}).
     */
    static byte[] utf8(int head, int tail, byte[] id, byte[] pubkey, long createdAt, int kind, byte[] body,
            byte[] sig) {
        if (id.length != 32 || pubkey.length != 32 || sig.length != 64) {
            throw new IllegalArgumentException("not a stored event's row: id " + id.length + ", pubkey " + pubkey.length
                    + ", sig " + sig.length + " bytes");
        }
        int createdDigits = digits(createdAt);
        int kindDigits = digits(kind);
        byte[] out = new byte[head + FIXED + createdDigits + kindDigits + body.length + tail];
        int p = put(out, head, ID);
        p = Hex.encode(id, out, p);
        p = put(out, p, PUBKEY);
        p = Hex.encode(pubkey, out, p);
        p = put(out, p, CREATED_AT);
        p = decimal(createdAt, createdDigits, out, p);
        p = put(out, p, KIND);
        p = decimal(kind, kindDigits, out, p);
        p = put(out, p, TAGS);
        p = put(out, p, body);
        p = put(out, p, SIG);
        p = Hex.encode(sig, out, p);
        put(out, p, END);
        return out;
    }

    /** The characters of {@code v} in decimal, as {@link Long#toString(long)} writes it (a '-' for a negative). */
    static int digits(long v) {
        if (v == Long.MIN_VALUE) {
            return 20;
        }
        int n = v < 0 ? 2 : 1;
        for (long x = Math.abs(v); x >= 10; x /= 10) {
            n++;
        }
        return n;
    }

    /** Writes {@code v} in decimal ({@code digits} characters, {@link #digits}) at {@code at}; returns the end. */
    private static int decimal(long v, int digits, byte[] out, int at) {
        if (v == Long.MIN_VALUE) {
            return put(out, at, ascii(Long.toString(v)));
        }
        int end = at + digits;
        long x = Math.abs(v);
        int p = end;
        do {
            out[--p] = (byte) ('0' + (int) (x % 10));
            x /= 10;
        } while (x != 0);
        if (v < 0) {
            out[--p] = '-';
        }
        return end;
    }

    private static int put(byte[] out, int at, byte[] part) {
        System.arraycopy(part, 0, out, at, part.length);
        return at + part.length;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
