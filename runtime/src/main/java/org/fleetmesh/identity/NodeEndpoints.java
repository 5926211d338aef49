package org.fleetmesh.identity;

import java.net.URI;
import java.util.Objects;
import java.util.List;

/**
 * Where a node is reached: its Nostr relay, its {@code /mesh} peer link, and its DIDComm v2 messaging endpoint.
 * A relay at the origin gets a trailing slash, as did:nostr requires of Relay services.
 */
public record NodeEndpoints(URI relay, URI mesh, URI didcomm) {
    private static final List<String> WEBSOCKET = List.of("ws", "wss");

    public NodeEndpoints {
        relay = atOrigin(requireScheme(relay, "relay", WEBSOCKET));
        mesh = requireScheme(mesh, "mesh", WEBSOCKET);
        didcomm = requireScheme(didcomm, "didcomm", List.of("http", "https", "ws", "wss"));
    }

    /**
     * The endpoints every part of a node derives from its relay URL: {@code fleetmesh.relay.url}
     * when configured, else {@code ws://localhost:<http port>/}; the peer link is {@code <relay>mesh}
     * and DIDComm {@code http(s)://.../didcomm}. One rule, so that the DID a node prints, serves
     * and presents on /mesh is the same.
     */
    public static NodeEndpoints forRelay(java.util.Optional<URI> configuredRelayUrl, int httpPort) {
        String relay = configuredRelayUrl.map(URI::toString).orElse("ws://localhost:" + httpPort + "/");
        String base = relay.endsWith("/") ? relay : relay + "/";
        return of(base, base + "mesh", base.replaceFirst("^ws", "http") + "didcomm");
    }

    public static NodeEndpoints of(String relay, String mesh, String didcomm) {
        return new NodeEndpoints(URI.create(relay), URI.create(mesh), URI.create(didcomm));
    }

    private static URI requireScheme(URI uri, String role, List<String> schemes) {
        Objects.requireNonNull(uri, role);
        if (uri.getScheme() == null || !schemes.contains(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("the " + role + " endpoint must be an absolute " + schemes
                    + " URL with a host, got " + uri);
        }
        return uri;
    }

    private static URI atOrigin(URI uri) {
        if (uri.getRawPath() != null && !uri.getRawPath().isEmpty()) {
            return uri;
        }
        String s = uri.toString();
        int end = s.length();
        for (char c : new char[] { '?', '#' }) {
            int i = s.indexOf(c);
            end = i >= 0 ? Math.min(end, i) : end;
        }
        return URI.create(s.substring(0, end) + "/" + s.substring(end));
    }
}
