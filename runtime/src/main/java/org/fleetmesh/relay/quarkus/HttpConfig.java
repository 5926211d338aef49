package org.fleetmesh.relay.quarkus;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Bounds on the node's TCP connections, whatever they carry (HTTP requests, a WebSocket to the relay or to
 * {@code /mesh}, HTTP/2 streams): each holds a file descriptor and Netty's buffers, and the process has few descriptors
 * (docs/OPERATING.md, "Connections").
 */
@ConfigMapping(prefix = "fleetmesh.http")
public interface HttpConfig {
    /**
     * Connections that have sent a request, open at once; 0 (the default): the smaller of 11,000 (above the relay's
     * 10,000 WebSockets and /mesh's 256) and three quarters of the process's file descriptor limit.
     */
    @WithDefault("0")
    int maxConnections();

    /**
     * Connections open at once from one address (IPv6: one /64), whatever client limits say; a trusted proxy's and
     * loopback's are held to the total only.
     */
    @WithDefault("256")
    int maxConnectionsPerAddress();
}
