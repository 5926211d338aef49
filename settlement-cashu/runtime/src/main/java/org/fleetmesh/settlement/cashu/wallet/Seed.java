package org.fleetmesh.settlement.cashu.wallet;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Optional;

import org.fleetmesh.settlement.cashu.crypto.Bip39;
import org.fleetmesh.spi.secrets.SecretFile;

/**
 * The wallet's NUT-13 seed: from a BIP-39 mnemonic when one is configured (another wallet restores the same proofs
 * from it), else the configured hex, else {@code <data-dir>/keys/cashu-seed.key} (32 random bytes as hex, mode 0600, made on
 * first use). The relay and the CLI read it the same way.
 */
public final class Seed {
    public static final String FILE = "cashu-seed.key";

    private Seed() {
    }

    /** This node's Cashu key (NUT-11 receiver of HTLCs, refund key of our locks): HMAC-SHA256(seed, "fleetmesh/cashu/p2pk") mod n. */
    public static byte[] lockKey(byte[] seed) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(seed, "HmacSHA256"));
            byte[] k = mac.doFinal("fleetmesh/cashu/p2pk".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            java.math.BigInteger s = new java.math.BigInteger(1, k).mod(org.fleetmesh.settlement.cashu.crypto.Secp256k1.N);
            return org.fleetmesh.settlement.cashu.crypto.Secp256k1.bytes32(s.signum() == 0 ? java.math.BigInteger.ONE : s);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The compressed public key (66 hex) of {@link #lockKey}. */
    public static String lockPublicKey(byte[] seed) {
        return org.fleetmesh.settlement.cashu.crypto.Secp256k1.hex(org.fleetmesh.settlement.cashu.crypto.Secp256k1
                .mulG(new java.math.BigInteger(1, lockKey(seed))));
    }

    public static byte[] load(Optional<String> mnemonic, Optional<String> hex, Optional<Path> file, Path dataDir) {
        if (mnemonic.isPresent() && !mnemonic.get().isBlank()) {
            return Bip39.seed(mnemonic.get(), "");
        }
        return SecretFile.load(hex.filter(h -> !h.isBlank()), file, dataDir.resolve("keys").resolve(FILE), () -> {
            byte[] b = new byte[32];
            new SecureRandom().nextBytes(b);
            return b;
        }, "Cashu wallet seed");
    }
}
