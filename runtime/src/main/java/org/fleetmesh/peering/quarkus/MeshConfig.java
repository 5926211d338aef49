package org.fleetmesh.peering.quarkus;

import java.time.Duration;
import java.util.Optional;

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

    /** Open {@code /mesh} connections, handshaking or authenticated; one more is refused with {@code busy}. */
    @WithDefault("256")
    int maxConnections();

    /** Open {@code /mesh} connections from one remote address (behind a reverse proxy, the proxy's). */
    @WithDefault("8")
    int maxConnectionsPerAddress();

    /**
     * Of {@code max-connections}, the places only a peer this node declared or trusts (tier 1 or above) may hold once
     * its handshake says who it is; a new peer's link past the others is refused {@code busy}. At most
     * {@code max-connections - 1} is used.
     */
    @WithDefault("32")
    int reservedConnections();

    /**
     * New peer identities (DIDs this node holds no record of and has not declared) one address may link per hour; one
     * more is refused {@code busy} after its handshake. Loopback and trusted proxies are not held to it.
     */
    @WithDefault("10")
    int newPeersPerHour();

    /** Bytes queued to one peer and not yet written (at least 16384); a peer that lets more pile up is closed ({@code slow}). */
    @WithDefault("4194304")
    long sendBudget();

    /** An authenticated link on which the peer sends nothing (no message, no pong) this long is closed ({@code idle}); 0s: never. */
    @WithDefault("300s")
    Duration idleTimeout();

    /** Threads that verify and sign handshake proofs, off the event loop. */
    @WithDefault("2")
    int handshakeThreads();

    /** Handshake steps waiting for those threads; one more is refused with {@code busy}. */
    @WithDefault("64")
    int handshakeQueue();

    /**
     * Declared peers, comma-separated {@code <did>@<ws-url>}; also read from {@code fleetmesh.peers}
     * ({@code FLEETMESH_PEERS}), the name operators use.
     */
    Optional<String> peers();

    /** How often each side of a link sends MESH-PING. */
    @WithDefault("5s")
    Duration heartbeatInterval();

    /** A link with no MESH-PONG for this long is ended ({@code late}) and redialled. */
    @WithDefault("15s")
    Duration heartbeatTimeout();

    /** The ceiling of the first redial delay; it doubles per failure in a row, up to {@link #redialCap()}. */
    @WithDefault("500ms")
    Duration redialBase();

    /** The largest redial delay ceiling (each delay is drawn uniformly below its ceiling). */
    @WithDefault("30s")
    Duration redialCap();

    default HandshakeSettings settings() {
        return new HandshakeSettings(clockSkew(), handshakeTimeout(), maxHandshakeMessageLength());
    }
}
