package org.fleetmesh.peering;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/**
 * What a proof signs (docs/spec/mesh-link.md, "Transcript"): seven length-prefixed fields, each a 4-byte
 * big-endian length then its bytes.
 *
 * <pre>
 * context            "fleetmesh/mesh-auth/v1" (ASCII)
 * role               "initiator" | "responder" (ASCII): the signer's side
 * initiator DID      SHA-256 of the initiator's DID (UTF-8)
 * responder DID      SHA-256 of the responder's DID (UTF-8)
 * initiator challenge 32 bytes
 * responder challenge 32 bytes
 * time               the signer's time, seconds since 1970, 8-byte big-endian signed
 * </pre>
 *
 * The Ed25519 {@code sig} signs these bytes; the BIP-340 {@code nostr_sig} signs their SHA-256.
 */
public final class Transcript {
    /** Domain separation; a later protocol version has its own context. */
    public static final String CONTEXT = "fleetmesh/mesh-auth/v1";

    private final byte[] bytes;

    private Transcript(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Transcript of(Role signer, String initiatorDid, String responderDid, Challenge initiatorChallenge,
            Challenge responderChallenge, long time) {
        Objects.requireNonNull(signer, "signer");
        ByteArrayOutputStream out = new ByteArrayOutputStream(200);
        field(out, CONTEXT.getBytes(StandardCharsets.US_ASCII));
        field(out, signer.label().getBytes(StandardCharsets.US_ASCII));
        field(out, sha256(initiatorDid.getBytes(StandardCharsets.UTF_8)));
        field(out, sha256(responderDid.getBytes(StandardCharsets.UTF_8)));
        field(out, initiatorChallenge.bytes());
        field(out, responderChallenge.bytes());
        field(out, ByteBuffer.allocate(Long.BYTES).putLong(time).array());
        return new Transcript(out.toByteArray());
    }

    /** The bytes the Ed25519 {@code sig} signs. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** SHA-256 of the bytes: the 32-byte message of the BIP-340 {@code nostr_sig}. */
    public byte[] hash() {
        return sha256(bytes);
    }

    private static void field(ByteArrayOutputStream out, byte[] value) {
        out.writeBytes(ByteBuffer.allocate(Integer.BYTES).putInt(value.length).array());
        out.writeBytes(value);
    }

    static byte[] sha256(byte[] input) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(input);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
