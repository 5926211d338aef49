package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code ./meshnode backup} of a running node (a live backup, with writes going on) and {@code ./meshnode restore}
 * onto a fresh data dir: the restored node has the same DID, the same events (a deletion included), and the same rows
 * in every table (a backup of the restored, stopped data dir matches the first table for table, to the byte); restore
 * checks the backup before it touches anything and refuses a non-empty target. Every directory of the backup is 0700
 * and every file 0600; a restore that fails while loading leaves a missing or empty target so; {@code restore --force}
 * over another node's data dir keeps that node's keys under {@code keys/retired/}.
 */
class BackupIT {
    static final String KIND1 = "[{\"kinds\":[1]}]";

    @Test
    void liveBackupRestoresOntoAFreshDataDir() throws Exception {
        Keys author = Keys.fresh();
        Keys writer = Keys.fresh();
        Set<String> ackedBefore = new HashSet<>();
        Set<String> ackedDuring = ConcurrentHashMap.newKeySet();
        Path backup = MeshnodeProcess.newDataDir("backup").resolve("b1");
        String aDid;
        Path bDir = MeshnodeProcess.newDataDir("bk-b-stopped").resolve("data");
        Event deleted;
        Event deletion;
        Event profile;
        Set<String> atAAfter;
        try (MeshnodeProcess a = MeshnodeProcess.start("bk-a", Delivered.env("[]"))) {
            aDid = PeeringIT.did(a);
            try (MeshnodeProcess b = MeshnodeProcess.start("bk-b", Delivered.env(KIND1, "FLEETMESH_PEERS",
                    Delivered.peerSetting(aDid, a.port())))) {
                String bDid = PeeringIT.did(b);
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                int n = 12;
                try (NostrClient c = NostrClient.connect(a)) {
                    List<Event> notes = new java.util.ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        Event e = author.note(Keys.now() - n + i, "backed up " + i);
                        c.publishAndWait(e).assertAccepted();
                        notes.add(e);
                        ackedBefore.add(e.id().hex());
                    }
                    profile = author.sign(0, Keys.now(), "{\"name\":\"backup\"}");
                    c.publishAndWait(profile).assertAccepted();
                    ackedBefore.add(profile.id().hex());
                    // a's custody chain with b: every note receipted
                    Delivered.awaitPeer(a, bDid, p -> Delivered.drained(p, n), "a drained queue");
                    deleted = notes.get(0);
                    deletion = author.sign(5, Keys.now(), "", Keys.tag("e", deleted.id().hex()));
                    c.publishAndWait(deletion).assertAccepted();
                    ackedBefore.add(deletion.id().hex());
                    ackedBefore.remove(deleted.id().hex());
                    assertEquals(0, c.query("gone", FilterSpec.of().ids(deleted)).size(), "deleted at a");
                }
                // b's data dir, stopped, kept for a restore --force onto another node's identity (b's close removes it)
                b.stop();
                copyTree(b.dataDir(), bDir);
            }

            // the live backup, while a client keeps writing
            AtomicBoolean stop = new AtomicBoolean();
            Thread writes = new Thread(() -> {
                try (NostrClient w = NostrClient.connect(a)) {
                    for (int i = 0; !stop.get() && i < 2000; i++) {
                        Event e = writer.note(Keys.now(), "during the backup " + i);
                        w.publishAndWait(e).assertAccepted();
                        ackedDuring.add(e.id().hex());
                    }
                }
            });
            writes.start();
            while (ackedDuring.size() < 5) {
                Thread.sleep(20);
            }
            Launcher.Run run = Launcher.run(a.dataDir(), null, "backup", backup.toString());
            stop.set(true);
            writes.join(30_000);
            assertEquals(0, run.exit(), "backup failed:\n" + run.stderr());
            assertTrue(sameDid(aDid, run.stdout().trim()), "backup prints the DID: " + run.stdout());
            assertTrue(Files.isRegularFile(backup.resolve("manifest.json")), "manifest written");
            assertTrue(Files.isRegularFile(backup.resolve("keys.json")), "keys written");
            // the owner's only, all of it (tables/cashu_proof.copy holds bearer ecash): whatever the umask
            try (Stream<Path> all = Files.walk(backup)) {
                for (Path p : all.toList()) {
                    assertEquals(Files.isDirectory(p) ? "rwx------" : "rw-------", java.nio.file.attribute
                            .PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), "the mode of " + p);
                }
            }
            assertTrue(Files.isRegularFile(backup.resolve("tables/cashu_proof.copy")), "the wallet's table");

            // restore onto the running node's own data dir: refused (not empty), and the node untouched
            Launcher.Run onto = Launcher.run(a.dataDir(), null, "restore", backup.toString());
            assertEquals(1, onto.exit(), onto.stderr());
            assertTrue(onto.stderr().contains("is not empty"), onto.stderr());
            Launcher.Run forced = Launcher.run(a.dataDir(), null, "restore", backup.toString(), "--force");
            assertEquals(1, forced.exit(), forced.stderr());
            assertTrue(forced.stderr().contains("stop the node"), forced.stderr());
            try (NostrClient c = NostrClient.connect(a)) {
                atAAfter = c.query("all", FilterSpec.of().authors(author.pubkey(), writer.pubkey()).limit(5000)).stream()
                        .map(e -> e.get("id").asText()).collect(Collectors.toSet());
            }
        }

        JsonNode manifest = NostrClient.JSON.readTree(backup.resolve("manifest.json").toFile());
        Map<String, JsonNode> tables = byName(manifest);
        assertTrue(tables.get("link_peer").get("rows").asLong() >= 1, "the link with b: " + manifest.get("tables"));
        assertTrue(tables.entrySet().stream().anyMatch(t -> t.getKey().startsWith("custody") && t.getValue().get("rows")
                .asLong() > 0), "custody receipts in the backup: " + manifest.get("tables"));

        // a damaged backup is refused before anything is touched
        Path damaged = MeshnodeProcess.newDataDir("backup-damaged").resolve("b");
        copyTree(backup, damaged);
        Path table = damaged.resolve(tables.values().stream().filter(t -> t.get("rows").asLong() > 0).findFirst()
                .orElseThrow().get("file").asText());
        byte[] bytes = Files.readAllBytes(table);
        bytes[bytes.length / 2] ^= 1;
        Files.write(table, bytes);
        Path untouched = MeshnodeProcess.newDataDir("restore-refused");
        Launcher.Run bad = Launcher.run(untouched, null, "restore", damaged.toString());
        assertEquals(1, bad.exit(), bad.stderr());
        assertTrue(bad.stderr().contains("damaged"), bad.stderr());
        try (Stream<Path> s = Files.list(untouched)) {
            assertEquals(0, s.count(), "a refused restore leaves the target as it was");
        }
        Files.delete(damaged.resolve("manifest.json"));
        Launcher.Run unfinished = Launcher.run(untouched, null, "restore", damaged.toString());
        assertEquals(1, unfinished.exit(), unfinished.stderr());
        assertTrue(unfinished.stderr().contains("no manifest.json"), unfinished.stderr());

        // a restore that fails while loading (a row count unlike the manifest's, after the checksums passed) leaves a
        // missing target missing (its parent too) and an empty one empty: no half-made node to start or to refuse
        // the next restore
        Path badRows = MeshnodeProcess.newDataDir("backup-bad-rows").resolve("b");
        copyTree(backup, badRows);
        JsonNode badManifest = NostrClient.JSON.readTree(backup.resolve("manifest.json").toFile());
        for (JsonNode t : badManifest.get("tables")) {
            if (t.get("name").asText().equals("event")) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) t).put("rows", t.get("rows").asLong() + 1);
            }
        }
        Files.write(badRows.resolve("manifest.json"), NostrClient.JSON.writeValueAsBytes(badManifest));
        Path fresh = MeshnodeProcess.newDataDir("restored").resolve("new/data");
        for (Path target : List.of(fresh, untouched)) {
            Launcher.Run failed = Launcher.run(target, null, "restore", badRows.toString());
            assertEquals(1, failed.exit(), failed.stderr());
            assertTrue(failed.stderr().contains("table event: loaded")
                    && failed.stderr().contains("removed what was written"), failed.stderr());
        }
        assertFalse(Files.exists(fresh.getParent()), "a missing target stays missing");
        try (Stream<Path> s = Files.list(untouched)) {
            assertEquals(List.of(), s.toList(), "an empty target stays empty");
        }

        // restore onto a fresh data dir (the one a restore failed on: nothing of that is in the way)
        Launcher.Run restored = Launcher.run(fresh, null, "restore", backup.toString());
        assertEquals(0, restored.exit(), "restore failed:\n" + restored.stderr());
        assertTrue(sameDid(aDid, restored.stdout().trim()), "restore prints the DID: " + restored.stdout());
        Map<String, byte[]> aKeys = keyFiles(fresh.resolve("keys"));

        // the restored data dir, stopped, backs up to the same tables, row for row, byte for byte
        Path again = MeshnodeProcess.newDataDir("backup-again").resolve("b2");
        Launcher.Run second = Launcher.run(fresh, null, "backup", again.toString());
        assertEquals(0, second.exit(), second.stderr());
        Map<String, JsonNode> tables2 = byName(NostrClient.JSON.readTree(again.resolve("manifest.json").toFile()));
        assertEquals(tables.keySet(), tables2.keySet());
        for (String t : tables.keySet()) {
            assertEquals(tables.get(t).get("rows").asLong(), tables2.get(t).get("rows").asLong(), "rows of " + t);
            assertEquals(tables.get(t).get("sha256").asText(), tables2.get(t).get("sha256").asText(), "content of " + t);
        }

        // a backup an older build made (schema one version back: this one's tables as they were then, since the last
        // migration changes only indexes) is restored onto a fresh data dir at its version, then migrated: the same
        // tables; one a newer build made is refused before anything is touched; an older one is not put over a data dir
        int schema = Integer.parseInt(NostrClient.JSON.readTree(backup.resolve("manifest.json").toFile())
                .get("schema_version").asText());
        Path olderBackup = MeshnodeProcess.newDataDir("backup-older").resolve("b");
        copyTree(backup, olderBackup);
        JsonNode olderManifest = NostrClient.JSON.readTree(backup.resolve("manifest.json").toFile());
        ((com.fasterxml.jackson.databind.node.ObjectNode) olderManifest).put("schema_version", Integer.toString(schema - 1));
        Files.write(olderBackup.resolve("manifest.json"), NostrClient.JSON.writeValueAsBytes(olderManifest));
        Path fromOlder = MeshnodeProcess.newDataDir("restored-older").resolve("data");
        Launcher.Run olderRun = Launcher.run(fromOlder, null, "restore", olderBackup.toString());
        assertEquals(0, olderRun.exit(), "restore of an older backup failed:\n" + olderRun.stderr());
        assertTrue(olderRun.stderr().contains("migrated the backup's tables from schema version " + (schema - 1) + " to "
                + schema), olderRun.stderr());
        Path olderAgain = MeshnodeProcess.newDataDir("backup-older-again").resolve("b");
        Launcher.Run third = Launcher.run(fromOlder, null, "backup", olderAgain.toString());
        assertEquals(0, third.exit(), third.stderr());
        JsonNode thirdManifest = NostrClient.JSON.readTree(olderAgain.resolve("manifest.json").toFile());
        assertEquals(Integer.toString(schema), thirdManifest.get("schema_version").asText(), "migrated to this build's");
        Map<String, JsonNode> tables3 = byName(thirdManifest);
        for (String t : tables.keySet()) {
            assertEquals(tables.get(t).get("sha256").asText(), tables3.get(t).get("sha256").asText(), "content of " + t);
        }
        Launcher.Run olderOver = Launcher.run(bDir, null, "restore", olderBackup.toString(), "--force");
        assertEquals(1, olderOver.exit(), olderOver.stderr());
        assertTrue(olderOver.stderr().contains("is restored onto a fresh data dir"), olderOver.stderr());
        ((com.fasterxml.jackson.databind.node.ObjectNode) olderManifest).put("schema_version", Integer.toString(schema + 1));
        Files.write(olderBackup.resolve("manifest.json"), NostrClient.JSON.writeValueAsBytes(olderManifest));
        Path notCreated = MeshnodeProcess.newDataDir("restore-newer").resolve("data");
        Launcher.Run newer = Launcher.run(notCreated, null, "restore", olderBackup.toString());
        assertEquals(1, newer.exit(), newer.stderr());
        assertTrue(newer.stderr().contains("newer than this build's " + schema), newer.stderr());
        assertFalse(Files.exists(notCreated), "nothing made for a backup this build cannot restore");

        // a node on it: the same DID, the same events
        try (MeshnodeProcess r = MeshnodeProcess.startOn("bk-restored", fresh, Delivered.env("[]"), 0)) {
            assertEquals(aDid, PeeringIT.did(r), "the same DID");
            Set<String> got;
            try (NostrClient c = NostrClient.connect(r)) {
                got = c.query("all", FilterSpec.of().authors(author.pubkey(), writer.pubkey()).limit(5000)).stream()
                        .map(e -> e.get("id").asText()).collect(Collectors.toSet());
                assertEquals(0, c.query("gone", FilterSpec.of().ids(deleted)).size(), "the deletion holds");
                assertEquals(1, c.query("del", FilterSpec.of().ids(deletion)).size(), "the deletion event itself");
                assertEquals(1, c.query("profile", FilterSpec.of().ids(profile)).size(), "the profile");
            }
            assertTrue(got.containsAll(ackedBefore), "every event acknowledged before the backup is restored");
            assertTrue(atAAfter.containsAll(got), "nothing the source did not have");
            assertFalse(got.contains(deleted.id().hex()));
            long during = got.stream().filter(ackedDuring::contains).count();
            assertEquals(tables.get("event").get("rows").asLong(), tables2.get("event").get("rows").asLong());
            System.out.printf("MEASURE backup: %d events restored, %d of them written during the live backup (%d acked"
                    + " during it in all)%n", got.size(), during, ackedDuring.size());
        }
        assertNotEquals(0, ackedDuring.size());

        // restore --force onto b's stopped data dir: a failure while loading keeps b's tables and keys; a success
        // gives it a's identity and keeps b's own key files under keys/retired/<seconds>-replaced-by-restore/
        Map<String, byte[]> bKeys = keyFiles(bDir.resolve("keys"));
        assertTrue(bKeys.keySet().containsAll(List.of("nostr.key", "agreement.key", "transport.key")), bKeys.keySet()
                .toString());
        Launcher.Run forcedBad = Launcher.run(bDir, null, "restore", badRows.toString(), "--force");
        assertEquals(1, forcedBad.exit(), forcedBad.stderr());
        assertTrue(forcedBad.stderr().contains("table event: loaded"), forcedBad.stderr());
        assertFalse(Files.exists(bDir.resolve("keys/retired")), "nothing moved");
        assertEquals(hex(bKeys), hex(keyFiles(bDir.resolve("keys"))), "b's keys untouched");
        Launcher.Run forcedGood = Launcher.run(bDir, null, "restore", backup.toString(), "--force");
        assertEquals(0, forcedGood.exit(), forcedGood.stderr());
        assertTrue(sameDid(aDid, forcedGood.stdout().trim()), forcedGood.stdout());
        assertTrue(Files.isDirectory(bDir.resolve("keys/retired")), "b's own keys kept: " + forcedGood.stderr());
        List<Path> retired;
        try (Stream<Path> s = Files.list(bDir.resolve("keys/retired"))) {
            retired = s.toList();
        }
        assertEquals(1, retired.size(), retired.toString());
        assertTrue(retired.get(0).getFileName().toString().matches("[0-9]+-replaced-by-restore"), retired.toString());
        assertTrue(forcedGood.stderr().contains("to " + retired.get(0)), forcedGood.stderr());
        assertEquals(hex(bKeys), hex(keyFiles(retired.get(0))), "b's own keys, kept");
        assertEquals(hex(aKeys), hex(keyFiles(bDir.resolve("keys"))), "a's keys now");
    }

    /** The {@code *.key} files of a directory, by name. */
    private static Map<String, byte[]> keyFiles(Path dir) throws Exception {
        Map<String, byte[]> m = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(p -> p.getFileName().toString().endsWith(".key")).toList()) {
                m.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        return m;
    }

    private static Map<String, String> hex(Map<String, byte[]> keys) {
        Map<String, String> m = new java.util.TreeMap<>();
        keys.forEach((k, v) -> m.put(k, java.util.HexFormat.of().formatHex(v)));
        return m;
    }

    /** The short form (did:peer:4zQm...) and the long form (short:z...) name the same node. */
    private static boolean sameDid(String shortForm, String printed) {
        return printed.equals(shortForm) || printed.startsWith(shortForm + ":");
    }

    private static Map<String, JsonNode> byName(JsonNode manifest) {
        Map<String, JsonNode> m = new HashMap<>();
        manifest.get("tables").forEach(t -> m.put(t.get("name").asText(), t));
        return m;
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                    Files.setPosixFilePermissions(target, Files.getPosixFilePermissions(p)); // PostgreSQL checks pg/'s
                } else {
                    Files.copy(p, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
