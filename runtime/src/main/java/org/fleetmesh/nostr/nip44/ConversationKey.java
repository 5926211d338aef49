package org.fleetmesh.nostr.nip44;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.signers.BIP340Signer;
import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;

import fr.acinq.secp256k1.Secp256k1;

/**
 * The NIP-44 v2 {@code conversation_key} between two users:
 * {@code hkdf_extract(IKM=shared_x, salt="nip44-v2")}. The same from either side:
 * {@code of(a, B) equals of(b, A)}.
 */
public final class ConversationKey {
    private static final byte[] SALT = "nip44-v2".getBytes(StandardCharsets.US_ASCII);
    private static final BigInteger CURVE_ORDER = BIP340Signer.getDomain().getN();

    private final byte[] bytes;

    private ConversationKey(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * Derives the key from our secret key and the peer's x-only public key.
     *
     * @throws Nip44Exception if the secret key is not in {@code [1, n-1]} or the public key is not the
     *         x coordinate of a point on secp256k1
     */
    public static ConversationKey of(byte[] secretKey, PubKey peer) throws Nip44Exception {
        return fromSharedX(sharedX(secretKey, peer.unsafeBytes()));
    }

    /** {@code hkdf_extract(IKM=shared_x, salt="nip44-v2")}. */
    static ConversationKey fromSharedX(byte[] sharedX) {
        return new ConversationKey(hkdfExtract(SALT, sharedX));
    }

    /** A conversation key given as its 32 bytes (test vectors, a cache of derived keys). */
    public static ConversationKey ofBytes(byte[] key) {
        if (key.length != 32) {
            throw new IllegalArgumentException("a conversation key is 32 bytes, got " + key.length);
        }
        return new ConversationKey(key.clone());
    }

    public static ConversationKey ofHex(String hex) {
        return new ConversationKey(Hex.decode(hex, 32));
    }

    /** A copy of the 32 bytes. */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** The backing array without a copy, for this package's HKDF-expand. */
    byte[] unsafeBytes() {
        return bytes;
    }

    public String hex() {
        return Hex.encode(bytes);
    }

    /** The unhashed 32-byte x coordinate of {@code secretKey * lift_x(peer)}. */
    static byte[] sharedX(byte[] secretKey, byte[] peerX) throws Nip44Exception {
        return sharedX(secretKey, peerX, Schnorr.isNative());
    }

    /** Either path on demand, so tests hold libsecp256k1 and BouncyCastle to the same vectors. */
    static byte[] sharedX(byte[] secretKey, byte[] peerX, boolean useLibsecp256k1) throws Nip44Exception {
        if (secretKey.length != 32) {
            throw new Nip44Exception("invalid secret key: expected 32 bytes, got " + secretKey.length);
        }
        BigInteger d = new BigInteger(1, secretKey);
        if (d.signum() == 0 || d.compareTo(CURVE_ORDER) >= 0) {
            throw new Nip44Exception("invalid secret key: not in [1, n-1]");
        }
        byte[] compressed = new byte[33];
        compressed[0] = 0x02; // BIP-340 lift_x picks the even y; ECDH's x does not depend on it anyway
        System.arraycopy(peerX, 0, compressed, 1, 32);
        if (useLibsecp256k1) {
            try {
                // tweak_mul, not ecdh: libsecp256k1's ecdh hashes the point and NIP-44 wants x unhashed
                byte[] shared = Secp256k1.get().pubKeyTweakMul(compressed, secretKey);
                return Arrays.copyOfRange(shared, 1, 33);
            } catch (RuntimeException e) {
                throw new Nip44Exception("invalid public key: not a point on secp256k1");
            }
        }
        ECPoint p;
        try {
            p = BIP340Signer.getDomain().getCurve().decodePoint(compressed);
        } catch (RuntimeException e) {
            throw new Nip44Exception("invalid public key: not a point on secp256k1");
        }
        return p.multiply(d).normalize().getAffineXCoord().getEncoded();
    }

    /** HKDF-extract (RFC 5869) with SHA-256 is one HMAC keyed by the salt. */
    private static byte[] hkdfExtract(byte[] salt, byte[] ikm) {
        HMac mac = new HMac(new SHA256Digest());
        mac.init(new KeyParameter(salt));
        mac.update(ikm, 0, ikm.length);
        byte[] prk = new byte[32];
        mac.doFinal(prk, 0);
        return prk;
    }

    @Override
    public boolean equals(Object o) {
        // constant time: the key is a secret
        return o instanceof ConversationKey k && MessageDigest.isEqual(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Never the key itself: it ends up in logs. */
    @Override
    public String toString() {
        return "ConversationKey[redacted]";
    }
}
