package org.fleetmesh.relay;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/** Whether the relay URL in a NIP-42 AUTH event names this relay. */
final class RelayUrls {
    private RelayUrls() {
    }

    /**
     * With a configured public URL, the host, port and path must match it (scheme ws/wss are
     * interchangeable: TLS is often terminated by a proxy, and a trailing slash is ignored).
     * Without one, the host the client connected to must match.
     */
    static boolean sameRelay(String claimed, Optional<URI> configured, String connectedHost) {
        URI u;
        try {
            u = URI.create(claimed.trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (u.getHost() == null || u.getScheme() == null
                || !(u.getScheme().equalsIgnoreCase("ws") || u.getScheme().equalsIgnoreCase("wss"))) {
            return false;
        }
        if (configured.isPresent()) {
            URI c = configured.get();
            return c.getHost() != null && c.getHost().equalsIgnoreCase(u.getHost())
                    && (port(c) < 0 || port(u) < 0 || port(c) == port(u)) && path(c).equals(path(u));
        }
        if (connectedHost == null) {
            return false;
        }
        String hostOnly = connectedHost;
        int colon = hostOnly.lastIndexOf(':');
        if (colon > 0 && hostOnly.indexOf(']') < colon) {
            hostOnly = hostOnly.substring(0, colon);
        }
        return hostOnly.toLowerCase(Locale.ROOT).equals(u.getHost().toLowerCase(Locale.ROOT));
    }

    private static int port(URI u) {
        if (u.getPort() > 0) {
            return u.getPort();
        }
        return -1;
    }

    private static String path(URI u) {
        String p = u.getRawPath() == null ? "" : u.getRawPath();
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }
}
