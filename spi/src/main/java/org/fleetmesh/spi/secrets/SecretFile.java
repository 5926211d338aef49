package org.fleetmesh.spi.secrets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A node secret of 32 bytes, as every fleetmesh key is kept: a configured hex value, else a
 * configured file, else a default file created on first use. Files hold the key as 64 hex
 * characters and a newline, mode 0600 (their directory 0700 when created here); a file readable by
 * group or others is refused. Creation is safe against a concurrent process: the key is written to
 * a private temporary file and linked into place, so nobody reads a half-written key, and a loser
 * of the race reads the winner's key. The file's content is forced to disk before it is linked and
 * the directory after, so a power loss cannot leave an empty or missing key behind a node that
 * already used it.
 */
public final class SecretFile {
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE);

    private SecretFile() {
    }

    /**
     * @param what      names the secret in messages, e.g. {@code "transport key"}
     * @param generate  makes a fresh key when the default file does not exist yet
     */
    public static byte[] load(Optional<String> hex, Optional<Path> file, Path defaultFile, Supplier<byte[]> generate,
            String what) {
        if (hex.isPresent()) {
            return parse(hex.get(), what + " from configuration");
        }
        if (file.isPresent()) {
            return read(file.get(), what);
        }
        if (Files.exists(defaultFile)) {
            return read(defaultFile, what);
        }
        return create(defaultFile, generate.get(), what);
    }

    /** Reads a key file, refusing one that group or others may read. */
    public static byte[] read(Path file, String what) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            Set<PosixFilePermission> extra = EnumSet.copyOf(perms);
            extra.removeAll(OWNER_ONLY);
            if (!extra.isEmpty()) {
                throw new IllegalStateException("refusing to use " + file + ": its mode is " + PosixFilePermissions.toString(perms)
                        + "; the " + what + " file must be readable by its owner only (chmod 600)");
            }
            return parse(Files.readString(file, StandardCharsets.US_ASCII).strip(), what + " file " + file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the " + what + " file " + file, e);
        }
    }

    /** 64 hex characters, either case, surrounding blanks ignored. */
    public static byte[] parse(String hex, String what) {
        String h = hex.strip().toLowerCase(Locale.ROOT);
        if (h.length() != 64 || !h.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw new IllegalStateException("the " + what + " must be 64 hex characters (32 bytes)");
        }
        return HexFormat.of().parseHex(h);
    }

    /** Forces a file's or a directory's content and metadata to disk. */
    @FunctionalInterface
    interface Fsync {
        void force(Path path) throws IOException;
    }

    /** fsync(2) through {@link FileChannel#force}; a directory is opened read-only, as POSIX allows on Linux. */
    static void force(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, Files.isDirectory(path) ? StandardOpenOption.READ : StandardOpenOption.WRITE)) {
            ch.force(true);
        } catch (IOException e) {
            if (Files.isDirectory(path)) {
                return; // some systems (and file systems) cannot open or sync a directory; the file itself is synced
            }
            throw e;
        }
    }

    /** Writes {@code key} to {@code file} (0600) unless another process got there first; returns the key in the file. */
    static byte[] create(Path file, byte[] key, String what) {
        return create(file, key, what, SecretFile::force);
    }

    static byte[] create(Path file, byte[] key, String what, Fsync fsync) {
        Path tmp = null;
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            // a unique name: concurrent creators (threads or processes) each write their own
            tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            Files.writeString(tmp, HexFormat.of().formatHex(key) + "\n", StandardCharsets.US_ASCII, StandardOpenOption.WRITE);
            fsync.force(tmp); // the content is on disk before any name points at it
            try {
                Files.createLink(file, tmp); // atomic; fails if another process created the key meanwhile
            } catch (FileAlreadyExistsException raced) {
                return read(file, what);
            } catch (UnsupportedOperationException | IOException noHardLinks) {
                try {
                    Files.move(tmp, file); // no hard links on this file system: a move, which also refuses to overwrite
                } catch (FileAlreadyExistsException raced) {
                    return read(file, what);
                }
            }
            Files.deleteIfExists(tmp);
            fsync.force(dir); // the new name (and the removed temporary one) survive a power loss
            return key.clone();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the " + what + " file " + file, e);
        } finally {
            try {
                if (tmp != null) {
                    Files.deleteIfExists(tmp);
                }
            } catch (IOException ignored) {
                // a leftover temporary file holds nothing the real key file does not
            }
            Arrays.fill(key, (byte) 0);
        }
    }
}
