package org.fleetmesh.settlement.lightning.bolt12;

import fr.acinq.secp256k1.Secp256k1;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;

/**
 * The "Signature Calculation" of BOLT #12: BIP-340 tagged hashes H(tag, msg) =
 * SHA256(SHA256(tag) || SHA256(tag) || msg), a Merkle tree over the non-signature TLV records, and
 * BIP-340 signatures over H("lightning" || messagename || fieldname, root).
 */
public final class Merkle {
    /** Types 240 to 1000 inclusive are signature elements: they sign the tree and are not in it. */
    public static final long FIRST_SIGNATURE_TYPE = 240;
    public static final long LAST_SIGNATURE_TYPE = 1000;

    private Merkle() {
    }

    public static boolean isSignatureType(long type) {
        return Long.compareUnsigned(type, FIRST_SIGNATURE_TYPE) >= 0 && Long.compareUnsigned(type, LAST_SIGNATURE_TYPE) <= 0;
    }

    /** H(tag, msg) with the tag's UTF-8 bytes. */
    public static byte[] taggedHash(String tag, byte[] msg) {
        return taggedHash(tag.getBytes(StandardCharsets.UTF_8), msg);
    }

    /** H(tag, msg) with a binary tag, as {@code "LnNonce" || first-tlv} is. */
    public static byte[] taggedHash(byte[] tag, byte[] msg) {
        MessageDigest sha = sha256();
        byte[] tagHash = sha.digest(tag);
        sha.update(tagHash);
        sha.update(tagHash);
        sha.update(msg);
        return sha.digest();
    }

    /** H("LnLeaf", tlv): the leaf of one record. */
    public static byte[] leaf(Tlv tlv) {
        return taggedHash("LnLeaf", tlv.unsafeEncoded());
    }

    /** H("LnNonce" || first-tlv, tlv-type): the nonce leaf paired with one record. */
    public static byte[] nonce(Tlv first, Tlv tlv) {
        byte[] prefix = "LnNonce".getBytes(StandardCharsets.US_ASCII);
        byte[] tag = Arrays.copyOf(prefix, prefix.length + first.unsafeEncoded().length);
        System.arraycopy(first.unsafeEncoded(), 0, tag, prefix.length, first.unsafeEncoded().length);
        return taggedHash(tag, tlv.typeBytes());
    }

    /** H("LnBranch", lesser || greater): the inner node over two children, ordered bytewise. */
    public static byte[] branch(byte[] a, byte[] b) {
        boolean aFirst = Arrays.compareUnsigned(a, b) < 0;
        byte[] msg = new byte[64];
        System.arraycopy(aFirst ? a : b, 0, msg, 0, 32);
        System.arraycopy(aFirst ? b : a, 0, msg, 32, 32);
        return taggedHash("LnBranch", msg);
    }

    /**
     * The Merkle root over the records of a stream that are not signature elements (240..1000), taken in
     * order: each record's leaf paired with its nonce, then neighbours joined level by level, an odd last
     * node carried up unchanged, so the deeper subtrees sit on the lower types.
     *
     * @throws IllegalArgumentException if no record is outside the signature range
     */
    public static byte[] root(List<Tlv> stream) {
        List<Tlv> signed = stream.stream().filter(t -> !isSignatureType(t.type())).toList();
        if (signed.isEmpty()) {
            throw new IllegalArgumentException("a Merkle tree needs at least one non-signature record");
        }
        Tlv first = signed.get(0);
        List<byte[]> level = new ArrayList<>(signed.size());
        for (Tlv tlv : signed) {
            level.add(branch(leaf(tlv), nonce(first, tlv)));
        }
        while (level.size() > 1) {
            List<byte[]> up = new ArrayList<>((level.size() + 1) / 2);
            for (int i = 0; i < level.size(); i += 2) {
                up.add(i + 1 < level.size() ? branch(level.get(i), level.get(i + 1)) : level.get(i));
            }
            level = up;
        }
        return level.get(0);
    }

    /** The 32 bytes a signature element signs: H("lightning" || messageName || fieldName, root). */
    public static byte[] signatureMessage(String messageName, String fieldName, byte[] root) {
        return taggedHash("lightning" + messageName + fieldName, root);
    }

    /**
     * BIP-340 verification of a 64-byte signature over {@code message} by the x coordinate of a compressed
     * key (BOLT #12 keys are 33-byte points; BIP-340 takes the even-y point of their x).
     */
    public static boolean verify(byte[] signature, byte[] message, NodeId key) {
        if (signature.length != 64 || message.length != 32) {
            return false;
        }
        byte[] xOnly = Arrays.copyOfRange(key.bytes(), 1, 33);
        try {
            return Secp256k1.get().verifySchnorr(signature, message, xOnly);
        } catch (RuntimeException e) { // libsecp256k1 throws on an x that is not on the curve
            return false;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM ships SHA-256", e);
        }
    }
}
