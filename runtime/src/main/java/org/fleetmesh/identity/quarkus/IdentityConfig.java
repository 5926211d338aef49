package org.fleetmesh.identity.quarkus;

import java.nio.file.Path;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;

/**
 * Where the node's keys come from ({@code fleetmesh.keys.*}). By default each key lives in
 * {@code <data-dir>/keys/<role>.key}; an operator may instead give a hex value or a file
 * (e.g. a container secret) per key.
 */
@ConfigMapping(prefix = "fleetmesh.keys")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface IdentityConfig {

    /** The secp256k1 (Nostr) secret key, 64 hex characters. */
    Optional<String> nostr();

    /** A file holding the secp256k1 secret key in hex. */
    Optional<Path> nostrFile();

    /** The x25519 (DIDComm key agreement) secret key, 64 hex characters. */
    Optional<String> agreement();

    /** A file holding the x25519 secret key in hex. */
    Optional<Path> agreementFile();

    /** The ed25519 (transport) secret key seed, 64 hex characters. */
    Optional<String> transport();

    /** A file holding the ed25519 secret key seed in hex. */
    Optional<Path> transportFile();
}
