package org.fleetmesh.relay.limits;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which source address a client's budget is keyed by. The TCP peer's address, unless that peer is one of the
 * configured trusted proxies: then the proxy's header ({@code X-Forwarded-For} style, a comma-separated list the
 * proxies append to), read from the right, skipping trusted proxies, gives the first address no trusted proxy vouches
 * for. A header from any other peer is ignored: a client cannot pick its own key. IPv6 addresses are keyed by their
 * /64, the block one subscriber usually holds.
 */
public final class ClientAddress {
    /** No proxy is trusted: the TCP peer is the client. */
    public static final ClientAddress DIRECT = new ClientAddress(Set.of(), "X-Forwarded-For");

    private static final Pattern LITERAL = Pattern.compile("[0-9A-Fa-f:.\\[\\]]+");

    private final Set<String> trustedProxies;
    private final String header;

    /** @param trustedProxies IP literals of the reverse proxies whose {@code header} is believed */
    public ClientAddress(Set<String> trustedProxies, String header) {
        this.trustedProxies = trustedProxies.stream().map(ClientAddress::canonical).filter(a -> a != null)
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
        if (this.trustedProxies.size() != trustedProxies.size()) {
            throw new IllegalArgumentException("trusted proxies must be IP addresses: " + trustedProxies);
        }
        this.header = header;
    }

    public String header() {
        return header;
    }

    /**
     * The budget key of a connection from {@code remoteAddress} ({@code host:port} as the WebSocket layer gives it)
     * that carried {@code headerValues} (the values of {@link #header()}, in order; empty when absent).
     */
    public String of(String remoteAddress, List<String> headerValues) {
        String peer = canonical(hostOf(remoteAddress));
        if (peer == null) {
            return "unknown";
        }
        if (!trustedProxies.contains(peer) || headerValues == null || headerValues.isEmpty()) {
            return key(peer);
        }
        String[] hops = String.join(",", headerValues).split(",");
        for (int i = hops.length - 1; i >= 0; i--) {
            String hop = canonical(hops[i].trim());
            if (hop == null) {
                return key(peer); // garbage from the proxy's side: trust nothing further left
            }
            if (!trustedProxies.contains(hop)) {
                return key(hop);
            }
        }
        return key(peer);
    }

    /**
     * The key a TCP connection from {@code remoteAddress} is held to a per-address bound by: its peer's (IPv6 by the
     * /64), or null when the peer is a trusted proxy (its connections are many clients') or this host (loopback), which
     * are held to totals only.
     */
    public String connectionKey(String remoteAddress) {
        String peer = canonical(hostOf(remoteAddress));
        if (peer == null) {
            return "unknown";
        }
        if (trustedProxies.contains(peer)) {
            return null;
        }
        try {
            if (InetAddress.getByName(peer).isLoopbackAddress()) { // a literal: parsed, not resolved
                return null;
            }
        } catch (UnknownHostException e) {
            return "unknown";
        }
        return key(peer);
    }

    static String hostOf(String remoteAddress) {
        if (remoteAddress == null) {
            return null;
        }
        if (remoteAddress.startsWith("[")) {
            int end = remoteAddress.indexOf(']');
            return end < 0 ? null : remoteAddress.substring(1, end);
        }
        int colon = remoteAddress.lastIndexOf(':');
        // one colon: host:port; several: a bare IPv6 address with or without a port (the WebSocket layer adds one)
        if (colon > 0 && remoteAddress.indexOf(':') == colon) {
            return remoteAddress.substring(0, colon);
        }
        if (colon > 0 && remoteAddress.chars().filter(ch -> ch == ':').count() == 8) {
            return remoteAddress.substring(0, colon);
        }
        return remoteAddress;
    }

    /** The canonical text of an IP literal, or null when it is not one (never a DNS lookup). */
    static String canonical(String literal) {
        if (literal == null || literal.isEmpty() || literal.length() > 64 || !LITERAL.matcher(literal).matches()) {
            return null;
        }
        String s = literal.startsWith("[") && literal.endsWith("]") ? literal.substring(1, literal.length() - 1) : literal;
        if (s.indexOf(':') < 0 && !s.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return null;
        }
        try {
            InetAddress a = InetAddress.getByName(s); // a literal: parsed, not resolved
            return a.getHostAddress().toLowerCase(Locale.ROOT);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** IPv4 as it is; IPv6 by its /64. */
    static String key(String canonical) {
        try {
            InetAddress a = InetAddress.getByName(canonical);
            if (a instanceof Inet6Address) {
                byte[] b = a.getAddress();
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < 8; i += 2) {
                    sb.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff))).append(':');
                }
                return sb.append(":/64").toString();
            }
            return canonical;
        } catch (UnknownHostException e) {
            return canonical;
        }
    }
}
