package org.fleetmesh.meshnode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code did show} on data dirs whose keys cannot be read: one line and exit 1, no stack trace. */
class CliTest {
    @TempDir
    Path tmp;

    final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

    int didShow(Path dataDir) throws Exception {
        return Cli.didShow(dataDir, k -> Optional.empty(), new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    }

    String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    void assertOneLine(String expected) {
        String e = err();
        assertTrue(e.startsWith("meshnode: did show: ") && e.contains(expected), e);
        assertEquals(1, e.strip().lines().count(), e);
        assertFalse(e.contains("Exception") || e.contains("\tat "), e);
        assertEquals("", outBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void showsTheDidOfAFreshDataDir() throws Exception {
        assertEquals(0, didShow(tmp.resolve("node")), err());
        assertTrue(outBytes.toString(StandardCharsets.UTF_8).contains("\"did\" : \"did:peer:"));
    }

    @Test
    void aTruncatedKeyFileIsOneLine() throws Exception {
        Path node = tmp.resolve("node");
        NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
        Files.writeString(node.resolve("keys/nostr.key"), "abcd");
        assertEquals(1, didShow(node));
        assertOneLine("must be 64 hex characters");
    }

    @Test
    void aKeyFileOthersMayReadIsOneLine() throws Exception {
        Path node = tmp.resolve("node");
        NodeSecrets.loadOrCreate(node, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
        Files.setPosixFilePermissions(node.resolve("keys/nostr.key"), PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(1, didShow(node));
        assertOneLine("chmod 600");
    }

    @Test
    void aDataDirThatIsAFileIsOneLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("not-a-dir"), "hello");
        assertEquals(1, didShow(file));
        assertOneLine("Not a directory");
    }
}
