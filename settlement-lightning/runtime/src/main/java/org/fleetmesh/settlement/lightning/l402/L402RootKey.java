package org.fleetmesh.settlement.lightning.l402;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The node's secret for L402 macaroons (32 bytes). From, in order: a configured hex value, a
 * configured file, or {@code <data-dir>/keys/l402-root.key}, created on first start with mode 0600.
 * A file readable by group or others is refused. Replacing the key invalidates every token issued.
 */
public final class L402RootKey {
    public static final String FILE_NAME = "l402-root.key";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE);

    private L402RootKey() {
    }

    public static byte[] load(Optional<String> hex, Optional<Path> file, Path dataDir) {
        if (hex.isPresent()) {
            return parse(hex.get(), "fleetmesh.l402.root-key");
        }
        if (file.isPresent()) {
            return read(file.get());
        }
        Path f = dataDir.resolve("keys").resolve(FILE_NAME);
        if (Files.exists(f)) {
            return read(f);
        }
        return create(f);
    }

    private static byte[] read(Path f) {
        try {
            requireOwnerOnly(f);
            return parse(Files.readString(f, StandardCharsets.US_ASCII).strip(), "L402 root key file " + f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the L402 root key file " + f, e);
        }
    }

    private static void requireOwnerOnly(Path f) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(f);
        Set<PosixFilePermission> extra = EnumSet.copyOf(perms);
        extra.removeAll(OWNER_ONLY);
        if (!extra.isEmpty()) {
            throw new IllegalStateException("refusing to use " + f + ": its mode is " + PosixFilePermissions.toString(perms)
                    + "; the L402 root key must be readable by its owner only (chmod 600)");
        }
    }

    private static byte[] parse(String hex, String what) {
        String h = hex.strip().toLowerCase(Locale.ROOT);
        if (h.length() != 64 || !h.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalStateException("the " + what + " must be 64 hex characters (32 bytes)");
        }
        return HexFormat.of().parseHex(h);
    }

    private static byte[] create(Path f) {
        byte[] k = new byte[32];
        RANDOM.nextBytes(k);
        try {
            Files.createDirectories(f.getParent());
            Path tmp = f.resolveSibling(FILE_NAME + ".tmp");
            Files.deleteIfExists(tmp);
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            Files.writeString(tmp, HexFormat.of().formatHex(k) + "\n", StandardCharsets.US_ASCII, StandardOpenOption.WRITE);
            try {
                Files.createLink(f, tmp); // atomic, fails if another process created the key meanwhile
            } catch (FileAlreadyExistsException raced) {
                Files.deleteIfExists(tmp);
                return read(f);
            } catch (UnsupportedOperationException | IOException noLinks) {
                Files.move(tmp, f);
            }
            Files.deleteIfExists(tmp);
            return k;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the L402 root key " + f, e);
        }
    }
}
