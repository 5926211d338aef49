package org.fleetmesh.meshnode;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.fleetmesh.identity.NodeLock;
import org.fleetmesh.storage.postgres.Migrations;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code backup <dir> [--data-dir D]} and {@code restore <dir> [--data-dir D] [--force]} (docs/OPERATING.md "Backup and
 * restore"): the node's keys ({@code keys.json}, the format of {@code keys export}) and every table of its database
 * as PostgreSQL COPY text ({@code tables/<table>.copy}), all the tables read in ONE read-only REPEATABLE READ
 * transaction, so the dump is one consistent snapshot even while the relay writes (a live backup). A
 * {@code manifest.json}, written last, lists every file with its size and SHA-256, each table's row count and the
 * schema version; restore checks all of it before it touches anything, then loads every table in one transaction
 * (all or nothing) and writes the keys. Every directory a backup creates is 0700 and every file 0600 (set, not left to
 * the umask: {@code tables/cashu_proof.copy} holds bearer ecash). A command that fails takes back what it created: a
 * failed backup leaves no directory or file behind, a failed restore onto a missing or empty data dir leaves it missing
 * or empty; {@code restore --force} moves the data dir's own key files to
 * {@code keys/retired/<seconds>-replaced-by-restore/}.
 */
final class BackupCommand {
    static final String TYPE = "fleetmesh.backup";
    static final int VERSION = 1;
    static final String MANIFEST = "manifest.json";
    static final String KEYS = "keys.json";
    static final String TABLES = "tables";
    /** In a backup directory while the backup is written (before its manifest): a backup interrupted there. */
    static final String UNFINISHED = "backup.unfinished";
    private static final Pattern TABLE = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final int MAX_TABLES = 256;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private BackupCommand() {
    }

    /** Something that stops the command, with the reason: exit 1. */
    static class BackupException extends RuntimeException {
        BackupException(String message) {
            super(message);
        }
    }

    static int run(String[] args) {
        return run(args, LocalNode.dataDir(), LocalNode::setting, System.out, System.err);
    }

    static int run(String[] args, Path configuredDataDir, Function<String, Optional<String>> settings, PrintStream out,
            PrintStream err) {
        String cmd = args[0];
        Path dataDir = configuredDataDir;
        Path dir = null;
        boolean force = false;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--data-dir") && i + 1 < args.length) {
                dataDir = Path.of(args[++i]);
            } else if (a.equals("--force") && cmd.equals("restore")) {
                force = true;
            } else if (!a.startsWith("--") && dir == null) {
                dir = Path.of(a);
            } else {
                throw new UsageException(usage(cmd));
            }
        }
        if (dir == null) {
            throw new UsageException(usage(cmd));
        }
        try {
            return cmd.equals("backup") ? backup(dataDir, settings, dir, out, err)
                    : restore(dir, dataDir, force, settings, out, err);
        } catch (BackupException | KeysCommand.KeysException e) {
            err.println("meshnode: " + cmd + ": " + e.getMessage());
            return 1;
        }
    }

    static String usage(String cmd) {
        return cmd.equals("backup") ? "backup takes <dir> [--data-dir D]"
                : "restore takes <dir> [--data-dir D] [--force]";
    }

    // ---- backup

    static int backup(Path dataDir, Function<String, Optional<String>> settings, Path dir, PrintStream out,
            PrintStream err) {
        Path unfinishedRestore = dataDir.resolve(NodeLock.UNFINISHED_RESTORE);
        if (Files.exists(unfinishedRestore, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            // its tables and keys may be of two nodes: a backup of it would carry that on, under one DID
            throw new BackupException(dataDir + " holds an unfinished restore (" + unfinishedRestore + "): finish it"
                    + " (run the restore again) before backing the data dir up");
        }
        Leftovers leftovers = Leftovers.of(dir);
        if (prepareEmptyDirectory(dir, err)) {
            leftovers = Leftovers.of(dir); // what the killed backup had written is gone: a failure now removes all
        }
        try {
            writeMarker(dir.resolve(UNFINISHED), "a backup of " + dataDir.toAbsolutePath().normalize() + " started "
                    + Instant.now() + " by pid " + ProcessHandle.current().pid());
            return dump(dataDir, settings, dir, out, err);
        } catch (RuntimeException e) {
            // an unfinished backup is worth nothing and may hold the keys: nothing of it stays
            String undone = leftovers.remove();
            if (e instanceof BackupException || e instanceof KeysCommand.KeysException) {
                throw new BackupException(e.getMessage() + "; " + undone);
            }
            err.println("meshnode: backup: " + undone);
            throw e;
        }
    }

    private static int dump(Path dataDir, Function<String, Optional<String>> settings, Path dir, PrintStream out,
            PrintStream err) {
        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("type", TYPE);
        manifest.put("version", VERSION);
        manifest.put("created", Instant.now().toString());
        ArrayNode files = JSON.createArrayNode();
        // the keys first: a node whose keys cannot be read has nothing worth a dump
        ByteArrayPrintStream keysOut = new ByteArrayPrintStream();
        int keys = KeysCommand.export(dataDir, settings, dir.resolve(KEYS), keysOut.stream, err);
        if (keys != 0) {
            throw new BackupException("the keys could not be exported");
        }
        String did = keysOut.text().trim();
        manifest.put("did", did);
        files.add(fileEntry(dir, KEYS));

        ArrayNode tables = JSON.createArrayNode();
        long started = System.nanoTime();
        try (PostgresStorage storage = open(dataDir, settings);
                Connection c = storage.dataSource().getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            try (Statement s = c.createStatement()) {
                s.execute("set local statement_timeout = 0");
                // the snapshot is taken by the transaction's first query: every table below is read in it
                manifest.put("schema_version", schemaVersion(s));
                List<String> names = tableNames(s);
                CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                createPrivateDirectory(dir.resolve(TABLES));
                for (String table : names) {
                    String file = TABLES + "/" + table + ".copy";
                    MessageDigest md = sha256();
                    long rows;
                    try (OutputStream o = new DigestOutputStream(
                            new BufferedOutputStream(newPrivateFile(dir.resolve(file)), 1 << 16), md)) {
                        rows = copy.copyOut("COPY " + quote(table) + " TO STDOUT", o);
                    }
                    ObjectNode t = tables.addObject();
                    t.put("name", table);
                    t.put("rows", rows);
                    t.put("file", file);
                    t.put("bytes", Files.size(dir.resolve(file)));
                    t.put("sha256", HexFormat.of().formatHex(md.digest()));
                }
            }
            c.rollback();
        } catch (SQLException | IOException e) {
            throw new BackupException("reading the database failed: " + e.getMessage());
        }
        manifest.set("files", files);
        manifest.set("tables", tables);
        try {
            fsyncAll(dir);
            // the manifest last: a directory without one is an unfinished backup, and restore says so
            Path tmp = dir.resolve(MANIFEST + ".tmp");
            try (OutputStream o = newPrivateFile(tmp)) {
                o.write(JSON.writeValueAsBytes(manifest));
            }
            Files.move(tmp, dir.resolve(MANIFEST), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            fsync(dir);
            Files.delete(dir.resolve(UNFINISHED)); // (left there, it would be harmless: the manifest is what counts)
            fsync(dir);
        } catch (IOException e) {
            throw new BackupException("writing " + dir.resolve(MANIFEST) + " failed: " + e.getMessage());
        }
        long rows = 0;
        for (JsonNode t : tables) {
            rows += t.get("rows").asLong();
        }
        out.println(did);
        err.printf("meshnode: backed up %s: keys and %d tables (%d rows) of schema version %s in one snapshot, %d ms, to %s%n",
                dataDir, tables.size(), rows, manifest.get("schema_version").asText(),
                (System.nanoTime() - started) / 1_000_000, dir);
        return 0;
    }

    /** The names a backup writes at the top of its directory (an unfinished one holds some of them). */
    private static final Set<String> BACKUP_ENTRIES = Set.of(UNFINISHED, KEYS, TABLES, MANIFEST + ".tmp");

    /**
     * Makes {@code dir} a new or empty directory for a backup: true when it held a killed backup's files (only those)
     * and they were removed.
     */
    private static boolean prepareEmptyDirectory(Path dir, PrintStream err) {
        try {
            if (Files.exists(dir)) {
                if (!Files.isDirectory(dir)) {
                    throw new BackupException(dir + " exists and is not a directory");
                }
                boolean empty;
                try (DirectoryStream<Path> d = Files.newDirectoryStream(dir)) {
                    empty = !d.iterator().hasNext();
                }
                if (!empty && Files.isRegularFile(dir.resolve(UNFINISHED), java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        && !Files.exists(dir.resolve(MANIFEST), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    // a backup that was killed before its manifest, into a directory that was new or empty: what it
                    // wrote is worth nothing without a manifest, and this one starts over, unless something else is
                    // there too (put there since): then nothing is removed
                    List<String> others = othersThanABackups(dir);
                    if (!others.isEmpty()) {
                        throw new BackupException(dir + " holds an unfinished backup and other files (" + String.join(", ",
                                others.subList(0, Math.min(5, others.size()))) + "): a backup goes into a new or empty"
                                + " directory");
                    }
                    String was = Files.readString(dir.resolve(UNFINISHED)).strip();
                    removeContents(dir);
                    err.println("meshnode: backup: " + dir + " held an unfinished backup (" + was
                            + "), removed: starting over");
                    Files.setPosixFilePermissions(dir, DIR_MODE);
                    return true;
                } else if (!empty) {
                    throw new BackupException(dir + " is not empty: a backup goes into a new or empty directory");
                }
            }
            // the directories it creates above it too: 0700 (the umask only takes bits away)
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIR_MODE));
            Files.setPosixFilePermissions(dir, DIR_MODE);
            return false;
        } catch (IOException e) {
            throw new BackupException("cannot create " + dir + ": " + LocalNode.why(e));
        }
    }

    /** What {@code dir} holds that a backup does not write: names at its top, and in {@code tables/}, non-.copy files. */
    private static List<String> othersThanABackups(Path dir) throws IOException {
        List<String> others = new ArrayList<>();
        try (DirectoryStream<Path> d = Files.newDirectoryStream(dir)) {
            for (Path p : d) {
                String name = p.getFileName().toString();
                if (!BACKUP_ENTRIES.contains(name)) {
                    others.add(name);
                } else if (name.equals(TABLES)) {
                    if (!Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        others.add(name);
                        continue;
                    }
                    try (DirectoryStream<Path> t = Files.newDirectoryStream(p)) {
                        for (Path q : t) {
                            String n = q.getFileName().toString();
                            if (!n.endsWith(".copy") || !Files.isRegularFile(q, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                                others.add(TABLES + "/" + n);
                            }
                        }
                    }
                } else if (!Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    others.add(name);
                }
            }
        }
        return others;
    }

    // ---- restore

    static int restore(Path dir, Path dataDir, boolean force, Function<String, Optional<String>> settings,
            PrintStream out, PrintStream err) {
        // 1. the backup, all of it, before anything is touched
        JsonNode manifest = verify(dir);
        int schema = backupSchema(manifest);
        int shipped = Migrations.shippedVersion();
        if (schema > shipped) {
            throw new BackupException("the backup is of schema version " + schema + ", newer than this build's "
                    + shipped + ": restore it with the build that made it, or a newer one");
        }

        // 2. the target
        Path marker = dataDir.resolve(NodeLock.UNFINISHED_RESTORE);
        boolean unfinished = Files.exists(marker, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        boolean fresh = !unfinished && !nonEmpty(dataDir);
        if (!force && !fresh && !unfinished) {
            throw new BackupException(dataDir + " is not empty: restore goes onto a fresh data dir (--force replaces"
                    + " its keys and every table with the backup's)");
        }
        if (schema < shipped && !fresh) {
            throw new BackupException("the backup is of schema version " + schema + ", older than this build's " + shipped
                    + ": a backup an older build made is restored onto a fresh data dir (its tables are loaded at"
                    + " version " + schema + ", then migrated), not over " + dataDir
                    + (unfinished ? ", which holds an unfinished restore: remove it and restore again" : ""));
        }
        refuseRunningNode(dataDir);
        // from here to the end the restore holds the data dir as a relay would (no relay starts on it meanwhile),
        // and the marker says, until the keys are in, that its tables and keys may not belong together
        String started = "a restore of " + dir.toAbsolutePath().normalize() + " started " + Instant.now() + " by pid "
                + ProcessHandle.current().pid();
        if (!fresh) {
            if (unfinished) {
                err.println("meshnode: restore: " + dataDir + " holds an unfinished restore: finishing over it (its"
                        + " tables are replaced, any keys it holds are moved aside)");
            }
            // --force over a data dir, or over an unfinished restore: the tables are replaced in one transaction (a
            // failure keeps them), and its own keys are moved aside, not lost, as keys rotate keeps the keys it replaces
            Path retired = dataDir.resolve("keys").resolve("retired")
                    .resolve(System.currentTimeMillis() / 1000 + "-replaced-by-restore");
            if (Files.exists(retired, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new BackupException(retired + " exists already: one restore per second");
            }
            try (NodeLock lock = lock(dataDir)) {
                if (!unfinished) { // an unfinished restore's marker stays as it is until this one is done
                    writeMarker(marker, started);
                }
                try {
                    int done = load(dir, dataDir, manifest, true, retired, settings, out, err);
                    finish(dataDir, marker);
                    return done;
                } catch (TablesKept e) {
                    if (!unfinished) { // the data dir is as it was: its own tables and keys, together
                        finish(dataDir, marker);
                    }
                    throw e;
                }
            }
        }
        // onto a missing or empty data dir: a failure leaves it so, not a half-made node (a cluster and no keys) that
        // would refuse the next restore or start as a new identity on an empty store
        Leftovers leftovers = Leftovers.of(dataDir);
        NodeLock lock = null;
        try {
            lock = lock(dataDir);
            writeMarker(marker, started);
            int done = load(dir, dataDir, manifest, force, null, settings, out, err);
            finish(dataDir, marker);
            return done;
        } catch (RuntimeException e) {
            String undone = LocalNode.runningPostmaster(dataDir).isPresent()
                    ? "the embedded PostgreSQL of " + dataDir + " runs (started meanwhile?): nothing of it was removed"
                    : leftovers.remove();
            if (e instanceof BackupException || e instanceof KeysCommand.KeysException) {
                throw new BackupException(e.getMessage() + "; " + undone);
            }
            err.println("meshnode: restore: " + undone);
            throw e;
        } finally {
            if (lock != null) {
                lock.close();
            }
        }
    }

    /** A restore that failed before its tables were committed: the database is as it was. */
    static final class TablesKept extends BackupException {
        TablesKept(String message) {
            super(message);
        }
    }

    private static NodeLock lock(Path dataDir) {
        try {
            return NodeLock.acquire(dataDir, true);
        } catch (NodeLock.HeldException e) {
            throw new BackupException(e.getMessage());
        } catch (UncheckedIOException e) {
            throw new BackupException(e.getMessage());
        }
    }

    /** The restore's end: its marker removed (and the removal on disk). */
    private static void finish(Path dataDir, Path marker) {
        try {
            Files.deleteIfExists(marker);
            fsync(dataDir);
        } catch (IOException e) {
            throw new BackupException("restored, but " + marker + " could not be removed (" + LocalNode.why(e)
                    + "): remove it before the node starts");
        }
    }

    /** A new 0600 file holding {@code text}, on disk (and its directory entry) before this returns. */
    private static void writeMarker(Path file, String text) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new BackupException("cannot replace " + file + ": " + LocalNode.why(e));
        }
        try {
            try (OutputStream o = newPrivateFile(file)) {
                o.write((text + "\n").getBytes(StandardCharsets.UTF_8));
            }
            try (var ch = java.nio.channels.FileChannel.open(file, StandardOpenOption.READ)) {
                ch.force(true);
            }
            fsync(file.getParent());
        } catch (IOException e) {
            try {
                Files.deleteIfExists(file); // nothing was changed yet: no marker is left to stop the node
            } catch (IOException ignored) {
                // the message below says the marker could not be written
            }
            throw new BackupException("cannot write " + file + ": " + LocalNode.why(e));
        }
    }

    /** Removes everything in {@code dir} (links removed, not followed), keeping {@code dir}. */
    private static void removeContents(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.delete(p);
                }
            }
        }
    }

    /** Steps 3 and 4 of a restore: the tables, then the keys ({@code retired}: where --force puts the target's). */
    private static int load(Path dir, Path dataDir, JsonNode manifest, boolean force, Path retired,
            Function<String, Optional<String>> settings, PrintStream out, PrintStream err) {
        String did = manifest.get("did").asText();
        Map<String, JsonNode> tables = new LinkedHashMap<>();
        manifest.get("tables").forEach(t -> tables.put(t.get("name").asText(), t));

        // 3. the tables, in one transaction
        long started = System.nanoTime();
        long total = 0;
        boolean committed = false; // past it, a failure (closing the connection, the storage) has changed the tables
        int schema = backupSchema(manifest);
        boolean older = schema < Migrations.shippedVersion();
        try (AutoCloseable db = older ? openAtVersion(dataDir, settings, schema) : open(dataDir, settings);
                Connection c = (db instanceof PostgresStorage st ? st.dataSource()
                        : ((PostgresStorage.AtVersion) db).dataSource()).getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("set local statement_timeout = 0");
                String version = schemaVersion(s);
                String wanted = manifest.get("schema_version").asText();
                if (!version.equals(wanted)) {
                    throw new BackupException("the backup is of schema version " + wanted + ", this build's database is at "
                            + version + ": restore it with the build that made it (a start of a newer build migrates it)");
                }
                List<String> present = tableNames(s);
                if (!new LinkedHashSet<>(present).equals(tables.keySet())) {
                    throw new BackupException("the backup's tables " + tables.keySet() + " are not this database's "
                            + present);
                }
                if (!force) {
                    for (String t : present) {
                        try (ResultSet r = s.executeQuery("select exists (select 1 from " + quote(t) + ")")) {
                            r.next();
                            if (r.getBoolean(1)) {
                                throw new BackupException("the database already holds rows (table " + t + "): --force"
                                        + " replaces them with the backup's");
                            }
                        }
                    }
                }
                s.execute("truncate " + String.join(", ", present.stream().map(BackupCommand::quote).toList()));
                CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                for (String t : loadOrder(s, present)) {
                    JsonNode entry = tables.get(t);
                    long rows;
                    try (InputStream in = new BufferedInputStream(
                            Files.newInputStream(dir.resolve(entry.get("file").asText())), 1 << 16)) {
                        // identity columns take the dumped values (COPY overrides GENERATED ALWAYS)
                        rows = copy.copyIn("COPY " + quote(t) + " FROM STDIN", in);
                    }
                    if (rows != entry.get("rows").asLong()) {
                        throw new BackupException("table " + t + ": loaded " + rows + " rows, the manifest says "
                                + entry.get("rows").asLong());
                    }
                    total += rows;
                }
                resetIdentities(s);
            }
            c.commit();
            committed = true;
        } catch (BackupException e) {
            throw new TablesKept(e.getMessage() + " (rolled back: the database is as it was)");
        } catch (RuntimeException e) {
            if (committed) {
                throw e;
            }
            // the store would not open (its embedded PostgreSQL did not start, a setting it refuses): nothing changed
            throw new TablesKept("the database could not be opened (nothing was changed): " + e.getMessage());
        } catch (Exception e) { // SQL, I/O, or closing the database
            if (committed) {
                throw new BackupException("the tables were restored, then closing the database failed (" + e.getMessage()
                        + "); the keys were not written: run the same restore again");
            }
            throw new TablesKept("loading the database failed (nothing of it was kept): " + e.getMessage());
        }
        if (older) {
            // the older build's tables, migrated as that build's data dir would be at this build's first start
            long m0 = System.nanoTime();
            try (PostgresStorage storage = open(dataDir, settings)) {
                err.printf("meshnode: restore: migrated the backup's tables from schema version %d to %d, %d ms%n", schema,
                        Migrations.shippedVersion(), (System.nanoTime() - m0) / 1_000_000);
            } catch (RuntimeException e) {
                boolean external = settings.apply(PostgresStorage.JDBC_URL).filter(u -> !u.isBlank()).isPresent();
                throw new BackupException("the tables were restored at schema version " + schema + ", then migrating them"
                        + " to " + Migrations.shippedVersion() + " failed (" + e.getMessage() + "); the keys were not"
                        + " written" + (external ? "; the external database holds the backup's tables now: empty it"
                                + " (drop its tables) before restoring again" : ""));
            }
        }

        // 4. the keys (checked in step 1: the DID their keys make is the manifest's); those they replace are kept
        String aside = "";
        if (retired != null) {
            List<String> moved;
            try {
                moved = KeysCommand.retire(dataDir.resolve("keys"), retired);
            } catch (KeysCommand.KeysException e) {
                throw new BackupException("the tables were restored but the keys were not: " + e.getMessage());
            }
            if (!moved.isEmpty()) {
                aside = "; the tables were restored and the data dir's own keys (" + String.join(", ", moved)
                        + ") are in " + retired;
                err.println("meshnode: moved the data dir's own keys (" + String.join(", ", moved) + ") to " + retired);
            }
        }
        ByteArrayPrintStream keysOut = new ByteArrayPrintStream();
        int k;
        try {
            k = KeysCommand.restore(dir.resolve(KEYS), dataDir, force, settings, keysOut.stream, err);
        } catch (KeysCommand.KeysException | UncheckedIOException e) {
            throw new BackupException("the tables were restored but the keys were not (" + e.getMessage() + ")"
                    + aside);
        }
        if (k != 0) {
            throw new BackupException("the tables were restored but the keys were not" + aside);
        }
        out.println(did);
        err.printf("meshnode: restored %s into %s: keys and %d tables (%d rows), %d ms%n", dir, dataDir, tables.size(),
                total, (System.nanoTime() - started) / 1_000_000);
        return 0;
    }

    /** Reads the manifest and checks every file it lists (size, SHA-256) and the keys file (its DID). */
    static JsonNode verify(Path dir) {
        Path m = dir.resolve(MANIFEST);
        if (!Files.isDirectory(dir)) {
            throw new BackupException(dir + " is not a directory");
        }
        if (!Files.isRegularFile(m)) {
            if (Files.exists(dir.resolve(UNFINISHED))) {
                throw new BackupException(dir + " is an unfinished backup (interrupted before its " + MANIFEST
                        + " was written): make the backup again (into the same directory: it starts over)");
            }
            throw new BackupException(dir + " has no " + MANIFEST + ": not a backup, or an unfinished one");
        }
        JsonNode manifest;
        try {
            if (Files.size(m) > 16L << 20) {
                throw new BackupException(m + " is too large to be a manifest");
            }
            manifest = JSON.readTree(m.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // one line: the parser's own words and where, without Jackson's source-location paragraph
            com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
            throw new BackupException(m + " is not JSON: " + e.getOriginalMessage().replaceAll("\\s+", " ")
                    + (at != null ? " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")" : ""));
        } catch (IOException e) {
            throw new BackupException("cannot read " + m + ": " + LocalNode.why(e));
        }
        if (manifest == null || !TYPE.equals(manifest.path("type").asText())) {
            throw new BackupException(m + " is not a fleetmesh backup manifest");
        }
        if (manifest.path("version").asInt() != VERSION) {
            throw new BackupException(m + ": backup format version " + manifest.path("version") + ", this build reads "
                    + VERSION);
        }
        for (String field : List.of("did", "schema_version")) {
            if (!manifest.path(field).isTextual()) {
                throw new BackupException(m + ": no " + field);
            }
        }
        if (!manifest.path("tables").isArray() || !manifest.path("files").isArray()
                || manifest.get("tables").size() > MAX_TABLES) {
            throw new BackupException(m + ": no table or file list");
        }
        Set<String> seen = new java.util.HashSet<>();
        List<JsonNode> entries = new ArrayList<>();
        manifest.get("files").forEach(entries::add);
        for (JsonNode t : manifest.get("tables")) {
            String name = t.path("name").asText();
            if (!TABLE.matcher(name).matches() || !seen.add(name)) {
                throw new BackupException(m + ": bad or repeated table name '" + name + "'");
            }
            if (!t.path("file").asText().equals(TABLES + "/" + name + ".copy") || !t.path("rows").canConvertToLong()) {
                throw new BackupException(m + ": table " + name + ": bad entry");
            }
            entries.add(t);
        }
        if (entries.stream().noneMatch(e -> KEYS.equals(e.path("file").asText()))) {
            throw new BackupException(m + ": no " + KEYS);
        }
        for (JsonNode e : entries) {
            String file = e.path("file").asText();
            Path p = dir.resolve(file).normalize();
            if (!p.startsWith(dir.normalize()) || file.isEmpty()) {
                throw new BackupException(m + ": a file outside the backup: " + file);
            }
            try {
                long size = Files.size(p);
                if (size != e.path("bytes").asLong(-1)) {
                    throw new BackupException(file + " has " + size + " bytes, the manifest says " + e.path("bytes")
                            + ": the backup is damaged");
                }
                if (!sha256Of(p).equals(e.path("sha256").asText())) {
                    throw new BackupException(file + " does not match its SHA-256 in the manifest: the backup is damaged");
                }
            } catch (NoSuchFileException x) {
                throw new BackupException(file + " is missing: the backup is incomplete");
            } catch (IOException x) {
                throw new BackupException("cannot read " + file + ": " + x.getMessage());
            }
        }
        Map<String, byte[]> keys = KeysCommand.read(dir.resolve(KEYS));
        try {
            String did = KeysCommand.did(keys);
            if (!did.equals(manifest.get("did").asText())) {
                throw new BackupException(KEYS + " makes " + did + ", the manifest says " + manifest.get("did").asText());
            }
        } finally {
            keys.values().forEach(k -> java.util.Arrays.fill(k, (byte) 0));
        }
        return manifest;
    }

    private static boolean nonEmpty(Path dataDir) {
        if (!Files.exists(dataDir)) {
            return false;
        }
        try (DirectoryStream<Path> d = Files.newDirectoryStream(dataDir)) {
            return d.iterator().hasNext();
        } catch (IOException e) {
            throw new BackupException("cannot read " + dataDir + ": " + LocalNode.why(e));
        }
    }

    /** A relay (or another command) running on the data dir holds its postmaster: a restore under it is refused. */
    private static void refuseRunningNode(Path dataDir) {
        java.util.Optional<String> running = LocalNode.runningOn(dataDir);
        if (running.isPresent()) {
            throw new BackupException(running.get() + ": stop the node on it before a restore");
        }
    }

    // ---- the database

    private static PostgresStorage open(Path dataDir, Function<String, Optional<String>> settings) {
        return LocalNode.closedOnExit(PostgresStorage.openFromConfig(dataDir, settings.apply(PostgresStorage.JDBC_URL),
                settings.apply(PostgresStorage.USERNAME), settings.apply(PostgresStorage.PASSWORD)));
    }

    /** The manifest's schema version, a positive number. */
    static int backupSchema(JsonNode manifest) {
        String v = manifest.path("schema_version").asText("");
        try {
            int n = Integer.parseInt(v);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new BackupException("the backup's manifest has no schema version (\"" + v + "\")");
    }

    private static PostgresStorage.AtVersion openAtVersion(Path dataDir, Function<String, Optional<String>> settings,
            int version) {
        return LocalNode.closedOnExit(PostgresStorage.openAtVersion(dataDir, settings.apply(PostgresStorage.JDBC_URL),
                settings.apply(PostgresStorage.USERNAME), settings.apply(PostgresStorage.PASSWORD), version));
    }

    private static String schemaVersion(Statement s) throws SQLException {
        try (ResultSet r = s.executeQuery("select version from " + Migrations.HISTORY_TABLE
                + " where success and version is not null order by installed_rank desc limit 1")) {
            if (!r.next()) {
                throw new BackupException("the database has no schema version");
            }
            return r.getString(1);
        }
    }

    /** The node's tables: every base table of the schema but the migration history (the target has its own). */
    private static List<String> tableNames(Statement s) throws SQLException {
        List<String> names = new ArrayList<>();
        try (ResultSet r = s.executeQuery("select table_name from information_schema.tables where table_schema ="
                + " current_schema() and table_type = 'BASE TABLE' and table_name <> '" + Migrations.HISTORY_TABLE
                + "' order by table_name")) {
            while (r.next()) {
                String n = r.getString(1);
                if (!TABLE.matcher(n).matches()) {
                    throw new BackupException("unexpected table name " + n);
                }
                names.add(n);
            }
        }
        return names;
    }

    /** The tables ordered so that a table comes after those its foreign keys reference. */
    private static List<String> loadOrder(Statement s, List<String> tables) throws SQLException {
        Map<String, Set<String>> refs = new LinkedHashMap<>();
        tables.forEach(t -> refs.put(t, new LinkedHashSet<>()));
        try (ResultSet r = s.executeQuery("select c.conrelid::regclass::text, c.confrelid::regclass::text from"
                + " pg_constraint c join pg_namespace n on n.oid = c.connamespace where c.contype = 'f'"
                + " and n.nspname = current_schema()")) {
            while (r.next()) {
                String from = r.getString(1);
                String to = r.getString(2);
                if (refs.containsKey(from) && refs.containsKey(to) && !from.equals(to)) {
                    refs.get(from).add(to);
                }
            }
        }
        List<String> order = new ArrayList<>();
        Set<String> done = new LinkedHashSet<>();
        while (order.size() < tables.size()) {
            boolean progress = false;
            for (String t : tables) {
                if (!done.contains(t) && done.containsAll(refs.get(t))) {
                    order.add(t);
                    done.add(t);
                    progress = true;
                }
            }
            if (!progress) {
                throw new BackupException("the foreign keys between the tables form a cycle");
            }
        }
        return order;
    }

    /** Every identity column's sequence continues after the restored rows. */
    private static void resetIdentities(Statement s) throws SQLException {
        List<String[]> cols = new ArrayList<>();
        try (ResultSet r = s.executeQuery("select table_name, column_name from information_schema.columns where"
                + " table_schema = current_schema() and is_identity = 'YES'")) {
            while (r.next()) {
                cols.add(new String[] { r.getString(1), r.getString(2) });
            }
        }
        for (String[] tc : cols) {
            String t = quote(tc[0]);
            String col = quote(tc[1]);
            s.execute("select setval(pg_get_serial_sequence('" + t + "', '" + tc[1] + "'), coalesce((select max(" + col
                    + ") from " + t + "), 0) + 1, false)");
        }
    }

    private static String quote(String identifier) {
        if (!TABLE.matcher(identifier).matches()) {
            throw new BackupException("unexpected identifier " + identifier);
        }
        return "\"" + identifier + "\"";
    }

    // ---- files

    /** A new directory of the backup, 0700. */
    private static void createPrivateDirectory(Path dir) throws IOException {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR_MODE));
        Files.setPosixFilePermissions(dir, DIR_MODE);
    }

    /** A new file of the backup (never an existing one), created 0600 and set so whatever the umask. */
    private static OutputStream newPrivateFile(Path file) throws IOException {
        OutputStream o = java.nio.channels.Channels.newOutputStream(Files.newByteChannel(file,
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(FILE_MODE)));
        try {
            Files.setPosixFilePermissions(file, FILE_MODE);
        } catch (IOException e) {
            o.close();
            throw e;
        }
        return o;
    }

    /**
     * What a command found at a directory before it wrote there, so that a failure takes back what it created: the
     * directory itself and those above it that did not exist, else the entries it did not hold.
     */
    static final class Leftovers {
        private final Path dir;
        /** The highest of {@code dir} and its parents that did not exist, or null when {@code dir} existed. */
        private final Path created;
        private final Set<String> before = new java.util.HashSet<>();

        private Leftovers(Path dir, Path created) {
            this.dir = dir;
            this.created = created;
        }

        static Leftovers of(Path dir) {
            Path abs = dir.toAbsolutePath();
            if (Files.exists(abs, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Leftovers l = new Leftovers(abs, null);
                if (Files.isDirectory(abs)) {
                    try (DirectoryStream<Path> d = Files.newDirectoryStream(abs)) {
                        d.forEach(p -> l.before.add(p.getFileName().toString()));
                    } catch (IOException e) {
                        throw new BackupException("cannot read " + dir + ": " + LocalNode.why(e));
                    }
                }
                return l;
            }
            Path top = abs;
            while (top.getParent() != null && !Files.exists(top.getParent(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                top = top.getParent();
            }
            return new Leftovers(abs, top);
        }

        /** Removes what was created since; returns what it did (or could not do), for the command's message. */
        String remove() {
            List<Path> roots = new ArrayList<>();
            if (created != null) {
                roots.add(created);
            } else if (Files.isDirectory(dir)) {
                try (DirectoryStream<Path> d = Files.newDirectoryStream(dir)) {
                    d.forEach(p -> {
                        if (!before.contains(p.getFileName().toString())) {
                            roots.add(p);
                        }
                    });
                } catch (IOException e) {
                    return "cannot list " + dir + " to remove what was written: " + e.getMessage();
                }
            }
            try {
                // an unfinished restore's marker goes last (then the directories holding it): a command killed while
                // it removes the rest leaves the marker, not a half-removed node that would start without it
                List<Path> later = new ArrayList<>();
                for (Path root : roots) {
                    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        continue;
                    }
                    try (var walk = Files.walk(root)) { // links are removed, not followed
                        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                            if (p.getFileName() != null && p.getFileName().toString().equals(NodeLock.UNFINISHED_RESTORE)
                                    || later.stream().anyMatch(l -> l.startsWith(p))) {
                                later.add(p);
                            } else {
                                Files.delete(p);
                            }
                        }
                    }
                }
                for (Path p : later) {
                    Files.delete(p);
                }
            } catch (IOException | UncheckedIOException e) {
                return "could not remove all that was written to " + dir + " (" + e.getMessage()
                        + "): remove it before another attempt";
            }
            return "removed what was written: " + (created != null ? created + " does not exist, as before"
                    : dir + " holds what it held before");
        }
    }

    private static ObjectNode fileEntry(Path dir, String name) {
        ObjectNode f = JSON.createObjectNode();
        f.put("file", name);
        try {
            f.put("bytes", Files.size(dir.resolve(name)));
            f.put("sha256", sha256Of(dir.resolve(name)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return f;
    }

    static String sha256Of(Path p) throws IOException {
        MessageDigest md = sha256();
        try (InputStream in = new DigestInputStream(new BufferedInputStream(Files.newInputStream(p), 1 << 16), md)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void fsyncAll(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            for (Path p : files.toList()) {
                if (Files.isRegularFile(p)) {
                    try (var ch = java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.READ)) {
                        ch.force(true);
                    }
                }
            }
        }
        fsync(dir.resolve(TABLES));
    }

    private static void fsync(Path dir) {
        try (var ch = java.nio.channels.FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // not every file system syncs a directory
        }
    }

    /** A PrintStream whose text is kept (what {@code keys export} prints: the DID). */
    private static final class ByteArrayPrintStream {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
