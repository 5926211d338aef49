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

    /**
     * @param body the row's {@code body} as UTF-8 (the tags array, {@code ,"content":} and the content string)
     * @throws IllegalArgumentException when a key or signature is not of its length (a row the writer did not write)
     */
    static byte[] utf8(byte[] id, byte[] pubkey, long createdAt, int kind, byte[] body, byte[] sig) {
        if (id.length != 32 || pubkey.length != 32 || sig.length != 64) {
            throw new IllegalArgumentException("not a stored event's row: id " + id.length + ", pubkey " + pubkey.length
                    + ", sig " + sig.length + " bytes");
        }
        byte[] created = ascii(Long.toString(createdAt));
        byte[] kindText = ascii(Integer.toString(kind));
        byte[] out = new byte[FIXED + created.length + kindText.length + body.length];
        int p = put(out, 0, ID);
        p = Hex.encode(id, out, p);
        p = put(out, p, PUBKEY);
        p = Hex.encode(pubkey, out, p);
        p = put(out, p, CREATED_AT);
        p = put(out, p, created);
        p = put(out, p, KIND);
        p = put(out, p, kindText);
        p = put(out, p, TAGS);
        p = put(out, p, body);
        p = put(out, p, SIG);
        p = Hex.encode(sig, out, p);
        put(out, p, END);
        return out;
    }

    private static int put(byte[] out, int at, byte[] part) {
        System.arraycopy(part, 0, out, at, part.length);
        return at + part.length;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
