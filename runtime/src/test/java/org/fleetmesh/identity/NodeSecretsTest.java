package org.fleetmesh.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeSecretsTest {
    static final NodeSecrets.Supplied NONE = NodeSecrets.Supplied.NONE;

    @TempDir
    Path dataDir;

    @Test
    void firstStartCreatesThreeOwnerOnlyKeyFiles() throws Exception {
        NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE);
        for (String f : new String[] { "nostr.key", "agreement.key", "transport.key" }) {
            Path p = dataDir.resolve("keys").resolve(f);
            assertTrue(Files.exists(p), f);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), f);
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir.resolve("keys"))));
    }

    @Test
    void secondStartLoadsTheSameKeys() {
        NodeSecrets first = NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE);
        NodeSecrets second = NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE);
        assertEquals(first.publicKeys(), second.publicKeys());
        assertEquals(first.transport(), second.transport());
    }

    @Test
    void theThreeKeysAreDistinct() {
        NodeSecrets s = NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE);
        assertNotEquals(s.nostr(), s.agreement());
        assertNotEquals(s.agreement(), s.transport());
    }

    @Test
    void aKeyFileReadableByOthersIsRefused() throws Exception {
        NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE);
        Path p = dataDir.resolve("keys/transport.key");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE));
        assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
    }

    @Test
    void operatorSuppliedKeyWinsAndIsNotWritten() {
        byte[] sk = Schnorr.newSecretKey();
        NodeSecrets s = NodeSecrets.loadOrCreate(dataDir,
                new NodeSecrets.Supplied(Optional.of(Hex.encode(sk)), Optional.empty()), NONE, NONE);
        assertEquals(Hex.encode(Schnorr.publicKey(sk)), s.publicKeys().nostr().hex());
        assertFalse(Files.exists(dataDir.resolve("keys/nostr.key")));
    }

    @Test
    void operatorSuppliedKeyFileIsRead() throws Exception {
        byte[] sk = Schnorr.newSecretKey();
        Path secret = dataDir.resolve("secret");
        Files.writeString(secret, Hex.encode(sk) + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        NodeSecrets s = NodeSecrets.loadOrCreate(dataDir, new NodeSecrets.Supplied(Optional.empty(), Optional.of(secret)),
                NONE, NONE);
        assertEquals(Hex.encode(Schnorr.publicKey(sk)), s.publicKeys().nostr().hex());
    }

    @Test
    void malformedSuppliedKeyIsRefusedWithoutEchoingIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> NodeSecrets.loadOrCreate(dataDir,
                NONE, new NodeSecrets.Supplied(Optional.of("abc123-secret"), Optional.empty()), NONE));
        assertFalse(e.getMessage().contains("abc123"), e.getMessage());
    }

    @Test
    void secretsNeverPrintThemselves() {
        NodeSecrets s = NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE);
        String hex = Hex.encode(s.transport().bytes());
        assertFalse(s.toString().contains(hex));
        assertEquals("SecretKey[redacted]", s.transport().toString());
    }

    @Test
    void publicKeysMatchTheirSecrets() {
        NodeSecrets s = NodeSecrets.loadOrCreate(dataDir, NONE, NONE, NONE);
        assertEquals(Hex.encode(Schnorr.publicKey(s.nostr().bytes())), s.publicKeys().nostr().hex());
        assertEquals(KeyType.X25519, s.publicKeys().agreement().type());
        assertEquals(KeyType.ED25519, s.publicKeys().transport().type());
    }
}
