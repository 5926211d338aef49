package org.fleetmesh.settlement.lightning.l402;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Optional;

import org.fleetmesh.spi.secrets.SecretFile;

/**
 * The node's secret for L402 macaroons (32 bytes). From, in order: a configured hex value, a
 * configured file, or {@code <data-dir>/keys/l402-root.key}, created on first start with mode 0600
 * ({@link SecretFile}, as the node's own keys are kept). A file readable by group or others is
 * refused. Replacing the key invalidates every token issued.
 */
public final class L402RootKey {
    public static final String FILE_NAME = "l402-root.key";
    private static final SecureRandom RANDOM = new SecureRandom();

    private L402RootKey() {
    }

    public static byte[] load(Optional<String> hex, Optional<Path> file, Path dataDir) {
        return SecretFile.load(hex, file, dataDir.resolve("keys").resolve(FILE_NAME), () -> {
            byte[] k = new byte[32];
            RANDOM.nextBytes(k);
            return k;
        }, "L402 root key");
    }
}
