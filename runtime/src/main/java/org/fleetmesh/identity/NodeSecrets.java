package org.fleetmesh.identity;

import org.fleetmesh.spi.secrets.SecretFile;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Optional;

import org.bouncycastle.math.ec.rfc7748.X25519;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;

/**
 * The node's three secret keys (design brief §4): secp256k1 for Nostr, x25519 for DIDComm key
 * agreement, ed25519 for transport signatures. Each comes from the operator (a hex value or a
 * file, e.g. a container secret) or, failing that, from {@code <data-dir>/keys/<role>.key},
 * generated on first start with mode 0600. A key file readable by group or others is refused.
 */
public final class NodeSecrets {
    public enum Role {
        NOSTR, AGREEMENT, TRANSPORT;

        String fileName() {
            return name().toLowerCase() + ".key";
        }
    }

    /** What the operator supplied for one key: a hex value, or a file holding one. */
    public record Supplied(Optional<String> hex, Optional<Path> file) {
        public static final Supplied NONE = new Supplied(Optional.empty(), Optional.empty());
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKey nostr;
    private final SecretKey agreement;
    private final SecretKey transport;
    private final NodeKeys publicKeys;

    private NodeSecrets(SecretKey nostr, SecretKey agreement, SecretKey transport) {
        this.nostr = nostr;
        this.agreement = agreement;
        this.transport = transport;
        this.publicKeys = new NodeKeys(new PubKey(Schnorr.publicKey(nostr.bytes())),
                Multikey.x25519(x25519Public(agreement)), Multikey.ed25519(ed25519Public(transport)));
    }

    public static NodeSecrets of(SecretKey nostr, SecretKey agreement, SecretKey transport) {
        return new NodeSecrets(nostr, agreement, transport);
    }

    /** Loads the keys, creating missing key files in {@code <dataDir>/keys}. */
    public static NodeSecrets loadOrCreate(Path dataDir, Supplied nostr, Supplied agreement, Supplied transport) {
        Path dir = dataDir.resolve("keys");
        return new NodeSecrets(load(dir, Role.NOSTR, nostr), load(dir, Role.AGREEMENT, agreement),
                load(dir, Role.TRANSPORT, transport));
    }

    public SecretKey nostr() {
        return nostr;
    }

    public SecretKey agreement() {
        return agreement;
    }

    public SecretKey transport() {
        return transport;
    }

    public NodeKeys publicKeys() {
        return publicKeys;
    }

    static byte[] x25519Public(SecretKey k) {
        byte[] pub = new byte[X25519.POINT_SIZE];
        X25519.scalarMultBase(k.bytes(), 0, pub, 0);
        return pub;
    }

    static byte[] ed25519Public(SecretKey k) {
        byte[] pub = new byte[Ed25519.PUBLIC_KEY_SIZE];
        Ed25519.generatePublicKey(k.bytes(), 0, pub, 0);
        return pub;
    }

    private static SecretKey load(Path dir, Role role, Supplied supplied) {
        byte[] k = SecretFile.load(supplied.hex(), supplied.file(), dir.resolve(role.fileName()),
                () -> role == Role.NOSTR ? Schnorr.newSecretKey() : random32(), role + " key");
        try {
            return new SecretKey(k);
        } finally {
            java.util.Arrays.fill(k, (byte) 0);
        }
    }

    private static byte[] random32() {
        byte[] k = new byte[32];
        RANDOM.nextBytes(k);
        return k;
    }

    @Override
    public String toString() {
        return "NodeSecrets[nostr=" + publicKeys.nostr().hex() + ", secrets redacted]";
    }
}
