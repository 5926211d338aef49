package org.fleetmesh.identity.capability;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a capability token lets its holder do at a node. Each right is one {@code right("<name>")} fact in the
 * token's authority block; {@link #COMPUTE_RUN} always comes with a {@code fuel_limit(N)} fact.
 */
public enum Right {
    /** Run compute/1.0 jobs, up to the token's fuel limit per request. */
    COMPUTE_RUN("compute:run"),
    /** Read the node's operator state: health, grants, ledgers, findings. */
    ADMIN_READ("admin:read"),
    /** Change the node's operator state: grants, peers, configuration. */
    ADMIN_WRITE("admin:write"),
    /** Publish events to the relay. */
    RELAY_PUBLISH("relay:publish"),
    /** Read (REQ, COUNT) from the relay. */
    RELAY_READ("relay:read"),
    /** Open a Negentropy sync with the node as a peer. */
    PEER_SYNC("peer:sync");

    private final String value;

    Right(String value) {
        this.value = value;
    }

    /** The name as the token's Datalog writes it, e.g. {@code compute:run}. */
    public String value() {
        return value;
    }

    public static Optional<Right> parse(String value) {
        return Arrays.stream(values()).filter(r -> r.value.equals(value)).findFirst();
    }

    @Override
    public String toString() {
        return value;
    }
}
