package org.fleetmesh.nostr.nip66;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Relay URLs in the normalized form NIP-66's {@code d} tag requires (RFC 3986 §6): lower-case scheme and host,
 * the scheme's default port dropped, percent-encodings of unreserved characters decoded and the others in upper
 * case, dot segments removed, and an empty path written as {@code /}. The fragment is dropped (it never reaches
 * the relay). Only {@code ws} and {@code wss} URLs with a host and no user information are relay URLs.
 */
public final class RelayUrl {
    private RelayUrl() {
    }

    /** @throws IllegalArgumentException when {@code url} is not a ws:// or wss:// URL with a host */
    public static String normalize(String url) {
        URI u;
        try {
            u = new URI(url.trim());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalArgumentException("not a URL: " + url);
        }
        return normalize(u);
    }

    /** @throws IllegalArgumentException when {@code u} is not a ws:// or wss:// URL with a host */
    public static String normalize(URI u) {
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("ws") && !scheme.equals("wss")) {
            throw new IllegalArgumentException("a relay URL is ws:// or wss://, got " + u);
        }
        if (u.getHost() == null || u.getHost().isEmpty()) {
            throw new IllegalArgumentException("a relay URL has a host, got " + u);
        }
        if (u.getRawUserInfo() != null) {
            throw new IllegalArgumentException("a relay URL has no user information, got " + u);
        }
        StringBuilder sb = new StringBuilder(scheme).append("://").append(u.getHost().toLowerCase(Locale.ROOT));
        int port = u.getPort();
        if (port >= 0 && port != (scheme.equals("wss") ? 443 : 80)) {
            sb.append(':').append(port);
        }
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : percent(u.getRawPath());
        sb.append(removeDotSegments(path));
        if (u.getRawQuery() != null) {
            sb.append('?').append(percent(u.getRawQuery()));
        }
        return sb.toString();
    }

    /**
     * The relay URL of a fleetmesh node reached at {@code mesh}: the peer link is {@code <relay>mesh}
     * (docs/spec/identity.md), so a path ending in {@code /mesh} loses that segment; any other path gives the origin.
     */
    public static String ofMesh(URI mesh) {
        String path = mesh.getRawPath() == null ? "" : mesh.getRawPath();
        String relayPath = path.endsWith("/mesh") ? path.substring(0, path.length() - "mesh".length()) : "/";
        try {
            return normalize(new URI(mesh.getScheme(), mesh.getRawAuthority(), null, null, null).toString() + relayPath);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + mesh);
        }
    }

    /** Decodes percent-encoded unreserved characters; upper-cases the hex digits of the rest. */
    private static String percent(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length() && hex(s.charAt(i + 1)) >= 0 && hex(s.charAt(i + 2)) >= 0) {
                char decoded = (char) (hex(s.charAt(i + 1)) * 16 + hex(s.charAt(i + 2)));
                if (unreserved(decoded)) {
                    sb.append(decoded);
                } else {
                    sb.append('%').append(Character.toUpperCase(s.charAt(i + 1)))
                            .append(Character.toUpperCase(s.charAt(i + 2)));
                }
                i += 2;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }

    private static boolean unreserved(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_' || c == '~');
    }

    /** RFC 3986 §5.2.4. */
    private static String removeDotSegments(String path) {
        java.util.ArrayDeque<String> out = new java.util.ArrayDeque<>();
        String[] segments = path.split("/", -1);
        for (int i = 1; i < segments.length; i++) {
            String seg = segments[i];
            boolean last = i == segments.length - 1;
            if (seg.equals(".")) {
                if (last) {
                    out.addLast("");
                }
            } else if (seg.equals("..")) {
                out.pollLast();
                if (last) {
                    out.addLast("");
                }
            } else {
                out.addLast(seg);
            }
        }
        return "/" + String.join("/", out);
    }
}
