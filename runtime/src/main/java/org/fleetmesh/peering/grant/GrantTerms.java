package org.fleetmesh.peering.grant;

import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.peering.budget.Allowance;

/**
 * What a grant says, before it is signed: the grantor lets the grantee spend {@code bytesPerWindow} bytes and
 * {@code eventsPerWindow} events every {@code windowSeconds} on the link between them, at {@code tier}, until
 * {@code expiration} (epoch seconds, NIP-40).
 */
public record GrantTerms(String grantorDid, String granteeDid, long bytesPerWindow, long eventsPerWindow,
        long windowSeconds, int tier, long expiration) {
    public static final long MAX_WINDOW_SECONDS = Allowance.MAX_WINDOW_SECONDS;
    public static final int MAX_TIER = 255;
    /** DID Core syntax: {@code did:<method>:<method-specific-id>}, bounded. */
    public static final int MAX_DID_LENGTH = 2048;

    public GrantTerms {
        String problem = problem(grantorDid, granteeDid, bytesPerWindow, eventsPerWindow, windowSeconds, tier,
                expiration);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    /** Why these values cannot be a grant, or null. */
    static String problem(String grantorDid, String granteeDid, long bytes, long events, long window, int tier,
            long expiration) {
        if (!isDid(grantorDid)) {
            return "the grantor is not a DID";
        }
        if (!isDid(granteeDid)) {
            return "the grantee is not a DID";
        }
        if (grantorDid.equals(granteeDid)) {
            return "a node cannot grant itself";
        }
        if (window < 1 || window > MAX_WINDOW_SECONDS) {
            return "window must be 1.." + MAX_WINDOW_SECONDS + " seconds";
        }
        long windowNanos = window * 1_000_000_000L;
        if (bytes < 1 || bytes > windowNanos) {
            return "bytes must be 1..(window x 10^9)";
        }
        if (events < 1 || events > windowNanos) {
            return "events must be 1..(window x 10^9)";
        }
        if (tier < 0 || tier > MAX_TIER) {
            return "tier must be 0.." + MAX_TIER;
        }
        if (expiration < 1) {
            return "expiration must be a positive epoch second";
        }
        return null;
    }

    public static boolean isDid(String s) {
        return DidResolver.isDid(s, MAX_DID_LENGTH);
    }

    /** What the grantee may spend, as a budget allowance (REQs are not granted: unmetered). */
    public Allowance allowance() {
        return new Allowance(bytesPerWindow, eventsPerWindow, 0, windowSeconds);
    }
}
