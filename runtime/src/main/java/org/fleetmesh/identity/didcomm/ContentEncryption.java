package org.fleetmesh.identity.didcomm;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Optional;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.modes.XChaCha20Poly1305;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The JWE content encryption algorithms DIDComm allows ({@code enc}, DIDComm Messaging v2.1 §Curves and Content
 * Encryption Algorithms): A256CBC-HS512 (RFC 7518 §5.2.5, required, the only one for authcrypt), A256GCM
 * (RFC 7518 §5.3) and XC20P (draft-amringer-jose-chacha-02) for anoncrypt.
 */
public enum ContentEncryption {
    A256CBC_HS512("A256CBC-HS512", 64, 16, 32),
    A256GCM("A256GCM", 32, 12, 16),
    XC20P("XC20P", 32, 24, 16);

    private final String jwaName;
    private final int keyLength;
    private final int ivLength;
    private final int tagLength;

    ContentEncryption(String jwaName, int keyLength, int ivLength, int tagLength) {
        this.jwaName = jwaName;
        this.keyLength = keyLength;
        this.ivLength = ivLength;
        this.tagLength = tagLength;
    }

    /** The {@code enc} header value. */
    public String jwaName() {
        return jwaName;
    }

    /** Bytes of content encryption key. */
    public int keyLength() {
        return keyLength;
    }

    public int ivLength() {
        return ivLength;
    }

    public int tagLength() {
        return tagLength;
    }

    public static Optional<ContentEncryption> of(String enc) {
        for (ContentEncryption c : values()) {
            if (c.jwaName.equals(enc)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** Ciphertext and authentication tag. */
    record Sealed(byte[] ciphertext, byte[] tag) {
    }

    Sealed encrypt(byte[] cek, byte[] iv, byte[] aad, byte[] plaintext) {
        requireLengths(cek, iv);
        try {
            return switch (this) {
                case A256CBC_HS512 -> {
                    byte[] ciphertext = aesCbc(Cipher.ENCRYPT_MODE, cek, iv, plaintext);
                    yield new Sealed(ciphertext, cbcHmacTag(cek, iv, aad, ciphertext));
                }
                case A256GCM -> {
                    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
                    gcm.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(cek, "AES"), new GCMParameterSpec(tagLength * 8, iv));
                    gcm.updateAAD(aad);
                    yield split(gcm.doFinal(plaintext));
                }
                case XC20P -> {
                    XChaCha20Poly1305 xc = xchacha(true, cek, iv, aad);
                    byte[] out = new byte[xc.getOutputSize(plaintext.length)];
                    int n = xc.processBytes(plaintext, 0, plaintext.length, out, 0);
                    xc.doFinal(out, n);
                    yield split(out);
                }
            };
        } catch (GeneralSecurityException | InvalidCipherTextException e) {
            throw new IllegalStateException(jwaName + " encryption failed on valid input", e);
        }
    }

    /** @throws DidcommException DECRYPTION_FAILED when the tag does not verify (tampered ciphertext, iv, tag or AAD, or a wrong key) */
    byte[] decrypt(byte[] cek, byte[] iv, byte[] aad, byte[] ciphertext, byte[] tag) throws DidcommException {
        requireLengths(cek, iv);
        if (tag.length != tagLength) {
            throw DidcommException.malformed(jwaName + " tag is " + tagLength + " bytes, got " + tag.length);
        }
        try {
            return switch (this) {
                case A256CBC_HS512 -> {
                    // MAC before decryption: no padding oracle
                    if (!MessageDigest.isEqual(cbcHmacTag(cek, iv, aad, ciphertext), tag)) {
                        throw tagMismatch();
                    }
                    yield aesCbc(Cipher.DECRYPT_MODE, cek, iv, ciphertext);
                }
                case A256GCM -> {
                    Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
                    gcm.init(Cipher.DECRYPT_MODE, new SecretKeySpec(cek, "AES"), new GCMParameterSpec(tagLength * 8, iv));
                    gcm.updateAAD(aad);
                    yield gcm.doFinal(concat(ciphertext, tag));
                }
                case XC20P -> {
                    XChaCha20Poly1305 xc = xchacha(false, cek, iv, aad);
                    byte[] in = concat(ciphertext, tag);
                    byte[] out = new byte[xc.getOutputSize(in.length)];
                    int n = xc.processBytes(in, 0, in.length, out, 0);
                    xc.doFinal(out, n);
                    yield out;
                }
            };
        } catch (AEADBadTagException | InvalidCipherTextException e) {
            throw tagMismatch();
        } catch (GeneralSecurityException e) {
            // after the MAC has verified, bad CBC padding means the sender encrypted garbage
            throw new DidcommException(DidcommException.Reason.DECRYPTION_FAILED, jwaName + ": " + e.getMessage());
        }
    }

    private DidcommException tagMismatch() {
        return new DidcommException(DidcommException.Reason.DECRYPTION_FAILED, jwaName
                + " authentication tag does not verify: ciphertext, iv, tag or protected header altered, or a wrong key");
    }

    private void requireLengths(byte[] cek, byte[] iv) {
        if (cek.length != keyLength || iv.length != ivLength) {
            throw new IllegalArgumentException(jwaName + " needs a " + keyLength + "-byte key and a " + ivLength
                    + "-byte iv");
        }
    }

    /** RFC 7518 §5.2.2.1: MAC_KEY is the first half of the key, ENC_KEY the second. */
    private static byte[] aesCbc(int mode, byte[] cek, byte[] iv, byte[] input) throws GeneralSecurityException {
        Cipher cbc = Cipher.getInstance("AES/CBC/PKCS5Padding");
        cbc.init(mode, new SecretKeySpec(cek, 32, 32, "AES"), new IvParameterSpec(iv));
        return cbc.doFinal(input);
    }

    /** RFC 7518 §5.2.2.1 steps 5-6: HMAC-SHA-512(MAC_KEY, A ‖ IV ‖ E ‖ AL), first 32 bytes; AL is A's bit length. */
    private static byte[] cbcHmacTag(byte[] cek, byte[] iv, byte[] aad, byte[] ciphertext) throws GeneralSecurityException {
        Mac hmac = Mac.getInstance("HmacSHA512");
        hmac.init(new SecretKeySpec(cek, 0, 32, "HmacSHA512"));
        hmac.update(aad);
        hmac.update(iv);
        hmac.update(ciphertext);
        hmac.update(ByteBuffer.allocate(8).putLong((long) aad.length * 8).array());
        return Arrays.copyOf(hmac.doFinal(), 32);
    }

    private static XChaCha20Poly1305 xchacha(boolean encrypt, byte[] cek, byte[] iv, byte[] aad) {
        XChaCha20Poly1305 xc = new XChaCha20Poly1305();
        xc.init(encrypt, new AEADParameters(new KeyParameter(cek), 128, iv, aad));
        return xc;
    }

    private Sealed split(byte[] ciphertextAndTag) {
        int n = ciphertextAndTag.length - tagLength;
        return new Sealed(Arrays.copyOf(ciphertextAndTag, n), Arrays.copyOfRange(ciphertextAndTag, n, ciphertextAndTag.length));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
