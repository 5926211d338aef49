package org.fleetmesh.identity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.OptionalLong;

/**
 * One node per data dir: the relay holds an exclusive lock on {@code <data-dir>/node.lock} for as long as it runs,
 * with its pid written in the file. A second relay started on the same data dir would serve the same DID twice: two
 * processes signing custody receipts under one key fork its receipt chain (docs/spec/custody.md), and its peers see
 * one DID linked twice. Nodes sharing a database each have a data dir (and a DID) of their own; the CLI's commands
 * that share the embedded cluster with a running relay ({@code import}, {@code sync}, {@code delete}) do not take
 * this lock, the ones that must not run beside a relay ({@code keys rotate}, {@code restore}) ask {@link #holder}.
 *
 * <p>The lock is the operating system's ({@code fcntl}): it ends with the process, so a node killed with
 * {@code kill -9} leaves no stale lock, only a stale pid in the file, which nothing trusts without the lock.
 */
public final class NodeLock implements AutoCloseable {
    public static final String FILE = "node.lock";
    /**
     * Written into a data dir by {@code meshnode restore} before it changes anything there and removed once the keys
     * are in: while it is there, the data dir's tables and keys may not belong together (a restore killed between
     * the two), and a relay refuses to start on it; the next restore finishes over it.
     */
    public static final String UNFINISHED_RESTORE = "restore.unfinished";

    private final FileChannel channel;
    private final FileLock lock;

    private NodeLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Thrown when another process holds the data dir. */
    public static final class HeldException extends IllegalStateException {
        private final OptionalLong pid;

        HeldException(Path dataDir, OptionalLong pid) {
            super("another meshnode relay is running on " + dataDir.toAbsolutePath().normalize()
                    + pid.stream().mapToObj(p -> " (pid " + p + ")").findFirst().orElse("")
                    + ": one data dir is one node; stop it first, or give this one a data dir of its own");
            this.pid = pid;
        }

        public OptionalLong pid() {
            return pid;
        }
    }

    /** Thrown when the data dir holds an unfinished restore ({@link #UNFINISHED_RESTORE}). */
    public static final class UnfinishedRestoreException extends IllegalStateException {
        UnfinishedRestoreException(Path dataDir, String from) {
            super(dataDir.toAbsolutePath().normalize() + " holds an unfinished restore" + from
                    + ": its tables and keys may not belong together; run `meshnode restore <backup> --data-dir "
                    + dataDir + "` again (it finishes over it), or start from an empty data dir");
        }
    }

    /**
     * Takes the data dir's lock for the relay: {@link #acquire(Path, boolean) acquire(dataDir, false)}.
     *
     * @throws HeldException when another process, or another open lock of this JVM, holds it
     * @throws UnfinishedRestoreException when a restore onto the data dir did not finish
     */
    public static NodeLock acquire(Path dataDir) {
        return acquire(dataDir, false);
    }

    /**
     * Takes the data dir's lock for this process (creating the data dir, 0700, when missing) and writes its pid;
     * unless {@code restoring} (the restore itself), refused on a data dir with an unfinished restore.
     *
     * @throws HeldException when another process, or another open lock of this JVM, holds it
     * @throws UnfinishedRestoreException when not {@code restoring} and a restore onto the data dir did not finish
     */
    public static NodeLock acquire(Path dataDir, boolean restoring) {
        Path file = dataDir.resolve(FILE);
        try {
            if (!Files.isDirectory(dataDir)) {
                Files.createDirectories(dataDir,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException sameJvm) {
                l = null;
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            if (l == null) {
                OptionalLong pid = readPid(ch);
                ch.close();
                throw new HeldException(dataDir, pid);
            }
            Path unfinished = dataDir.resolve(UNFINISHED_RESTORE);
            if (!restoring && Files.exists(unfinished)) {
                String from;
                try {
                    String text = new String(Files.readAllBytes(unfinished), StandardCharsets.UTF_8).strip();
                    from = text.isEmpty() || text.length() > 4096 ? "" : " (" + text.replaceAll("\\s+", " ") + ")";
                } catch (IOException e) {
                    from = "";
                }
                l.release();
                ch.close();
                throw new UnfinishedRestoreException(dataDir, from);
            }
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(pid), 0);
            return new NodeLock(ch, l);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The pid of the process holding {@code dataDir}'s lock, as it wrote it; empty when nobody holds it (no file, or
     * a file whose lock this process could take, which it releases at once). A holder whose pid cannot be read is
     * reported as {@code 0}. Not for use by the holder itself.
     */
    public static OptionalLong holder(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return OptionalLong.empty();
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException sameJvm) {
                l = null;
            }
            if (l != null) {
                l.release();
                return OptionalLong.empty();
            }
            OptionalLong pid = readPid(ch);
            return pid.isPresent() ? pid : OptionalLong.of(0);
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    private static OptionalLong readPid(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(24);
        ch.read(b, 0);
        String s = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
        try {
            long p = Long.parseLong(s);
            return p > 0 ? OptionalLong.of(p) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Releases the lock (the file stays, with the pid of the last holder). Idempotent. */
    @Override
    public void close() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
