package org.fleetmesh.identity.didcomm;

import java.util.Map;
import java.util.Optional;

/** The local agent's private keys by key id, to decrypt (X25519, P-256, P-384) and to sign (Ed25519, P-256, P-384). */
@FunctionalInterface
public interface SecretResolver {
    Optional<Secret> secret(String kid);

    /** A fixed set of secrets. */
    static SecretResolver of(Map<String, ? extends Secret> secrets) {
        Map<String, Secret> copy = Map.copyOf(secrets);
        return kid -> Optional.ofNullable(copy.get(kid));
    }
}
