package org.fleetmesh.peering.quarkus;

import java.time.Duration;

import org.fleetmesh.peering.HandshakeSettings;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The {@code /mesh} peer link ({@code fleetmesh.mesh.*}, or {@code FLEETMESH_MESH_*} in the environment). */
@ConfigMapping(prefix = "fleetmesh.mesh")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface MeshConfig {

    /** How far a peer's proof time may lie from this node's clock, either way. */
    @WithDefault("60s")
    Duration clockSkew();

    /** How long a handshake may take, from the connection opening to MESH-OK. */
    @WithDefault("10s")
    Duration handshakeTimeout();

    /** Longest handshake message read, in characters. */
    @WithDefault("65536")
    int maxHandshakeMessageLength();

    /** Recently accepted proofs remembered, so that none is accepted twice. */
    @WithDefault("4096")
    int replayCacheSize();

    default HandshakeSettings settings() {
        return new HandshakeSettings(clockSkew(), handshakeTimeout(), maxHandshakeMessageLength());
    }
}
