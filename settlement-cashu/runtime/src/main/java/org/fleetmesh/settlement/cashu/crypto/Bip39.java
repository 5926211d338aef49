package org.fleetmesh.settlement.cashu.crypto;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import org.bouncycastle.crypto.digests.SHA512Digest;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.params.KeyParameter;

/** BIP-39 mnemonic to seed (the wordlist checksum is not checked here). */
public final class Bip39 {
    private Bip39() {
    }

    /** PBKDF2-HMAC-SHA512(NFKD(mnemonic), "mnemonic" + NFKD(passphrase), 2048 iterations) -> 64 bytes. */
    public static byte[] seed(String mnemonic, String passphrase) {
        if (mnemonic == null || mnemonic.isBlank()) {
            throw new IllegalArgumentException("mnemonic is missing");
        }
        byte[] password = Normalizer.normalize(mnemonic, Normalizer.Form.NFKD).getBytes(StandardCharsets.UTF_8);
        String salt = "mnemonic" + Normalizer.normalize(passphrase == null ? "" : passphrase, Normalizer.Form.NFKD);
        PKCS5S2ParametersGenerator gen = new PKCS5S2ParametersGenerator(new SHA512Digest());
        gen.init(password, salt.getBytes(StandardCharsets.UTF_8), 2048);
        return ((KeyParameter) gen.generateDerivedParameters(512)).getKey();
    }
}
