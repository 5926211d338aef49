package org.fleetmesh.compute.market;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The sealed result (docs/spec/compute.md, "Sealed result"): ChaCha20-Poly1305 (RFC 8439, the JDK's) under the
 * 32-byte key k, a 12-byte nonce, and as additional data the 32 bytes of the request digest, so a ciphertext cannot be
 * passed off as another job's. The output is the ciphertext followed by the 16-byte tag.
 */
public final class Seal {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Seal() {
    }

    /** A sealed plaintext: the nonce and ciphertext‖tag. */
    public record Sealed(byte[] nonce, byte[] ciphertext) {
    }

    public static Sealed seal(byte[] key, String requestDigestHex, byte[] plaintext) {
        byte[] nonce = new byte[12];
        RANDOM.nextBytes(nonce);
        return new Sealed(nonce, seal(key, nonce, requestDigestHex, plaintext));
    }

    /** With a given nonce (the spec's vectors). */
    public static byte[] seal(byte[] key, byte[] nonce, String requestDigestHex, byte[] plaintext) {
        try {
            Cipher c = cipher(Cipher.ENCRYPT_MODE, key, nonce, requestDigestHex);
            return c.doFinal(plaintext);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("ChaCha20-Poly1305 is in every Java 11+ platform", e);
        }
    }

    /** The plaintext, or {@link MarketProtocolException} when the tag does not verify (wrong key, job or bytes). */
    public static byte[] open(byte[] key, byte[] nonce, String requestDigestHex, byte[] ciphertext)
            throws MarketProtocolException {
        try {
            Cipher c = cipher(Cipher.DECRYPT_MODE, key, nonce, requestDigestHex);
            return c.doFinal(ciphertext);
        } catch (AEADBadTagException e) {
            throw new MarketProtocolException("sealed result: the AEAD tag does not verify under the released key");
        } catch (GeneralSecurityException e) {
            throw new MarketProtocolException("sealed result: " + e.getMessage());
        }
    }

    private static Cipher cipher(int mode, byte[] key, byte[] nonce, String digestHex)
            throws GeneralSecurityException {
        if (key.length != 32 || nonce.length != 12) {
            throw new IllegalArgumentException("k is 32 bytes, the nonce 12");
        }
        Cipher c = Cipher.getInstance("ChaCha20-Poly1305");
        c.init(mode, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce));
        c.updateAAD(HexFormat.of().parseHex(digestHex));
        return c;
    }
}
