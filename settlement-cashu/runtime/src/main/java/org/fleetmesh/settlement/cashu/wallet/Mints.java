package org.fleetmesh.settlement.cashu.wallet;

import java.net.URI;
import java.util.Locale;

/** Mint URLs as wallets compare them: scheme and host case-insensitive, no trailing slash. */
public final class Mints {
    private Mints() {
    }

    public static String normalize(String url) {
        String u = url.trim();
        while (u.endsWith("/")) {
            u = u.substring(0, u.length() - 1);
        }
        try {
            URI uri = URI.create(u);
            if (uri.getScheme() == null || uri.getHost() == null
                    || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))) {
                throw new IllegalArgumentException("a mint URL is http(s)://host[:port][/path]: " + url);
            }
            String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            String host = uri.getHost().toLowerCase(Locale.ROOT);
            String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            return scheme + "://" + host + port + path;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a mint URL: " + url, e);
        }
    }

    public static boolean same(String a, String b) {
        try {
            return normalize(a).equals(normalize(b));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
