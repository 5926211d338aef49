package org.fleetmesh.identity.didcomm;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.engines.RFC3394WrapEngine;
import org.bouncycastle.crypto.params.KeyParameter;

/** AES Key Wrap (RFC 3394) with a 256-bit key-encryption key: the A256KW half of ECDH-ES+A256KW and ECDH-1PU+A256KW. */
final class AesKeyWrap {
    private AesKeyWrap() {
    }

    static byte[] wrap(byte[] kek, byte[] cek) {
        RFC3394WrapEngine engine = new RFC3394WrapEngine(AESEngine.newInstance());
        engine.init(true, new KeyParameter(kek));
        return engine.wrap(cek, 0, cek.length);
    }

    /** @throws DidcommException DECRYPTION_FAILED when the integrity check of RFC 3394 §2.2.3 fails */
    static byte[] unwrap(byte[] kek, byte[] encryptedKey, String kid) throws DidcommException {
        RFC3394WrapEngine engine = new RFC3394WrapEngine(AESEngine.newInstance());
        engine.init(false, new KeyParameter(kek));
        try {
            return engine.unwrap(encryptedKey, 0, encryptedKey.length);
        } catch (InvalidCipherTextException e) {
            throw new DidcommException(DidcommException.Reason.DECRYPTION_FAILED, "encrypted_key for " + kid
                    + " does not unwrap: a key other than the sender's, or an altered encrypted_key, epk, apu or apv");
        }
    }
}
