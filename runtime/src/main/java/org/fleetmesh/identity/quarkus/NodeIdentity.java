package org.fleetmesh.identity.quarkus;

import java.nio.file.Path;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
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
}
