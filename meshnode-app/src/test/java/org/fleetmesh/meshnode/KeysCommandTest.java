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
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

class KeysCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Function<String, Optional<String>> NO_SETTINGS = k -> Optional.empty();

    @TempDir
    Path tmp;
    Path node;
    Path restored;
    Path backup;
    NodeSecrets secrets;
    String did;

    final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @BeforeEach
    void node() throws Exception {
        node = tmp.resolve("node");
        restored = tmp.resolve("restored");
        backup = tmp.resolve("backup.json");
        secrets = NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
        did = didOf(secrets);
        Path l402 = node.resolve("keys").resolve("l402-root.key");
        Files.writeString(l402, "ab".repeat(32) + "\n");
        Files.setPosixFilePermissions(l402, PosixFilePermissions.fromString("rw-------"));
    }

    static String didOf(NodeSecrets s) {
        return NodeDidDocument.of(s.publicKeys(), NodeEndpoints.forRelay(Optional.empty(), 7777)).did();
    }

    int run(Function<String, Optional<String>> settings, String... args) {
        return KeysCommand.run(args, tmp.resolve("configured-data-dir"), settings, out, err);
    }

    int run(String... args) {
        return run(NO_SETTINGS, args);
    }

    String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    /** Every key's hex, as it must never appear on stdout or stderr. */
    List<String> secretHex() throws Exception {
        return List.of(Files.readString(node.resolve("keys/nostr.key")).strip(),
                Files.readString(node.resolve("keys/agreement.key")).strip(),
                Files.readString(node.resolve("keys/transport.key")).strip(), "ab".repeat(32));
    }

    void assertNoKeyMaterialPrinted() throws Exception {
        for (String hex : secretHex()) {
            assertFalse(out().contains(hex), "stdout holds a key");
            assertFalse(err().contains(hex), "stderr holds a key");
        }
    }

    @Test
    void exportThenImportRestoresTheSameKeysAndDid() throws Exception {
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()), err());
        assertEquals(did + "\n", out());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(backup)));
        JsonNode doc = JSON.readTree(backup.toFile());
        assertEquals("fleetmesh.keys", doc.get("type").asText());
        assertEquals(1, doc.get("version").asInt());
        assertEquals(did, doc.get("did").asText());
        assertEquals(List.of("nostr", "agreement", "transport", "l402-root"), List.copyOf(iter(doc.get("keys"))));

        outBytes.reset();
        assertEquals(0, run("keys", "import", backup.toString(), "--data-dir", restored.toString()), err());
        assertEquals(did + "\n", out());
        for (String f : List.of("nostr.key", "agreement.key", "transport.key", "l402-root.key")) {
            Path k = restored.resolve("keys").resolve(f);
            assertEquals(Files.readString(node.resolve("keys").resolve(f)), Files.readString(k), f);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(k)), f);
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(restored.resolve("keys"))));
        NodeSecrets back = NodeSecrets.loadOrCreate(restored, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        assertEquals(did, didOf(back));
        assertEquals(secrets.nostr(), back.nostr());
        assertEquals(secrets.transport(), back.transport());
        assertEquals(secrets.agreement(), back.agreement());
        assertNoKeyMaterialPrinted();
    }

    @Test
    void rotateRetiresTheOldKeysSignsAHandOverAndABackupCarriesIt() throws Exception {
        List<String> oldHex = secretHex();
        assertEquals(0, KeysCommand.rotate(node, NO_SETTINGS, 1_767_225_600L, out, err), err());
        NodeSecrets fresh = NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        String newDid = didOf(fresh);
        assertEquals(newDid + "\n", out());
        assertFalse(newDid.equals(did));
        Path retired = node.resolve("keys/retired/1767225600");
        for (String role : List.of("nostr", "agreement", "transport")) {
            assertEquals(Files.readString(retired.resolve(role + ".key")).strip(), oldHex.get(List.of("nostr", "agreement",
                    "transport").indexOf(role)), role + " moved aside unchanged");
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(retired)));
        org.fleetmesh.identity.KeyHandover h = org.fleetmesh.identity.KeyHandover.verify(
                Files.readString(node.resolve("keys/handover.jwt")).strip(), 1_767_225_600L, 0);
        assertEquals(did, h.prior());
        assertEquals(newDid, h.next());
        for (String hex : oldHex) {
            assertFalse(out().contains(hex) || err().contains(hex), "no key printed");
        }
        assertTrue(Files.exists(node.resolve("keys/l402-root.key")), "other keys stay");

        // the backup of the rotated node carries the hand-over, and a restore puts it back
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()), err());
        assertEquals(h.jwt(), JSON.readTree(backup.toFile()).get("handover").asText());
        assertEquals(0, run("keys", "import", backup.toString(), "--data-dir", restored.toString()), err());
        assertEquals(h.jwt(), Files.readString(restored.resolve("keys/handover.jwt")).strip());

        // a second rotation in the same second is refused, touching nothing
        KeysCommand.KeysException e = assertThrows(KeysCommand.KeysException.class,
                () -> KeysCommand.rotate(node, NO_SETTINGS, 1_767_225_600L, out, err));
        assertTrue(e.getMessage().contains("one rotation per second"), e.getMessage());
        assertEquals(newDid, didOf(NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE)));
    }

    @Test
    void rotateRefusesARunningNode() throws Exception {
        Files.createDirectories(node.resolve("pg"));
        Files.writeString(node.resolve("pg/postmaster.pid"), ProcessHandle.current().pid() + "\n/some/dir\n");
        KeysCommand.KeysException e = assertThrows(KeysCommand.KeysException.class,
                () -> KeysCommand.rotate(node, NO_SETTINGS, 1_767_225_600L, out, err));
        assertTrue(e.getMessage().contains("stop the node first"), e.getMessage());
        assertFalse(Files.exists(node.resolve("keys/retired")));
        assertEquals(did, didOf(NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE)));
    }

    @Test
    void importForceRefusesARunningNode() throws Exception {
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        NodeSecrets other = NodeSecrets.loadOrCreate(restored, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        Files.createDirectories(restored.resolve("pg"));
        Files.writeString(restored.resolve("pg/postmaster.pid"), ProcessHandle.current().pid() + "\n/some/dir\n");
        errBytes.reset();
        assertEquals(1, run("keys", "import", backup.toString(), "--data-dir", restored.toString(), "--force"));
        assertTrue(err().contains("stop the node first"), err());
        assertFalse(Files.exists(restored.resolve("keys/retired")), "nothing moved aside");
        assertEquals(didOf(other), didOf(NodeSecrets.loadOrCreate(restored, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE)));
    }

    @Test
    void rotateRefusesKeysFromTheSettings() {
        assertEquals(1, run(k -> k.equals("fleetmesh.keys.transport") ? Optional.of("07".repeat(32)) : Optional.empty(),
                "keys", "rotate", "--data-dir", node.toString()));
        assertTrue(err().contains("fleetmesh.keys.transport is set"), err());
        assertFalse(Files.exists(node.resolve("keys/retired")));
    }

    private static List<String> iter(JsonNode obj) {
        List<String> names = new java.util.ArrayList<>();
        obj.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void exportUsesTheConfiguredDataDirWithoutTheOption() throws Exception {
        Path configured = tmp.resolve("configured-data-dir");
        NodeSecrets other = NodeSecrets.loadOrCreate(configured, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        assertEquals(0, run("keys", "export", backup.toString()), err());
        assertEquals(didOf(other) + "\n", out());
    }

    @Test
    void exportTakesAKeyFromTheSettingsOverItsFile() throws Exception {
        String hex = "07".repeat(32);
        assertEquals(0, run(k -> k.equals("fleetmesh.keys.transport") ? Optional.of(hex) : Optional.empty(), "keys", "export",
                "--data-dir", node.toString(), backup.toString()), err());
        assertEquals(hex, JSON.readTree(backup.toFile()).get("keys").get("transport").asText());
        assertFalse(out().contains(hex) || err().contains(hex));
    }

    @Test
    void exportRefusesToOverwriteAFile() throws Exception {
        Files.writeString(backup, "precious");
        assertEquals(1, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        assertTrue(err().contains("refusing to overwrite"), err());
        assertEquals("precious", Files.readString(backup));
        assertEquals("", out());
    }

    @Test
    void exportOfADataDirWithoutKeysCreatesNone() {
        Path empty = tmp.resolve("empty");
        assertEquals(1, run("keys", "export", "--data-dir", empty.toString(), backup.toString()));
        assertTrue(err().contains("no nostr key"), err());
        assertFalse(Files.exists(empty.resolve("keys/nostr.key")));
        assertFalse(Files.exists(backup));
    }

    @Test
    void exportRefusesAKeyFileOthersMayRead() throws Exception {
        Files.setPosixFilePermissions(node.resolve("keys/transport.key"), PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(1, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        assertTrue(err().contains("chmod 600"), err());
        assertFalse(Files.exists(backup));
    }

    @Test
    void importRefusesToReplaceExistingKeysWithoutForce() throws Exception {
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        NodeSecrets other = NodeSecrets.loadOrCreate(restored, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        String before = Files.readString(restored.resolve("keys/nostr.key"));
        errBytes.reset();
        assertEquals(1, run("keys", "import", backup.toString(), "--data-dir", restored.toString()));
        assertTrue(err().contains("already holds nostr.key, agreement.key, transport.key"), err());
        assertEquals(before, Files.readString(restored.resolve("keys/nostr.key")));
        assertFalse(Files.exists(restored.resolve("keys/l402-root.key")), "nothing written on a refusal");

        assertEquals(0, run("keys", "import", backup.toString(), "--data-dir", restored.toString(), "--force"), err());
        NodeSecrets back = NodeSecrets.loadOrCreate(restored, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        assertEquals(did, didOf(back));
        assertFalse(didOf(other).equals(didOf(back)));
        assertEquals("rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(restored.resolve("keys/nostr.key"))));
        // the keys it replaced are kept, as rotate and restore --force keep theirs
        try (java.util.stream.Stream<Path> d = Files.list(restored.resolve("keys/retired"))) {
            Path kept = d.filter(p -> p.getFileName().toString().endsWith("-replaced-by-import")).findFirst().orElseThrow();
            assertEquals(before, Files.readString(kept.resolve("nostr.key")));
        }
        assertTrue(err().contains("moved the data dir's own keys"), err());
    }

    @Test
    void importChecksTheFile() throws Exception {
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        ObjectNode good = (ObjectNode) JSON.readTree(backup.toFile());
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        ObjectNode v = good.deepCopy();
        v.put("version", 2);
        cases.put(JSON.writeValueAsString(v), "version 2");
        ObjectNode t = good.deepCopy();
        t.put("type", "something");
        cases.put(JSON.writeValueAsString(t), "\"type\" must be");
        ObjectNode missing = good.deepCopy();
        ((ObjectNode) missing.get("keys")).remove("agreement");
        cases.put(JSON.writeValueAsString(missing), "no \"agreement\" key");
        ObjectNode shortKey = good.deepCopy();
        ((ObjectNode) shortKey.get("keys")).put("transport", "abcd");
        cases.put(JSON.writeValueAsString(shortKey), "must be 64 hex characters");
        ObjectNode badName = good.deepCopy();
        ((ObjectNode) badName.get("keys")).put("../escape", "00".repeat(32));
        cases.put(JSON.writeValueAsString(badName), "a key name must be");
        ObjectNode edited = good.deepCopy();
        ((ObjectNode) edited.get("keys")).put("transport", "09".repeat(32));
        cases.put(JSON.writeValueAsString(edited), "the file is damaged or edited");
        String truncated = JSON.writeValueAsString(good);
        cases.put(truncated.substring(0, truncated.length() / 2), "not JSON");
        int n = 0;
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Path f = tmp.resolve("bad" + n++ + ".json");
            Files.writeString(f, c.getKey());
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
            errBytes.reset();
            assertEquals(1, run("keys", "import", f.toString(), "--data-dir", restored.toString()), c.getValue());
            assertTrue(err().contains(c.getValue()), c.getValue() + " / " + err());
            assertFalse(Files.exists(restored.resolve("keys")), "nothing written for " + c.getValue());
        }
        assertNoKeyMaterialPrinted();
    }

    @Test
    void importRefusesABackupOthersMayRead() throws Exception {
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        Files.setPosixFilePermissions(backup, PosixFilePermissions.fromString("rw-r-----"));
        assertEquals(1, run("keys", "import", backup.toString(), "--data-dir", restored.toString()));
        assertTrue(err().contains("chmod 600"), err());
        assertFalse(Files.exists(restored.resolve("keys")));
    }

    @Test
    void importNotesASettingThatOverridesARestoredKey() throws Exception {
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        assertEquals(0, run(k -> k.equals("fleetmesh.keys.nostr-file") ? Optional.of("/run/secrets/nostr") : Optional.empty(),
                "keys", "import", backup.toString(), "--data-dir", restored.toString()));
        assertTrue(err().contains("fleetmesh.keys.nostr-file is set"), err());
    }

    @Test
    void badCommandLinesAreUsageErrors() {
        assertThrows(UsageException.class, () -> run("keys"));
        assertThrows(UsageException.class, () -> run("keys", "export"));
        assertThrows(UsageException.class, () -> run("keys", "export", "--force", backup.toString()));
        assertThrows(UsageException.class, () -> run("keys", "import", "a", "b"));
        assertThrows(UsageException.class, () -> run("keys", "show", "a"));
        // an empty file name is the working directory to the JDK: "<empty> exists" before
        assertEquals("keys export: the file name is empty", assertThrows(UsageException.class,
                () -> run("keys", "export", "--data-dir", node.toString(), "")).getMessage());
        assertThrows(UsageException.class, () -> run("keys", "import", ""));
    }

    @Test
    void theBackupHexIsWhatTheKeyFilesHold() throws Exception {
        assertEquals(0, run("keys", "export", "--data-dir", node.toString(), backup.toString()));
        JsonNode keys = JSON.readTree(backup.toFile()).get("keys");
        assertEquals(HexFormat.of().formatHex(secrets.nostr().bytes()), keys.get("nostr").asText());
        assertEquals("ab".repeat(32), keys.get("l402-root").asText());
    }
}
