package org.fleetmesh.identity.quarkus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.KeyHandover;
import org.fleetmesh.identity.NodeSecrets;
import org.jboss.logging.Logger;

/** The node's keys, loaded (or created) once from configuration. */
@ApplicationScoped
public class NodeIdentity {
    private static final Logger LOG = Logger.getLogger(NodeIdentity.class);

    @Inject
    IdentityConfig config;

    @Inject
    DataDirLock lock;

    @ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    Path dataDir;

    private volatile NodeSecrets secrets;

    public NodeSecrets secrets() {
        NodeSecrets s = secrets;
        if (s == null) {
            synchronized (this) {
                s = secrets;
                if (s == null) {
                    lock.held(); // one node per data dir, before its keys are read or made
                    IdentityConfig k = config;
                    s = NodeSecrets.loadOrCreate(dataDir,
                            new NodeSecrets.Supplied(k.nostr(), k.nostrFile()),
                            new NodeSecrets.Supplied(k.agreement(), k.agreementFile()),
                            new NodeSecrets.Supplied(k.transport(), k.transportFile()));
                    secrets = s;
                    LOG.infof("node keys loaded; Nostr pubkey %s", s.publicKeys().nostr().hex());
                }
            }
        }
        return s;
    }

    /** Where {@code ./meshnode keys rotate} leaves the hand-over from the previous DID. */
    public static final String HANDOVER_FILE = "handover.jwt";

    /**
     * This node's hand-over from the DID it held before its last key rotation ({@code <data-dir>/keys/handover.jwt}),
     * when the file is there, verifies, and hands over to {@code ownDid}; otherwise empty, with a warning for a file
     * that does not qualify (the node then links under its DID alone).
     */
    public Optional<KeyHandover> handover(String ownDid) {
        Path keys = dataDir.resolve("keys");
        try {
            Optional<KeyHandover> h = readHandover(keys, ownDid, System.currentTimeMillis() / 1000);
            h.ifPresent(v -> LOG.infof("this node presents its hand-over from %s (dated %d) on every link", v.priorKey(),
                    v.issuedAt()));
            return h;
        } catch (IllegalArgumentException | DidResolutionException e) {
            LOG.warnf("%s is not this node's hand-over (%s); ignoring it", keys.resolve(HANDOVER_FILE), e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The hand-over in {@code keysDir}, verified and handing over to {@code ownDid}; empty when there is no file.
     *
     * @throws IllegalArgumentException for a file that is not one (too large, unreadable, not verifying, to another DID)
     */
    public static Optional<KeyHandover> readHandover(Path keysDir, String ownDid, long now) {
        Path file = keysDir.resolve(HANDOVER_FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        String jwt;
        try {
            if (Files.size(file) > KeyHandover.MAX_LENGTH + 2) {
                throw new IllegalArgumentException("larger than a hand-over");
            }
            jwt = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable: " + e.getMessage(), e);
        }
        return Optional.of(KeyHandover.verifyTo(ownDid, jwt, now, 300));
    }
}
