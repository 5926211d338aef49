package org.fleetmesh.storage.postgres;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jboss.logging.Logger;

/**
 * A node's fresh cluster copied from a template that already holds the shipped schema, instead of {@code initdb} and
 * every migration through Flyway (docs/OPERATING.md "Fast start"; on 2 cores about 1.3 s and 2 s of a fresh node's
 * start).
 *
 * <p>
 * The template is made once per machine, PostgreSQL binary and set of shipped migrations, in zonky's working directory
 * beside the binaries ({@code fleetmesh-template-<key>}, where the key hashes the binary's directory, each migration's
 * name and Flyway checksum, and this format): {@code initdb} with the node's arguments ({@link DirectPostmaster#init})
 * and a random password nobody keeps, a start, {@link Migrations#migrate}, a fast shutdown, then a manifest of every
 * file and its size, and an atomic rename, so a template is complete or absent; two processes making one at once
 * each build their own and the second rename loses.
 *
 * <p>
 * A copy checks every file against the manifest (a file a temporary-directory cleaner removed makes the template
 * unusable: it is deleted and the cluster is made by {@code initdb} as before), then, before the server ever listens,
 * sets the superuser's password from the data dir's key file in PostgreSQL's single-user mode (no socket: nothing can
 * connect meanwhile), and flushes the file system ({@code sync -f}: the copied cluster is as durable as one
 * {@code initdb} wrote and synced). All of it happens in {@code pg.copy} beside {@code pg}, renamed to {@code pg} at
 * the end: a start killed during the copy leaves a fresh data dir (and a {@code pg.copy} the next start removes). The node's start then checks the schema as for any existing data dir
 * ({@link Migrations#upToDate}); a template older than the shipped migrations cannot be used because its key differs.
 * Anything that fails leaves the pg directory empty and returns false.
 */
final class ClusterTemplate {
    private static final Logger LOG = Logger.getLogger(ClusterTemplate.class);

    /** Bumped when what a template holds, or how it is checked, changes. */
    private static final int FORMAT = 1;
    static final String MANIFEST = "manifest";
    private static final String PG = "pg";

    private ClusterTemplate() {
    }

    /**
     * Fills the empty or absent {@code pgDir} of {@code dataDir} with a copy of the template for the binaries this
     * machine recorded (making the template first when there is none), its superuser's password set to
     * {@code password} (the data dir's). False when that is not possible; {@code pgDir} is then empty.
     */
    static boolean copyInto(Path dataDir, Path pgDir, String password, Duration wait) {
        return copyInto(dataDir, pgDir, password, wait, DirectPostmaster.workingDir());
    }

    /** {@link #copyInto} with the template kept in {@code workingDir} (tests). */
    static boolean copyInto(Path dataDir, Path pgDir, String password, Duration wait, Path workingDir) {
        Optional<Path> bin = DirectPostmaster.machineBin();
        if (bin.isEmpty() || !isEmpty(pgDir)) {
            return false;
        }
        long t0 = System.nanoTime();
        Path template = templateDir(workingDir, bin.get());
        Path staging = staging(pgDir);
        try {
            boolean made = false;
            if (!Files.isRegularFile(template.resolve(MANIFEST))) {
                made = make(template, bin.get(), wait);
                if (!made && !Files.isRegularFile(template.resolve(MANIFEST))) {
                    return false;
                }
            }
            if (!private_(template)) {
                LOG.warnf("the cluster template %s is not this user's alone: not used; initdb instead", template);
                return false;
            }
            long t1 = System.nanoTime();
            // into a directory beside pg, renamed to pg when complete: a start killed meanwhile leaves no half cluster
            deleteTree(staging);
            if (!copy(template, staging)) {
                LOG.warnf("the cluster template %s is incomplete: removing it; initdb instead", template);
                deleteTree(staging);
                deleteTree(template);
                return false;
            }
            long t2 = System.nanoTime();
            if (!setPassword(bin.get(), staging, password, wait)) {
                deleteTree(staging);
                return false;
            }
            long t3 = System.nanoTime();
            sync(staging); // the files, before the rename makes them the cluster
            Files.deleteIfExists(pgDir); // empty, or absent
            Files.move(staging, pgDir, StandardCopyOption.ATOMIC_MOVE);
            sync(pgDir); // the rename
            DirectPostmaster.recordFor(dataDir, bin.get());
            LOG.debugf("cluster copied from %s%s: %d ms copy, %d ms password, %d ms sync", template,
                    made ? " (made now, " + (t1 - t0) / 1_000_000 + " ms)" : "", (t2 - t1) / 1_000_000,
                    (t3 - t2) / 1_000_000, (System.nanoTime() - t3) / 1_000_000);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.warnf(e, "could not copy the cluster template %s into %s: initdb instead", template, pgDir);
            deleteTree(staging);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            deleteTree(staging);
            return false;
        }
    }

    /** Where a copy is made before it becomes {@code pgDir}: {@code <pgDir>.copy}, beside it. */
    static Path staging(Path pgDir) {
        return pgDir.resolveSibling(pgDir.getFileName() + ".copy");
    }

    /** Where the template for {@code bin} and the shipped migrations is kept in {@code workingDir}. */
    static Path templateDir(Path workingDir, Path bin) {
        return workingDir.resolve("fleetmesh-template-" + key(bin));
    }

    /** The template's key: the binary's directory, every shipped migration's name and checksum, and {@link #FORMAT}. */
    static String key(Path bin) {
        StringBuilder b = new StringBuilder("format=").append(FORMAT).append("\nbin=").append(bin).append('\n');
        for (String f : Migrations.FILES) {
            b.append(f).append('=').append(Migrations.checksum(f)).append('\n');
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Makes the template in a directory of its own, then renames it into place; false when another was faster or it failed. */
    private static boolean make(Path template, Path bin, Duration wait) throws IOException, InterruptedException {
        Files.createDirectories(template.getParent());
        Path work = Files.createTempDirectory(template.getParent(), template.getFileName() + ".");
        Path pgDir = work.resolve(PG);
        boolean started = false;
        try {
            Path pw = work.resolve("password");
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            Files.writeString(pw, HexFormat.of().formatHex(secret) + "\n", StandardCharsets.UTF_8);
            if (!DirectPostmaster.init(work, pgDir, pw, wait)) {
                return false;
            }
            OptionalInt port = DirectPostmaster.start(work, pgDir, EmbeddedCluster.serverSettings(), wait);
            if (port.isEmpty()) {
                return false;
            }
            started = true;
            try (io.agroal.api.AgroalDataSource ds = PostgresStore.createPool(
                    "jdbc:postgresql://localhost:" + port.getAsInt() + "/" + EmbeddedCluster.DATABASE, EmbeddedCluster.USER,
                    HexFormat.of().formatHex(secret), 2)) {
                Migrations.migrate(ds);
            }
            EmbeddedCluster.stopPostmaster(pgDir, false);
            started = false;
            Files.deleteIfExists(pgDir.resolve("postmaster.opts")); // the template's command line, not the copy's
            Files.delete(pw);
            writeManifest(pgDir, work.resolve(MANIFEST));
            try {
                Files.move(work, template, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
                return false; // another process made it first
            } catch (IOException e) {
                if (Files.isRegularFile(template.resolve(MANIFEST))) {
                    return false; // the same race, reported as another error by some file systems
                }
                throw e;
            }
            LOG.infof("made the cluster template %s (the shipped schema, for fresh data dirs)", template);
            return true;
        } finally {
            if (started) {
                try {
                    EmbeddedCluster.stopPostmaster(pgDir, false);
                } catch (IOException e) {
                    LOG.warnf(e, "could not stop the template's PostgreSQL in %s", pgDir);
                }
            }
            if (Files.exists(work)) {
                deleteTree(work);
            }
        }
    }

    /** Every regular file under {@code pgDir} with its size, one {@code <size> <relative path>} per line. */
    private static void writeManifest(Path pgDir, Path manifest) throws IOException {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> all = Files.walk(pgDir)) {
            for (Path p : all.sorted().toList()) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    b.append(Files.size(p)).append(' ').append(pgDir.relativize(p)).append('\n');
                }
            }
        }
        Files.writeString(manifest, b.toString(), StandardCharsets.UTF_8);
    }

    /**
     * Copies the template's cluster into {@code pgDir} (directories 0700 and files 0600, as PostgreSQL makes them);
     * false when a file the manifest lists is missing or of another size, or the template holds one it does not list.
     */
    private static boolean copy(Path template, Path pgDir) throws IOException {
        Path src = template.resolve(PG);
        Map<String, Long> expected = new LinkedHashMap<>();
        for (String line : Files.readAllLines(template.resolve(MANIFEST), StandardCharsets.UTF_8)) {
            int sp = line.indexOf(' ');
            if (sp > 0) {
                expected.put(line.substring(sp + 1), Long.parseLong(line.substring(0, sp)));
            }
        }
        if (expected.isEmpty() || !expected.containsKey("PG_VERSION")) {
            return false;
        }
        Set<PosixFilePermission> dirMode = Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_EXECUTE);
        Set<PosixFilePermission> fileMode = Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        Files.createDirectories(pgDir);
        Files.setPosixFilePermissions(pgDir, dirMode);
        int copied = 0;
        try (Stream<Path> all = Files.walk(src)) {
            for (Path p : all.sorted().toList()) {
                if (p.equals(src)) {
                    continue;
                }
                String rel = src.relativize(p).toString();
                Path to = pgDir.resolve(rel);
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(to);
                    Files.setPosixFilePermissions(to, dirMode);
                } else {
                    Long size = expected.get(rel);
                    if (size == null || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) || Files.size(p) != size) {
                        return false;
                    }
                    Files.copy(p, to);
                    Files.setPosixFilePermissions(to, fileMode);
                    copied++;
                }
            }
        }
        return copied == expected.size();
    }

    /**
     * Sets the superuser's password in single-user mode, which opens no socket; SCRAM, as the cluster's
     * {@code password_encryption} says.
     */
    private static boolean setPassword(Path bin, Path pgDir, String password, Duration wait)
            throws IOException, InterruptedException {
        if (password.isEmpty() || !password.matches("[0-9A-Za-z]+")) { // ours is hex: nothing to quote
            LOG.warnf("the password of %s is not plain letters and digits: initdb instead", pgDir);
            return false;
        }
        List<String> cmd = new ArrayList<>(DirectPostmaster.asUnprivileged());
        cmd.addAll(List.of(bin.resolve("postgres").toString(), "--single", "-D", pgDir.toString(), "-c",
                "exit_on_error=on", "-c", "password_encryption=scram-sha-256", "-c", "log_statement=none",
                EmbeddedCluster.DATABASE));
        File log = pgDir.resolveSibling(EmbeddedCluster.LOG_FILE).toFile();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        try (var in = p.getOutputStream()) {
            in.write(("ALTER ROLE " + EmbeddedCluster.USER + " PASSWORD '" + password + "'\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor();
            LOG.warnf("PostgreSQL's single-user mode did not finish in %s within %d s: initdb instead", pgDir,
                    wait.toSeconds());
            return false;
        }
        if (p.exitValue() != 0) {
            LOG.warnf("setting the password in %s failed (code %d, see %s): initdb instead", pgDir, p.exitValue(), log);
            return false;
        }
        return true;
    }

    /** Flushes the file system that holds {@code dir} ({@code sync -f}), else every file and directory under it. */
    private static void sync(Path dir) throws IOException, InterruptedException {
        Optional<Path> sync = DirectPostmaster.tool("sync");
        if (sync.isPresent()) {
            Process p = new ProcessBuilder(sync.get().toString(), "-f", dir.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return;
            }
            p.destroyForcibly();
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p,
                        java.nio.file.StandardOpenOption.READ)) {
                    ch.force(true);
                }
            }
        }
    }

    /** Owned by this user, and nobody else may write into it (its content is run by PostgreSQL: its settings). */
    private static boolean private_(Path template) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(template, LinkOption.NOFOLLOW_LINKS);
        return DirectPostmaster.ownedByMe(template) && Files.isDirectory(template, LinkOption.NOFOLLOW_LINKS)
                && !mode.contains(PosixFilePermission.GROUP_WRITE) && !mode.contains(PosixFilePermission.OTHERS_WRITE);
    }

    private static boolean isEmpty(Path dir) {
        if (!Files.exists(dir)) {
            return true;
        }
        try (Stream<Path> in = Files.list(dir)) {
            return in.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteTree(Path dir) {
        DirectPostmaster.clear(dir);
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            LOG.debugf(e, "could not remove %s", dir);
        }
    }
}
