package org.fleetmesh.meshnode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The checks {@code restore} makes on a backup before it touches anything (the database part is in BackupIT): a backup
 * made here by hand (keys through {@code keys export}, one table file) passes; each kind of damage is refused with the
 * file at fault. And what a failed command takes back (Leftovers), a failed backup leaving nothing behind, and the key
 * files {@code restore --force} moves aside.
 */
class BackupCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;
    Path backup;
    ObjectNode manifest;

    @BeforeEach
    void backup() throws Exception {
        Path node = tmp.resolve("node");
        NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
        backup = Files.createDirectories(tmp.resolve("backup"));
        ByteArrayOutputStream didOut = new ByteArrayOutputStream();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(0, KeysCommand.export(node, k -> Optional.empty(), backup.resolve("keys.json"),
                new PrintStream(didOut, true, StandardCharsets.UTF_8), quiet));
        Files.createDirectories(backup.resolve("tables"));
        Files.writeString(backup.resolve("tables/event.copy"), "1\tsome row\n");
        manifest = JSON.createObjectNode();
        manifest.put("type", "fleetmesh.backup");
        manifest.put("version", 1);
        manifest.put("did", didOut.toString(StandardCharsets.UTF_8).trim());
        manifest.put("schema_version", "11");
        ArrayNode files = manifest.putArray("files");
        files.addObject().put("file", "keys.json").put("bytes", Files.size(backup.resolve("keys.json")))
                .put("sha256", BackupCommand.sha256Of(backup.resolve("keys.json")));
        manifest.putArray("tables").addObject().put("name", "event").put("rows", 1).put("file", "tables/event.copy")
                .put("bytes", Files.size(backup.resolve("tables/event.copy")))
                .put("sha256", BackupCommand.sha256Of(backup.resolve("tables/event.copy")));
        write();
    }

    void write() throws Exception {
        Files.write(backup.resolve("manifest.json"), JSON.writeValueAsBytes(manifest));
    }

    String refusal() {
        return assertThrows(BackupCommand.BackupException.class, () -> BackupCommand.verify(backup)).getMessage();
    }

    @Test
    void anIntactBackupPasses() {
        assertEquals(manifest.get("did").asText(), BackupCommand.verify(backup).get("did").asText());
    }

    @Test
    void aChangedTableFileIsRefused() throws Exception {
        Files.writeString(backup.resolve("tables/event.copy"), "1\tsome roW\n");
        assertTrue(refusal().contains("tables/event.copy does not match its SHA-256"), refusal());
    }

    @Test
    void aTruncatedOrMissingFileIsRefused() throws Exception {
        Files.writeString(backup.resolve("tables/event.copy"), "1\t");
        assertTrue(refusal().contains("tables/event.copy has 2 bytes"), refusal());
        Files.delete(backup.resolve("tables/event.copy"));
        assertTrue(refusal().contains("tables/event.copy is missing"), refusal());
    }

    @Test
    void noManifestIsAnUnfinishedBackup() throws Exception {
        Files.delete(backup.resolve("manifest.json"));
        assertTrue(refusal().contains("no manifest.json"), refusal());
    }

    @Test
    void anotherNodesDidIsRefused() throws Exception {
        manifest.put("did", "did:peer:4zQmSomethingElse");
        write();
        assertTrue(refusal().contains("keys.json makes"), refusal());
    }

    @Test
    void aTableNameOrPathOutsideTheBackupIsRefused() throws Exception {
        ((ObjectNode) manifest.get("tables").get(0)).put("file", "../../etc/passwd");
        write();
        assertTrue(refusal().contains("table event: bad entry"), refusal());
        ((ObjectNode) manifest.get("tables").get(0)).put("file", "tables/event.copy").put("name", "event; drop");
        write();
        assertTrue(refusal().contains("bad or repeated table name"), refusal());
        ((ObjectNode) manifest.get("tables").get(0)).put("name", "event");
        ((ObjectNode) manifest.get("files").get(0)).put("file", "../node/keys/nostr.key");
        write();
        assertTrue(refusal().contains("a file outside the backup") || refusal().contains("no keys.json"), refusal());
    }

    @Test
    void anotherFormatIsRefused() throws Exception {
        manifest.put("version", 2);
        write();
        assertTrue(refusal().contains("backup format version 2"), refusal());
        manifest.put("version", 1).put("type", "something.else");
        write();
        assertTrue(refusal().contains("not a fleetmesh backup manifest"), refusal());
    }

    @Test
    void aManifestThatIsNotJsonIsOneLine() throws Exception {
        Files.writeString(backup.resolve("manifest.json"), "{\"bad\n");
        assertEquals(backup.resolve("manifest.json") + " is not JSON: Illegal unquoted character ((CTRL-CHAR, code 10)):"
                + " has to be escaped using backslash to be included in name (line 1, column 6)", refusal());
    }

    /** The JDK's NotDirectoryException says only the path: "cannot read X: X" before. */
    @Test
    void aDataDirThatIsAFileIsNamedAsOne() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, BackupCommand.run(new String[] { "restore", backup.toString(), "--data-dir", file.toString() },
                file, k -> Optional.empty(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertEquals("meshnode: restore: cannot read " + file + ": not a directory\n", err.toString(StandardCharsets.UTF_8));
    }

    int backupOf(Path dataDir, Path dir, ByteArrayOutputStream err) {
        return BackupCommand.run(new String[] { "backup", dir.toString(), "--data-dir", dataDir.toString() }, dataDir,
                k -> Optional.empty(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aFailedBackupLeavesNoDirectoryBehind() throws Exception {
        Path missing = tmp.resolve("no-such-data-dir");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, backupOf(missing, tmp.resolve("backups/b1"), err));
        String said = err.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("no nostr key") && said.contains("does not exist, as before"), said);
        assertFalse(Files.exists(tmp.resolve("backups")), "the directories it created are removed");
        assertFalse(Files.exists(missing), "the data dir is not created");

        // an empty directory given is kept, and stays empty
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertEquals(1, backupOf(missing, empty, new ByteArrayOutputStream()));
        try (Stream<Path> s = Files.list(empty)) {
            assertEquals(0, s.count());
        }
        // a directory that is not empty is refused and left alone
        Files.writeString(empty.resolve("mine"), "x");
        ByteArrayOutputStream refused = new ByteArrayOutputStream();
        assertEquals(1, backupOf(missing, empty, refused));
        String why = refused.toString(StandardCharsets.UTF_8);
        assertTrue(why.contains("is not empty"), why);
        assertEquals("x", Files.readString(empty.resolve("mine")));
    }

    @Test
    void leftoversRemovesWhatWasCreatedAndNothingElse() throws Exception {
        Path target = tmp.resolve("a/b/data");
        BackupCommand.Leftovers l = BackupCommand.Leftovers.of(target);
        Files.createDirectories(target.resolve("pg/base"));
        Files.writeString(target.resolve("postgres.key"), "x");
        assertTrue(l.remove().contains(tmp.resolve("a") + " does not exist, as before"));
        assertFalse(Files.exists(tmp.resolve("a")));
        assertTrue(Files.exists(tmp));

        Path existing = Files.createDirectories(tmp.resolve("existing"));
        Files.writeString(existing.resolve("kept"), "x");
        Files.createDirectories(existing.resolve("kept-dir"));
        Path outside = Files.writeString(tmp.resolve("outside"), "x");
        l = BackupCommand.Leftovers.of(existing);
        Files.createDirectories(existing.resolve("pg/base"));
        Files.createSymbolicLink(existing.resolve("pg/link"), outside);
        Files.writeString(existing.resolve("pg.users"), "");
        assertTrue(l.remove().contains("holds what it held before"));
        try (Stream<Path> s = Files.list(existing)) {
            assertEquals(List.of("kept", "kept-dir"), s.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertEquals("x", Files.readString(outside), "a link is removed, not followed");
    }

    @Test
    void retireMovesEveryKeyFileAside() throws Exception {
        Path node = tmp.resolve("node");
        Path keys = node.resolve("keys");
        Files.writeString(keys.resolve("l402-root.key"), "00".repeat(32) + "\n");
        Files.writeString(keys.resolve("handover.jwt"), "a.b.c\n");
        Files.writeString(keys.resolve("notes.txt"), "not a key\n");
        String nostr = Files.readString(keys.resolve("nostr.key"));
        Path retired = keys.resolve("retired/1700000000-replaced-by-restore");
        assertEquals(List.of("agreement.key", "handover.jwt", "l402-root.key", "nostr.key", "transport.key"),
                KeysCommand.retire(keys, retired));
        assertEquals(nostr, Files.readString(retired.resolve("nostr.key")));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(retired)));
        try (Stream<Path> s = Files.list(keys)) {
            assertEquals(List.of("notes.txt", "retired"), s.map(p -> p.getFileName().toString()).sorted().toList());
        }
        // nothing to move: nothing created
        Path again = keys.resolve("retired/1700000001-replaced-by-restore");
        assertEquals(List.of(), KeysCommand.retire(keys, again));
        assertFalse(Files.exists(again));
        assertEquals(List.of(), KeysCommand.retire(tmp.resolve("none/keys"), tmp.resolve("none/keys/retired/x")));
        assertFalse(Files.exists(tmp.resolve("none")));
    }
}
