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

import org.fleetmesh.identity.NodeLock;
import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backup and restore interrupted (killed) half-way, on a real node's embedded PostgreSQL: the states such a kill
 * leaves, made by hand (a backup directory with its {@code backup.unfinished} marker and no manifest; a data dir with
 * the restore's marker, its tables restored and its keys not written), and what the next command does with them.
 */
class BackupInterruptedTest {
    @TempDir
    Path tmp;

    record Run(int code, String out, String err) {
    }

    static Run cli(Path dataDir, String... args) {
        return cli(dataDir, k -> Optional.empty(), args);
    }

    static Run cli(Path dataDir, java.util.function.Function<String, Optional<String>> settings, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BackupCommand.run(args, dataDir, settings, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A database nobody serves: the store will not open. */
    static Optional<String> unreachable(String key) {
        return key.equals("quarkus.datasource.jdbc.url") ? Optional.of("jdbc:postgresql://127.0.0.1:1/none")
                : key.equals("quarkus.datasource.username") ? Optional.of("x")
                : key.equals("quarkus.datasource.password") ? Optional.of("x") : Optional.empty();
    }

    @Test
    void anInterruptedBackupStartsOverAndAnInterruptedRestoreKeepsTheRelayOffUntilItIsFinished() throws Exception {
        Path node = tmp.resolve("node");
        NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);

        // a backup killed before its manifest: the marker and part of a table
        Path backup = Files.createDirectories(tmp.resolve("backup"));
        Files.writeString(backup.resolve(BackupCommand.UNFINISHED), "a backup of " + node + " started earlier\n");
        Files.createDirectories(backup.resolve("tables"));
        Files.writeString(backup.resolve("tables/event.copy"), "half a ro");
        String refused = assertThrows(BackupCommand.BackupException.class, () -> BackupCommand.verify(backup))
                .getMessage();
        assertTrue(refused.contains("is an unfinished backup"), refused);

        Run again = cli(node, "backup", backup.toString());
        assertEquals(0, again.code(), again.err());
        assertTrue(again.err().contains("held an unfinished backup"), again.err());
        assertFalse(Files.exists(backup.resolve(BackupCommand.UNFINISHED)), "the marker goes with the manifest");
        String did = BackupCommand.verify(backup).get("did").asText();
        assertEquals(did, again.out().trim());

        // a directory holding anything else is still refused, and left alone
        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.writeString(other.resolve("mine"), "x");
        Run otherRun = cli(node, "backup", other.toString());
        assertEquals(1, otherRun.code());
        assertTrue(otherRun.err().contains("is not empty"), otherRun.err());
        assertEquals("x", Files.readString(other.resolve("mine")));

        // a restore onto a fresh data dir leaves no marker
        Path restored = tmp.resolve("restored");
        Run first = cli(restored, "restore", backup.toString());
        assertEquals(0, first.code(), first.err());
        assertFalse(Files.exists(restored.resolve(NodeLock.UNFINISHED_RESTORE)));
        NodeLock.acquire(restored).close();

        // killed between the tables' commit and the keys: the tables are the backup's, the keys missing
        Files.writeString(restored.resolve(NodeLock.UNFINISHED_RESTORE), "a restore of " + backup + " started earlier\n");
        try (Stream<Path> keys = Files.list(restored.resolve("keys"))) {
            for (Path k : keys.filter(p -> p.toString().endsWith(".key")).toList()) {
                Files.delete(k);
            }
        }
        NodeLock.UnfinishedRestoreException noRelay = assertThrows(NodeLock.UnfinishedRestoreException.class,
                () -> NodeLock.acquire(restored));
        assertTrue(noRelay.getMessage().contains("holds an unfinished restore (a restore of " + backup)
                && noRelay.getMessage().contains("run `meshnode restore <backup>"), noRelay.getMessage());
        // the relay's refusal released the lock: the restore takes it
        Run finish = cli(restored, "restore", backup.toString());
        assertEquals(0, finish.code(), finish.err());
        assertTrue(finish.err().contains("holds an unfinished restore: finishing over it"), finish.err());
        assertEquals(did, finish.out().trim());
        assertFalse(Files.exists(restored.resolve(NodeLock.UNFINISHED_RESTORE)));
        for (String role : new String[] {"nostr", "agreement", "transport"}) {
            assertTrue(Files.isRegularFile(restored.resolve("keys/" + role + ".key")), role);
        }
        NodeLock.acquire(restored).close();

        // a finished node's data dir is still refused without --force
        Run onto = cli(restored, "restore", backup.toString());
        assertEquals(1, onto.code());
        assertTrue(onto.err().contains("is not empty"), onto.err());
    }

    @Test
    void whatAStartOverOrAFailedForcedRestoreLeaves() throws Exception {
        Path node = tmp.resolve("node");
        NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
        Path good = tmp.resolve("good");
        assertEquals(0, cli(node, "backup", good.toString()).code());

        // a killed backup's directory with something else put there since: refused, nothing removed
        Path mixed = Files.createDirectories(tmp.resolve("mixed"));
        Files.writeString(mixed.resolve(BackupCommand.UNFINISHED), "killed\n");
        Files.writeString(mixed.resolve("keys.json"), "{}");
        Files.writeString(mixed.resolve("another-backup.tar"), "mine");
        Run refused = cli(node, "backup", mixed.toString());
        assertEquals(1, refused.code());
        assertTrue(refused.err().contains("holds an unfinished backup and other files (another-backup.tar)"), refused.err());
        assertEquals("mine", Files.readString(mixed.resolve("another-backup.tar")));
        assertTrue(Files.exists(mixed.resolve("keys.json")));

        // a killed backup's directory, and the new backup fails too: nothing of either is left (keys.json holds keys)
        Path killed = Files.createDirectories(tmp.resolve("killed"));
        Files.writeString(killed.resolve(BackupCommand.UNFINISHED), "killed\n");
        Files.writeString(killed.resolve("keys.json"), "{\"secret\":1}");
        Files.createDirectories(killed.resolve("tables"));
        Files.writeString(killed.resolve("tables/event.copy"), "half");
        String failed;
        try {
            Run r = cli(node, BackupInterruptedTest::unreachable, "backup", killed.toString());
            assertEquals(1, r.code(), r.err());
            failed = r.err();
        } catch (RuntimeException unexpected) { // the database driver's own exception: the CLI's main reports it
            failed = unexpected.toString();
        }
        try (Stream<Path> left = Files.list(killed)) {
            assertEquals(List.of(), left.toList(), failed);
        }

        // a data dir with an unfinished restore is not backed up
        Path half = Files.createDirectories(tmp.resolve("half"));
        Files.writeString(half.resolve(NodeLock.UNFINISHED_RESTORE), "a restore\n");
        Run notBackedUp = cli(half, "backup", tmp.resolve("never").toString());
        assertEquals(1, notBackedUp.code());
        assertTrue(notBackedUp.err().contains("holds an unfinished restore"), notBackedUp.err());
        assertFalse(Files.exists(tmp.resolve("never")));

        // restore --force whose database will not open: nothing changed, and no marker left to stop the node
        Run forced = cli(node, BackupInterruptedTest::unreachable, "restore", good.toString(), "--force");
        assertEquals(1, forced.code(), forced.err());
        assertFalse(Files.exists(node.resolve(NodeLock.UNFINISHED_RESTORE)), forced.err());
        NodeLock.acquire(node).close();
        try (Stream<Path> retired = Files.walk(node.resolve("keys"))) {
            assertFalse(retired.anyMatch(p -> p.toString().contains("replaced-by-restore")), "the node's keys stay");
        }
    }
}
