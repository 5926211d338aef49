package org.fleetmesh.peering.quarkus;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.fleetmesh.identity.capability.CapabilityException;
import org.fleetmesh.identity.capability.CapabilityRequest;
import org.fleetmesh.identity.capability.CapabilityVerifier;
import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.identity.quarkus.TokenChecks.Denial;

import io.vertx.core.http.HttpServerRequest;

/**
 * Who may use the node's admin API: the holder of a capability token (docs/spec/capabilities.md) rooted in this
 * node's transport key with the right asked for, sent as {@code Authorization: Bearer <token>}. A token with
 * {@code admin:write} also reads. Where allowed, a request from a loopback address without any token passes too.
 */
@ApplicationScoped
public class AdminAccess {
    public static final String TWO_AUTHORIZATIONS = "bad request: more than one Authorization header";
    static final String HINT = "send Authorization: Bearer <token>; ./meshnode token issue --right ";

    @Inject
    NodeIdentity identity;

    @Inject
    org.fleetmesh.identity.quarkus.Revocations revocations;

    private volatile CapabilityVerifier verifier;

    @Inject
    org.fleetmesh.identity.quarkus.TokenChecks tokenChecks;

    /**
     * The route handler that admits a request to {@code right} before anything else of the route runs (a body read, a
     * worker thread): on the event loop, a request without a token is refused at once (or, from loopback where allowed,
     * passes); a token is checked on a worker thread once {@link org.fleetmesh.identity.quarkus.TokenChecks} admits it
     * (a few at once node-wide and from one address; an address whose tokens keep being refused gets {@code 429} for a
     * while). So a stranger's requests cost the node no worker thread and no queued task, whatever their number.
     */
    public io.vertx.core.Handler<io.vertx.ext.web.RoutingContext> gate(Right right, boolean loopbackWithoutToken) {
        return tokenChecks.gate(request -> check(request, right, loopbackWithoutToken));
    }

    /** Why the request may not have {@code right}: an HTTP status and a reason; empty when it may. */
    public Optional<Denial> check(HttpServerRequest request, Right right, boolean loopbackWithoutToken) {
        if (request.headers().getAll("Authorization").size() > 1) {
            // not a list header (RFC 9110 11.6.2): which one a proxy added is anyone's guess
            return Optional.of(new Denial(400, TWO_AUTHORIZATIONS));
        }
        String header = request.getHeader("Authorization");
        if (header == null) {
            if (loopbackWithoutToken && isLoopback(request)
                    && namesLoopback(request.getHeader("Host"), request.getHeader("Origin"))) {
                return Optional.empty();
            }
            return Optional.of(new Denial(401, "unauthorized: an admin token is required (" + HINT + right + ")"));
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.of(new Denial(401, "unauthorized: the Authorization header is not \"Bearer <token>\""));
        }
        String token = header.substring(7).strip();
        try {
            verifier().revoking(revocations.current()).authorize(token, CapabilityRequest.of(right, Instant.now()));
            return Optional.empty();
        } catch (CapabilityException e) {
            if (e.reason() == CapabilityException.Reason.RIGHT_NOT_GRANTED && right == Right.ADMIN_READ) {
                try {
                    verifier().revoking(revocations.current()).authorize(token, CapabilityRequest.of(Right.ADMIN_WRITE, Instant.now()));
                    return Optional.empty();
                } catch (CapabilityException ignored) {
                    // neither right: refuse for the one asked
                }
            }
            int status = e.reason() == CapabilityException.Reason.RIGHT_NOT_GRANTED
                    || e.reason() == CapabilityException.Reason.WRONG_HOLDER
                    || e.reason() == CapabilityException.Reason.CHECK_FAILED ? 403 : 401;
            return Optional.of(new Denial(status, (status == 403 ? "forbidden: " : "unauthorized: ") + e.getMessage()));
        }
    }

    /**
     * Whether a loopback request also names this host as loopback: its {@code Host} (when sent) is {@code localhost},
     * a name under {@code .localhost} or a loopback address, and its {@code Origin} (when sent) is one too. A page a
     * browser on this host loaded from elsewhere, whose name was then pointed at 127.0.0.1 (DNS rebinding), sends its
     * own name, and gets no token-free access.
     */
    static boolean namesLoopback(String host, String origin) {
        if (host != null && !loopbackName(host)) {
            return false;
        }
        if (origin == null) {
            return true;
        }
        try {
            java.net.URI o = new java.net.URI(origin.strip());
            return o.getHost() != null && loopbackName(o.getHost());
        } catch (java.net.URISyntaxException e) {
            return false; // "null" and the like: an opaque origin is not this host
        }
    }

    /** A host (with or without its port) that is loopback by its form alone: no name is looked up. */
    static boolean loopbackName(String hostAndPort) {
        String h = hostAndPort.strip();
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            if (end < 0) {
                return false;
            }
            h = h.substring(1, end);
        } else if (h.indexOf(':') >= 0 && h.indexOf(':') == h.lastIndexOf(':')) {
            h = h.substring(0, h.indexOf(':'));
        }
        String lower = h.toLowerCase(java.util.Locale.ROOT);
        if (lower.endsWith(".")) {
            lower = lower.substring(0, lower.length() - 1);
        }
        if (lower.equals("localhost") || lower.endsWith(".localhost")) {
            return true;
        }
        boolean literal = lower.matches("[0-9.]+") || (lower.indexOf(':') >= 0 && lower.matches("[0-9a-f:.]+"));
        if (!literal) {
            return false;
        }
        try {
            return InetAddress.getByName(lower).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    static boolean isLoopback(HttpServerRequest request) {
        if (request.remoteAddress() == null) {
            return false;
        }
        String host = request.remoteAddress().hostAddress();
        if (host == null) {
            return false;
        }
        try {
            // a literal address: no name lookup happens
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private CapabilityVerifier verifier() {
        CapabilityVerifier v = verifier;
        if (v == null) {
            v = CapabilityVerifier.of(identity.secrets().publicKeys().transport());
            verifier = v;
        }
        return v;
    }
}
