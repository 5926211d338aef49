package org.fleetmesh.identity.multiformats;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/** SHA2-256 multihashes: {@code 0x12 0x20 ‖ digest}, the only hash did:peer:3 and did:peer:4 use. */
public final class Multihash {
    private static final int SHA256_LENGTH = 32;

    private Multihash() {
    }

    public static byte[] sha256(byte[] data) {
        byte[] out = new byte[2 + SHA256_LENGTH];
        out[0] = (byte) Multicodec.SHA2_256.code();
        out[1] = SHA256_LENGTH;
        System.arraycopy(sha256Digest(data), 0, out, 2, SHA256_LENGTH);
        return out;
    }

    /** The digest inside a SHA2-256 multihash, after checking its code and length. */
    public static byte[] sha256DigestOf(byte[] multihash) {
        Varint.Read code = Varint.decode(multihash, 0);
        if (code.value() != Multicodec.SHA2_256.code()) {
            throw new MultiformatException("multihash code 0x" + Long.toHexString(code.value()) + " is not sha2-256 (0x12)");
        }
        Varint.Read length = Varint.decode(multihash, code.length());
        int start = code.length() + length.length();
        if (length.value() != SHA256_LENGTH || multihash.length - start != SHA256_LENGTH) {
            throw new MultiformatException("sha2-256 multihash must carry 32 digest bytes, declares " + length.value()
                    + " and carries " + (multihash.length - start));
        }
        return Arrays.copyOfRange(multihash, start, multihash.length);
    }

    private static byte[] sha256Digest(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
