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

    @ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    Path dataDir;

    private volatile NodeSecrets secrets;

    public NodeSecrets secrets() {
        NodeSecrets s = secrets;
        if (s == null) {
            synchronized (this) {
                s = secrets;
                if (s == null) {
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
        Path file = dataDir.resolve("keys").resolve(HANDOVER_FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            if (Files.size(file) > KeyHandover.MAX_LENGTH + 2) {
                LOG.warnf("%s is larger than a hand-over; ignoring it", file);
                return Optional.empty();
            }
            String jwt = Files.readString(file, StandardCharsets.US_ASCII).trim();
            KeyHandover h = KeyHandover.verify(jwt, System.currentTimeMillis() / 1000, 300);
            String own = KeyHandover.shortForm(ownDid);
            if (!h.nextKey().equals(own)) {
                LOG.warnf("%s hands over to %s, not to this node's DID %s (keys replaced since?); ignoring it", file,
                        h.nextKey(), own);
                return Optional.empty();
            }
            LOG.infof("this node presents its hand-over from %s (dated %d) on every link", h.priorKey(), h.issuedAt());
            return Optional.of(h);
        } catch (IOException | IllegalArgumentException | DidResolutionException e) {
            LOG.warnf("%s is not a valid hand-over (%s); ignoring it", file, e.getMessage());
            return Optional.empty();
        }
    }
}
