package org.fleetmesh.nostr.nip44;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

/**
 * The per-message keys of NIP-44 v2: {@code hkdf_expand(PRK=conversation_key, info=nonce, L=76)}
 * sliced into {@code chacha_key} (32), {@code chacha_nonce} (12) and {@code hmac_key} (32).
 */
record MessageKeys(byte[] chachaKey, byte[] chachaNonce, byte[] hmacKey) {

    static MessageKeys of(ConversationKey conversationKey, byte[] nonce) {
        if (nonce.length != 32) {
            throw new IllegalArgumentException("a NIP-44 nonce is 32 bytes, got " + nonce.length);
        }
        HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
        hkdf.init(HKDFParameters.skipExtractParameters(conversationKey.unsafeBytes(), nonce));
        byte[] keys = new byte[76];
        hkdf.generateBytes(keys, 0, 76);
        byte[] chachaKey = new byte[32];
        byte[] chachaNonce = new byte[12];
        byte[] hmacKey = new byte[32];
        System.arraycopy(keys, 0, chachaKey, 0, 32);
        System.arraycopy(keys, 32, chachaNonce, 0, 12);
        System.arraycopy(keys, 44, hmacKey, 0, 32);
        return new MessageKeys(chachaKey, chachaNonce, hmacKey);
    }
}
